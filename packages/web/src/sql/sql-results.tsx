import { Card } from '../layout/page.tsx';
import { EmptyState, LoadingState } from '../layout/states.tsx';
import {
  type ChartKind,
  ChartPicker,
  ResultChart,
  ResultTable,
  SpecEditor,
  type Table,
} from '../results/index.ts';
import type { SqlRun } from './use-sql.ts';

/** What browser tests wait on: `data-state` on the results. */
export type SqlResultsState = 'idle' | 'loading' | 'error' | 'empty' | 'ready';

const countFormat = new Intl.NumberFormat('en-US');
/**
 * The model's formats apply (the columns carry them); no report formats. One object for every
 * render: ResultChart rebuilds its spec when `formats` changes, and a fresh `{}` each render
 * would keep it redrawing.
 */
const noFormats = {};

export interface SqlResultsProps {
  run: SqlRun;
  kind: ChartKind;
  kinds: readonly ChartKind[];
  onKind: (kind: ChartKind) => void;
  /** The chart's spec as drawn (built for `kind`, or edited), without data. */
  spec: Record<string, unknown> | null;
  /** An edited spec, or null for the one built for `kind`. */
  customSpec: Record<string, unknown> | null;
  onCustomSpec: (spec: Record<string, unknown> | null) => void;
}

/**
 * The last answer as in Explore (results/): a chart of the kind chosen (or edited as Vega-Lite)
 * above its rows in a virtualised table, numbers and dates in the model's formats. While the next
 * query runs, or when it fails, the last answer stays, dimmed and `aria-busy` while running.
 */
export function SqlResults({ run, kind, kinds, onKind, spec, customSpec, onCustomSpec }: SqlResultsProps) {
  const { result, running, error } = run;
  const state: SqlResultsState = running
    ? 'loading'
    : error
      ? 'error'
      : !result
        ? 'idle'
        : result.table.rows.length === 0
          ? 'empty'
          : 'ready';
  return (
    <section className="sq-results" data-state={state} aria-busy={running} aria-label="Results">
      {error && (
        <div className="state state-error sq-run-error" role="alert">
          <div>
            <p className="state-title">The query failed</p>
            <p className="state-message sq-error-text">{error.message}</p>
          </div>
        </div>
      )}
      {!result ? (
        running ? (
          <LoadingState label="Running the query…" />
        ) : (
          !error && (
            <Card title="Results">
              <EmptyState title="No results yet">
                Write a query above and run it with Ctrl+Enter: its rows and a chart appear here.
              </EmptyState>
            </Card>
          )
        )
      ) : (
        <div className={running ? 'sq-results-body tsr-dimmed' : 'sq-results-body'}>
          {result.table.rows.length === 0 ? (
            <Card title="Results">
              <EmptyState title="No rows">The query ran and answered no rows.</EmptyState>
            </Card>
          ) : (
            <>
              <Card title="Chart">
                <ChartPicker kinds={kinds} value={kind} onChange={onKind} />
                {kind !== 'table' && (
                  <ResultChart
                    table={result.table}
                    kind={kind}
                    spec={customSpec}
                    formats={noFormats}
                    title="Query result"
                  />
                )}
                {kind === 'table' && (
                  <p className="muted sq-chart-none">The rows are shown as a table only.</p>
                )}
                {(spec || customSpec) && (
                  <details className="sq-spec">
                    <summary>Edit the chart as Vega-Lite</summary>
                    <SpecEditor spec={spec} onApply={onCustomSpec} onReset={() => onCustomSpec(null)} />
                  </details>
                )}
              </Card>
              <Card title="Rows">
                <p className="muted sq-row-count" aria-live="polite">
                  {rowsText(result.table)} in {countFormat.format(result.durationMs)} ms
                  {result.truncated &&
                    ` (only the first ${countFormat.format(result.table.rows.length)} kept: add a LIMIT)`}
                </p>
                <ResultTable table={result.table} formats={noFormats} height="26rem" label="Query rows" />
              </Card>
            </>
          )}
        </div>
      )}
    </section>
  );
}

function rowsText(table: Table): string {
  return table.rows.length === 1 ? '1 row' : `${countFormat.format(table.rows.length)} rows`;
}
