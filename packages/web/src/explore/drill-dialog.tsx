import { Link } from 'react-router';
import { rowsErrorText } from '../reports/report-results.tsx';
import { ResultTable } from '../results/data-table.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { useExploreRows } from './data.ts';
import type { Drill } from './drill.ts';
import { toCubeQuery, writeState } from './query-state.ts';

/** The rows behind a clicked value, in a dialog, with a way to open them in Explore. */
export function DrillDialog({
  deploymentId,
  drill,
  onClose,
}: {
  deploymentId: number;
  drill: Drill;
  onClose: () => void;
}) {
  const rows = useExploreRows(deploymentId, toCubeQuery(drill.query));
  const table = rows.data;
  return (
    <Dialog
      title="Rows behind the value"
      description={drill.description}
      onClose={onClose}
      buttons={(close) => (
        <>
          <Link
            className="button button-secondary"
            to={`/explore/${deploymentId}${writeState(drill.query, 'table', null)}`}
            onClick={close}
          >
            Open in Explore
          </Link>
          <button type="button" className="button button-primary" onClick={close}>
            Close
          </button>
        </>
      )}
    >
      <div
        className="ex-drill"
        aria-busy={rows.isFetching}
        data-state={rows.isFetching ? 'loading' : rows.isError ? 'error' : 'ready'}
      >
        {rows.isError && <p className="form-error">{rowsErrorText(rows.error)}</p>}
        {!table && rows.isPending && <p className="muted">Loading the rows…</p>}
        {table && (
          <>
            <p className="muted ex-count">
              {table.rows.length.toLocaleString('en-US')} {table.rows.length === 1 ? 'row' : 'rows'}
              {table.rows.length >= (drill.query.limit ?? Number.POSITIVE_INFINITY)
                ? ' (the first ones)'
                : ''}
            </p>
            <ResultTable table={table} height="22rem" label="Rows behind the value" />
          </>
        )}
      </div>
    </Dialog>
  );
}
