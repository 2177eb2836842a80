import { keepPreviousData } from '@tanstack/react-query';
import { useCreateUserAttribute, useGetUserAttributes, useUpdateUserAttribute } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field, SelectField } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

export const attributeTypes = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Yes or no' },
  { value: 'string_array', label: 'List of texts' },
  { value: 'number_array', label: 'List of numbers' },
] as const;
export type AttributeType = (typeof attributeTypes)[number]['value'];

export const typeLabel = (type: string) => attributeTypes.find((t) => t.value === type)?.label ?? type;

export interface AttributeItem {
  id: number;
  name: string;
  type: AttributeType;
  defaultValue?: string | null;
  description?: string | null;
  displayName?: string | null;
}

const defaultHint: Record<AttributeType, string> = {
  string: 'Any text, e.g. DE.',
  number: 'A number, e.g. 42.',
  boolean: 'true or false.',
  string_array: 'A JSON list, e.g. ["DE", "FR"].',
  number_array: 'A JSON list, e.g. [1, 2].',
};

/**
 * Settings > User attributes (issue 22 items 3 and 8): the account's definitions, which every
 * account user's security context carries at `serviceCloud.userAttributes` (their own value, else
 * the default). Admins create them and edit their default, display name and description.
 */
export function UserAttributesPage() {
  const list = useGetUserAttributes(
    { params: { query: { first: 1000 } } },
    { placeholderData: keepPreviousData },
  );
  const [editing, setEditing] = useState<AttributeItem | 'new' | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const items = (list.data?.items ?? []) as AttributeItem[];

  return (
    <>
      <PageHeader
        title="User attributes"
        subtitle={
          <>
            Values per user that access policies read as <code>userAttributes.&lt;name&gt;</code>. Set a
            user’s values under <Link to="/settings/user-attribute-values">User values</Link>.
          </>
        }
        actions={
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
            New attribute
          </button>
        }
      />
      <div role="status" className="settings-status">
        {status}
      </div>
      {list.isPending ? (
        <LoadingState label="Loading user attributes…" />
      ) : list.isError && !list.data ? (
        <ErrorState error={list.error} onRetry={() => list.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No user attributes yet">
          Create one, e.g. <code>country</code>, and use it in a row-level access policy.
        </EmptyState>
      ) : (
        <table className="items settings-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col" className="col-optional">
                Default
              </th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id}>
                <td>
                  <div className="cell-title">{item.displayName || item.name}</div>
                  <code className="muted">{item.name}</code>
                  {item.description && <div className="muted cell-note">{item.description}</div>}
                </td>
                <td>{typeLabel(item.type)}</td>
                <td className="col-optional">
                  {item.defaultValue ? <code>{item.defaultValue}</code> : <span className="muted">None</span>}
                </td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="button button-secondary"
                    aria-label={`Edit ${item.displayName || item.name}`}
                    onClick={() => setEditing(item)}
                  >
                    Edit
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <AttributeDialog
          attribute={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onDone={(message) => {
            setStatus(message);
            setEditing(null);
          }}
        />
      )}
    </>
  );
}

/** Creates an attribute, or edits one (its name and type stay as created: policies depend on them). */
function AttributeDialog(props: {
  attribute: AttributeItem | null;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const existing = props.attribute;
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState<AttributeType>(existing?.type ?? 'string');
  const [displayName, setDisplayName] = useState(existing?.displayName ?? '');
  const [defaultValue, setDefaultValue] = useState(existing?.defaultValue ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const onError = (error: unknown) => setProblems(problemsOf(error));
  const create = useCreateUserAttribute({
    onSuccess: (saved) => props.onDone(`Created “${saved.displayName || saved.name}”.`),
    onError,
  });
  const update = useUpdateUserAttribute({
    onSuccess: (saved) => props.onDone(`Saved “${saved.displayName || saved.name}”.`),
    onError,
  });
  const pending = create.isPending || update.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    const common = {
      displayName: displayName.trim() || null,
      defaultValue: defaultValue.trim() === '' ? null : defaultValue.trim(),
      description: description.trim() || null,
    };
    if (existing) update.mutate({ params: { path: { id: existing.id } }, body: common });
    else create.mutate({ body: { name: name.trim(), type, ...common } });
  };
  return (
    <Dialog
      title={existing ? `Edit ${existing.displayName || existing.name}` : 'New user attribute'}
      onClose={props.onClose}
      onSubmit={submit}
      buttons={(close) => (
        <>
          <button type="button" className="button button-secondary" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            {pending ? 'Saving…' : existing ? 'Save' : 'Create'}
          </button>
        </>
      )}
    >
      <Field
        label="Name"
        value={name}
        onChange={setName}
        problem={problems.fields.name}
        hint={existing ? 'The name and type stay as created.' : 'Letters, digits and _, e.g. country.'}
        disabled={existing !== null}
        autoFocus={existing === null}
      />
      <SelectField
        label="Type"
        value={type}
        options={attributeTypes}
        onChange={setType}
        problem={problems.fields.type}
        disabled={existing !== null}
      />
      <Field
        label="Display name"
        value={displayName}
        onChange={setDisplayName}
        problem={problems.fields.displayName}
        autoFocus={existing !== null}
      />
      <Field
        label="Default value"
        value={defaultValue}
        onChange={setDefaultValue}
        problem={problems.fields.defaultValue}
        hint={`For users without a value of their own. ${defaultHint[type]}`}
      />
      <Field
        label="Description"
        value={description}
        onChange={setDescription}
        problem={problems.fields.description}
        multiline
      />
      {problems.other && (
        <p className="form-error" role="alert">
          It could not be saved: {problems.other}
        </p>
      )}
    </Dialog>
  );
}
