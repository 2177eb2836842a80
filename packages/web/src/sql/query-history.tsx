import { useClearQueryHistory, useGetQueryHistory } from '@tessera/client/react';
import { useState } from 'react';
import { describeError } from '../api/errors.ts';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const countFormat = new Intl.NumberFormat('en-US');

/**
 * The user's own runs on this deployment, newest first (`GET .../query-history`, kept to the
 * newest 100 by the server): each one a button that puts its SQL back in the editor.
 */
export function QueryHistory({
  deploymentId,
  onPick,
}: {
  deploymentId: number;
  onPick: (sql: string) => void;
}) {
  const history = useGetQueryHistory(
    { params: { path: { deploymentId }, query: { first: 100 } } },
    { placeholderData: (previous) => previous },
  );
  const [problem, setProblem] = useState<string | null>(null);
  const clear = useClearQueryHistory({
    onSuccess: () => setProblem(null),
    onError: (error) => setProblem(`It could not be cleared: ${describeError(error)}`),
  });
  const items = history.data?.items ?? [];
  return (
    <section className="card sq-history" aria-labelledby="sq-history-title">
      <div className="card-header">
        <h2 id="sq-history-title">History</h2>
        {items.length > 0 && (
          <button
            type="button"
            className="button button-ghost"
            disabled={clear.isPending}
            onClick={() => clear.mutate({ params: { path: { deploymentId } } })}
          >
            {clear.isPending ? 'Clearing…' : 'Clear'}
          </button>
        )}
      </div>
      <div className="card-body">
        {problem && (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        {history.isPending ? (
          <LoadingState label="Loading your history…" />
        ) : history.isError && items.length === 0 ? (
          <ErrorState
            title="Your history could not be loaded"
            error={history.error}
            onRetry={() => void history.refetch()}
          />
        ) : items.length === 0 ? (
          <EmptyState title="No queries yet">The queries you run here are listed, newest first.</EmptyState>
        ) : (
          <ol className="sq-history-list" aria-label="Your queries, newest first">
            {items.map((entry) => (
              <li key={entry.id}>
                <button
                  type="button"
                  className="sq-history-entry"
                  onClick={() => onPick(entry.sql)}
                  aria-label={`Load into the editor: ${entry.sql.slice(0, 200)}`}
                >
                  <code className="sq-history-sql">{entry.sql}</code>
                  <span className={entry.error ? 'sq-history-meta sq-history-failed' : 'sq-history-meta'}>
                    <time dateTime={entry.createdAt}>{timeFormat.format(new Date(entry.createdAt))}</time>
                    {' · '}
                    {entry.error
                      ? 'failed'
                      : `${countFormat.format(entry.rowCount ?? 0)} ${entry.rowCount === 1 ? 'row' : 'rows'}${
                          entry.durationMs !== null ? ` in ${countFormat.format(entry.durationMs)} ms` : ''
                        }`}
                  </span>
                </button>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
