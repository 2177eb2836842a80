import { DataApiError, isApiError } from '@tessera/client';
import { useCallback, useMemo, useState } from 'react';
import '../dashboard/dashboard.css';
import './report.css';
import { describeError } from '../api/errors.ts';
import { chartSpec } from '../dashboard/chart-spec.ts';
import { DataTable } from '../dashboard/data-table.tsx';
import { chartConfig, mergeTheme } from '../dashboard/theme.ts';
import type { ColumnFormat } from '../dashboard/types.ts';
import { VegaChart } from '../dashboard/vega-chart.tsx';
import { Card } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { type ReportQuery, useReportRows } from './report-rows.ts';

/** What browser tests wait on: `data-state` on the results. */
export type ResultsState = 'loading' | 'drawn' | 'error' | 'empty';

const defaultChartConfig = chartConfig(mergeTheme(null));

export interface ReportResultsProps {
  deploymentId: number;
  report: ReportQuery & {
    title: string;
    spec: Record<string, unknown> | null;
    columnFormats: Record<string, ColumnFormat>;
  };
}

/**
 * The report as an analyst reads it: its chart (the dashboard's Vega-Lite drawing) above its rows
 * as a table, numbers and dates in the model's formats and the report's column formats. While new
 * rows load, the previous ones stay on the page, dimmed and `aria-busy`.
 */
export function ReportResults({ deploymentId, report }: ReportResultsProps) {
  const rows = useReportRows(deploymentId, report);
  const table = rows.data ?? null;
  const spec = useMemo(
    () =>
      table && report.spec
        ? chartSpec(
            report.spec.description === undefined
              ? { description: report.title, ...report.spec }
              : report.spec,
            table.rows,
            table.columns.map((c) => c.name),
            {},
          )
        : null,
    [table, report.spec, report.title],
  );
  const [drawn, setDrawn] = useState<object | null>(null);
  const [chartError, setChartError] = useState<{ spec: object; message: string } | null>(null);
  const onDrawn = useCallback((drawnSpec: object) => setDrawn(drawnSpec), []);
  const onError = useCallback((e: Error) => spec && setChartError({ spec, message: e.message }), [spec]);

  if (report.jsonQuery === null && report.sqlQuery === null) {
    return (
      <Card title="Results">
        <EmptyState title="This report has no query yet">
          Save a query to this report to see its chart and rows here.
        </EmptyState>
      </Card>
    );
  }
  if (rows.isError && !table) {
    return (
      <section className="report-results" data-state="error" aria-label="Results">
        <ErrorState
          title="The report's rows could not be loaded"
          message={rowsErrorText(rows.error)}
          error={rows.error}
          onRetry={() => void rows.refetch()}
        />
      </section>
    );
  }
  if (!table) {
    return (
      <section className="report-results" data-state="loading" aria-busy="true" aria-label="Results">
        <LoadingState label="Running the report's query…" />
      </section>
    );
  }
  const busy = rows.isFetching;
  const chartFailed = spec !== null && chartError?.spec === spec;
  const state: ResultsState = busy
    ? 'loading'
    : table.rows.length === 0
      ? 'empty'
      : spec && !chartFailed && drawn !== spec
        ? 'loading'
        : 'drawn';
  return (
    <section
      className="report-results"
      data-state={state}
      aria-busy={busy || state === 'loading'}
      aria-label="Results"
    >
      {rows.isError && (
        <ErrorState
          title="The report's rows could not be refreshed"
          message={rowsErrorText(rows.error)}
          onRetry={() => void rows.refetch()}
        />
      )}
      <div className={busy ? 'report-results-body tsr-dimmed' : 'report-results-body'}>
        {table.rows.length === 0 ? (
          <Card title="Results">
            <EmptyState title="No rows">The query ran and answered no rows.</EmptyState>
          </Card>
        ) : (
          <>
            {spec && (
              <Card title="Chart">
                {chartFailed ? (
                  <ErrorState
                    title="The chart could not be drawn"
                    message={chartError?.message ?? 'Its Vega-Lite spec was refused.'}
                  />
                ) : (
                  <div className="report-chart">
                    <VegaChart spec={spec} config={defaultChartConfig} onDrawn={onDrawn} onError={onError} />
                  </div>
                )}
              </Card>
            )}
            <Card
              title="Rows"
              actions={
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={() => void rows.refetch()}
                  disabled={busy}
                >
                  {busy ? 'Refreshing…' : 'Refresh'}
                </button>
              }
            >
              <p className="muted report-row-count">
                {table.rows.length === 1 ? '1 row' : `${table.rows.length.toLocaleString('en-US')} rows`}
              </p>
              <div className="report-table" style={{ height: tableHeight(table.rows.length) }}>
                <DataTable table={table} formats={report.columnFormats} />
              </div>
            </Card>
          </>
        )}
      </div>
    </section>
  );
}

/** Tall enough for every row up to about fourteen, then the table scrolls under its header. */
function tableHeight(rows: number): string {
  return `${Math.min(2.25 + rows * 1.95, 30)}rem`;
}

/** The data API's own words for a failed query (Cube's `{"error"}`), or the management API's. */
export function rowsErrorText(error: unknown): string {
  if (error instanceof DataApiError) {
    if (error.status === 403) return `The data API refused the query: ${error.message}`;
    return `The query failed: ${error.message}`;
  }
  // Viewers run a report through the management API (report-rows.ts), developers with a data-API
  // token: either refusal means this user may not read these rows, and the server says why.
  if (isApiError(error) && error.status === 403)
    return `You may not run this report\u2019s query: ${describeError(error)}`;
  return describeError(error);
}
