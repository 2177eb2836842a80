import { keepPreviousData } from '@tanstack/react-query';
import { useListAuditLog } from '@tessera/client/react';
import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { Field } from '../ui/field.tsx';

interface Entry {
  id: number;
  occurredAt: string;
  actor: { userId: number | null; email: string | null; credentialKind: string | null };
  requestId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  before?: unknown;
  after?: unknown;
}

/** The filters the list and the export share, as the address keeps them (`?action=user.*`). */
const filterNames = ['action', 'targetType', 'targetId', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof filterNames)[number], string>>;

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A `datetime-local` value (local time) as the API's ISO instant; undefined when empty or unreadable. */
function instant(local: string | undefined): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function query(filters: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  for (const name of filterNames) {
    const value = filters[name]?.trim();
    if (!value) continue;
    const sent = name === 'from' || name === 'to' ? instant(value) : value;
    if (sent) q[name] = sent;
  }
  return q;
}

const credentialWords: Record<string, string> = {
  api: 'API key',
  scim: 'SCIM token',
  session: 'signed in',
  embed: 'embed token',
};

/**
 * Settings > Audit log (issue 22 items 5 and 8): every management change, newest first, filtered
 * by action, target and time; the same selection downloads as JSON lines. Admins only.
 */
export function AuditLogPage() {
  const [search, setSearch] = useSearchParams();
  const applied: Filters = Object.fromEntries(
    filterNames.flatMap((n) => (search.get(n) ? [[n, search.get(n) as string]] : [])),
  );
  const [draft, setDraft] = useState<Filters>(applied);
  const [pages, setPages] = useState<(string | undefined)[]>([undefined]);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setPages([undefined]);
    setSearch(
      Object.fromEntries(Object.entries(draft).filter(([, v]) => v?.trim())) as Record<string, string>,
      {
        replace: true,
      },
    );
  };
  const exportHref = `/api/v1/audit-log/export?${new URLSearchParams(query(applied))}`;
  const key = JSON.stringify(applied);
  const set = (name: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));

  return (
    <>
      <PageHeader
        title="Audit log"
        subtitle="Every change made through the management API and this app: who, what, when, before and after."
        actions={
          <a className="button button-secondary" href={exportHref} download>
            Export JSON lines
          </a>
        }
      />
      <form className="card audit-filters" onSubmit={apply} aria-label="Filters" noValidate>
        <div className="card-body filter-grid">
          <Field
            label="Action"
            value={draft.action ?? ''}
            onChange={set('action')}
            hint="e.g. user.update, or user.*"
          />
          <Field
            label="Target type"
            value={draft.targetType ?? ''}
            onChange={set('targetType')}
            hint="e.g. user, group, deployment"
          />
          <Field label="Target id" value={draft.targetId ?? ''} onChange={set('targetId')} />
          <Field label="From" type="datetime-local" value={draft.from ?? ''} onChange={set('from')} />
          <Field label="To" type="datetime-local" value={draft.to ?? ''} onChange={set('to')} />
          <div className="filter-buttons">
            <button type="submit" className="button button-primary">
              Apply filters
            </button>
            <button
              type="button"
              className="button button-ghost"
              onClick={() => {
                setDraft({});
                setPages([undefined]);
                setSearch({}, { replace: true });
              }}
            >
              Clear
            </button>
          </div>
        </div>
      </form>
      <div className="audit-list">
        {pages.map((after, index) => (
          <AuditPage
            key={`${key}:${after ?? ''}`}
            filters={applied}
            after={after}
            first={index === 0}
            onMore={index === pages.length - 1 ? (cursor) => setPages((p) => [...p, cursor]) : undefined}
          />
        ))}
      </div>
    </>
  );
}

function AuditPage(props: {
  filters: Filters;
  after: string | undefined;
  first: boolean;
  onMore?: (cursor: string) => void;
}) {
  const list = useListAuditLog(
    { params: { query: { ...query(props.filters), first: 50, after: props.after } } },
    { placeholderData: keepPreviousData },
  );
  if (list.isPending) return <LoadingState label="Loading changes…" />;
  if (list.isError && !list.data) return <ErrorState error={list.error} onRetry={() => list.refetch()} />;
  const items = (list.data?.items ?? []) as Entry[];
  const info = list.data?.pageInfo;
  if (props.first && items.length === 0)
    return <EmptyState title="No changes match">Try other filters, or clear them.</EmptyState>;
  return (
    <>
      <ol className="audit-entries" aria-busy={list.isFetching}>
        {items.map((entry) => (
          <li key={entry.id} className="audit-entry">
            <div className="audit-head">
              <code className="audit-action">{entry.action}</code>
              <span>
                {entry.targetType}
                {entry.targetId ? ` ${entry.targetId}` : ''}
              </span>
              <time dateTime={entry.occurredAt} className="muted">
                {timeFormat.format(new Date(entry.occurredAt))}
              </time>
            </div>
            <div className="muted audit-who">
              {entry.actor.email ?? (entry.actor.userId ? `user ${entry.actor.userId}` : 'the server')}
              {entry.actor.credentialKind
                ? ` · ${credentialWords[entry.actor.credentialKind] ?? entry.actor.credentialKind}`
                : ''}
              {entry.requestId ? ` · request ${entry.requestId}` : ''}
            </div>
            {(entry.before != null || entry.after != null) && (
              <details>
                <summary>Before and after</summary>
                <div className="audit-diff">
                  <div>
                    <h3>Before</h3>
                    <pre>{entry.before == null ? '—' : JSON.stringify(entry.before, null, 2)}</pre>
                  </div>
                  <div>
                    <h3>After</h3>
                    <pre>{entry.after == null ? '—' : JSON.stringify(entry.after, null, 2)}</pre>
                  </div>
                </div>
              </details>
            )}
          </li>
        ))}
      </ol>
      {props.onMore && info?.hasNextPage && info.endCursor && (
        <div className="load-more">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => props.onMore?.(info.endCursor as string)}
          >
            Show more
          </button>
        </div>
      )}
    </>
  );
}
