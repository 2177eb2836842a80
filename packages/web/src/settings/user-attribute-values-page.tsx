import { keepPreviousData, useQueryClient } from '@tanstack/react-query';
import { useGetUserAttributeValues, useListUsers, useUpsertUserAttributeValue } from '@tessera/client/react';
import { type FormEvent, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';
import { type AttributeType, typeLabel } from './user-attributes-page.tsx';

interface ValueItem {
  userAttributeId: number;
  name: string;
  type: AttributeType;
  displayName?: string | null;
  description?: string | null;
  value?: unknown;
  formattedValue?: unknown;
}

/**
 * Settings > User values (issue 22 items 3 and 8): one user's value of each user attribute. An
 * empty value removes theirs, so the attribute's default applies; what their security context
 * carries is shown under each field. The chosen user is in the address (`?user=`), to link to.
 */
export function UserAttributeValuesPage() {
  const [search, setSearch] = useSearchParams();
  const users = useListUsers({ params: { query: { first: 1000 } } });
  const userId = Number(search.get('user')) || null;
  const selectId = useId();
  const list = users.data?.items ?? [];

  return (
    <>
      <PageHeader
        title="User values"
        subtitle={
          <>
            Each user’s values of the <Link to="/settings/user-attributes">user attributes</Link>. Their
            dashboards, data-API tokens, chats and notifications see these rows only.
          </>
        }
      />
      {users.isPending ? (
        <LoadingState label="Loading users…" />
      ) : users.isError ? (
        <ErrorState error={users.error} onRetry={() => users.refetch()} />
      ) : (
        <div className="field settings-picker">
          <label htmlFor={selectId}>User</label>
          <select
            id={selectId}
            value={userId ?? ''}
            onChange={(e) => setSearch(e.target.value ? { user: e.target.value } : {}, { replace: true })}
          >
            <option value="">Choose a user…</option>
            {list.map((u) => (
              <option key={u.id} value={u.id}>
                {[u.firstName, u.lastName].filter(Boolean).join(' ') || u.username} ({u.email})
              </option>
            ))}
          </select>
        </div>
      )}
      {userId !== null && <UserValues userId={userId} />}
    </>
  );
}

function UserValues({ userId }: { userId: number }) {
  const values = useGetUserAttributeValues(
    { params: { path: { userId } } },
    { placeholderData: keepPreviousData },
  );
  const [status, setStatus] = useState<string | null>(null);
  if (values.isPending) return <LoadingState label="Loading their values…" />;
  if (values.isError && !values.data)
    return <ErrorState error={values.error} onRetry={() => values.refetch()} />;
  const items = (values.data ?? []) as ValueItem[];
  if (items.length === 0)
    return (
      <EmptyState title="No user attributes yet">
        <Link to="/settings/user-attributes">Create one</Link> first.
      </EmptyState>
    );
  return (
    <section aria-label="Values" className="card">
      <div className="card-body">
        <div role="status" className="settings-status">
          {status}
        </div>
        {items.map((item) => (
          <ValueForm
            key={`${userId}:${item.userAttributeId}`}
            userId={userId}
            item={item}
            onSaved={setStatus}
          />
        ))}
      </div>
    </section>
  );
}

/** The text a value is edited as: lists comma-separated. */
function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

/**
 * The value the text stands for, per type; text that does not read as the type is sent as is, so
 * that the server's answer says what is wrong beside the field. Empty: no value of their own.
 */
function fromText(text: string, type: AttributeType): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const number = (t: string) => (/^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t);
  switch (type) {
    case 'string':
      return text;
    case 'number':
      return number(trimmed);
    case 'boolean':
      return trimmed === 'true' ? true : trimmed === 'false' ? false : trimmed;
    case 'string_array':
      return trimmed
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
    case 'number_array': {
      const parts = trimmed.split(',').map((t) => number(t.trim()));
      return parts.every((p) => typeof p === 'number') ? parts : trimmed;
    }
  }
}

const hints: Record<AttributeType, string> = {
  string: 'Text',
  number: 'A number',
  boolean: 'Yes or no',
  string_array: 'Texts, comma-separated',
  number_array: 'Numbers, comma-separated',
};

function ValueForm(props: { userId: number; item: ValueItem; onSaved: (message: string) => void }) {
  const { item } = props;
  const [text, setText] = useState(asText(item.value));
  const [problems, setProblems] = useState<Problems>(noProblems);
  const queryClient = useQueryClient();
  const label = item.displayName || item.name;
  const upsert = useUpsertUserAttributeValue({
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['/api/v1/user-attribute-values/{userId}'] });
      props.onSaved(
        saved.value === null
          ? `Removed their ${label}; ${saved.formattedValue ? `the default ${saved.formattedValue} applies` : 'it is not set'}.`
          : `Saved their ${label}.`,
      );
    },
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    upsert.mutate({
      body: {
        userId: String(props.userId),
        userAttributeId: String(item.userAttributeId),
        value: fromText(text, item.type) as string | null,
      },
    });
  };
  const effective =
    item.value === null || item.value === undefined
      ? item.formattedValue
        ? `No value of their own: the default ${String(item.formattedValue)} applies.`
        : 'No value of their own and no default.'
      : null;
  const hint = `${hints[item.type] ?? typeLabel(item.type)} · ${item.name}${effective ? ` · ${effective}` : ''}`;
  const save = (
    <button
      type="submit"
      className="button button-secondary"
      aria-label={`Save ${label}`}
      disabled={upsert.isPending}
    >
      {upsert.isPending ? 'Saving…' : 'Save'}
    </button>
  );
  return (
    <form className="value-form" onSubmit={submit} noValidate>
      {item.type === 'boolean' ? (
        <SelectField
          label={label}
          value={text as '' | 'true' | 'false'}
          options={[
            { value: '', label: effective ?? 'Not set' },
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
          onChange={setText}
          problem={problems.fields.value}
          beside={save}
        />
      ) : (
        <Field
          label={label}
          value={text}
          onChange={setText}
          problem={problems.fields.value}
          hint={hint}
          beside={save}
        />
      )}
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </form>
  );
}
