import { useCallback, useMemo, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { Card, PageHeader } from '../layout/page.tsx';
import { EmptyState, ErrorState, LoadingState } from '../layout/states.tsx';
import { rowsErrorText } from '../reports/report-results.tsx';
import {
  buildChartSpec,
  type ChartKind,
  chartKindsFor,
  chooseChart,
  d3Format,
  VEGA_LITE_SCHEMA,
} from '../results/chart-kinds.ts';
import { ResultTable } from '../results/data-table.tsx';
import { ChartPicker, ResultChart } from '../results/result-chart.tsx';
import { SpecEditor } from '../results/spec-editor.tsx';
import { SqlView } from '../results/sql-view.tsx';
import type { Column, ColumnFormats, Row, Table } from '../results/table.ts';
import { useSignedInUser } from '../session/session.tsx';
import { AddedNotice, type AddedToDashboard, AddToDashboardDialog } from './add-to-dashboard-dialog.tsx';
import { useExploreModel, useExploreRows, useExploreSql } from './data.ts';
import { type Drill, drillQuery } from './drill.ts';
import { DrillDialog } from './drill-dialog.tsx';
import { MemberTree } from './member-tree.tsx';
import type { Member } from './model.ts';
import { QueryPanel } from './query-panel.tsx';
import { type ExploreQuery, readState, runnable, toCubeQuery, writeState } from './query-state.ts';
import { SavedNotice, SaveReportDialog } from './save-report-dialog.tsx';
import './explore.css';

/** `/explore/:deploymentId`: build a question from the model, see its rows, chart and SQL. */
export function ExplorePage() {
  const deploymentId = idParam(useParams().deploymentId);
  const viewer = useSignedInUser().role === 'viewer';
  if (viewer) return <ViewerExplore />;
  if (deploymentId === null)
    return <ErrorState title="Not found" message="This address does not name a deployment." />;
  return <Explore key={deploymentId} deploymentId={deploymentId} />;
}

/** A viewer reads reports and dashboards; asking the data API its own questions is a developer's. */
function ViewerExplore() {
  return (
    <>
      <PageHeader title="Explore" />
      <EmptyState title="Explore needs the developer role">
        Explore asks the data API questions of your own, with a data-API token, which the developer role
        grants. Reports and dashboards shared with you show their rows in the workspace.
      </EmptyState>
    </>
  );
}

/** For the router's `lazy`. */
export const Component = ExplorePage;

function Explore({ deploymentId }: { deploymentId: number }) {
  const location = useLocation();
  const navigate = useNavigate();
  const state = useMemo(() => readState(location.search), [location.search]);
  const { query, chart, spec: customSpec } = state;
  const model = useExploreModel(deploymentId);
  const cubeQuery = useMemo(() => (runnable(query) ? toCubeQuery(query) : null), [query]);
  const rows = useExploreRows(deploymentId, cubeQuery);
  const [sqlOpen, setSqlOpen] = useState(false);
  const sql = useExploreSql(deploymentId, cubeQuery, sqlOpen);
  const [editing, setEditing] = useState(false);
  const [drill, setDrill] = useState<Drill | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<{ id: number; name: string } | null>(null);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<AddedToDashboard | null>(null);

  const go = useCallback(
    (next: ExploreQuery, nextChart: ChartKind | null = chart, nextSpec = customSpec) =>
      // Rendered at once (not in a transition): the next click or key builds on this question,
      // not on the one before it.
      navigate({ search: writeState(next, nextChart, nextSpec) }, { flushSync: true }),
    [navigate, chart, customSpec],
  );
  const toggle = (member: Member) => go(toggled(query, member));
  const chosen = useMemo(() => chosenMembers(query), [query]);

  const table = cubeQuery ? (rows.data ?? null) : null;
  const kinds = table ? chartKindsFor(table) : [];
  const kind: ChartKind = table ? (chart && kinds.includes(chart) ? chart : chooseChart(table)) : 'table';
  const title = table ? questionTitle(table) : '';
  const builtSpec = useMemo(
    () => (table ? buildChartSpec(kind, table, {}, title) : null),
    [table, kind, title],
  );

  const busy = rows.isFetching;
  const resultsState = !cubeQuery
    ? 'idle'
    : !table
      ? rows.isError
        ? 'error'
        : 'loading'
      : busy
        ? 'loading'
        : rows.isError
          ? 'error'
          : table.rows.length === 0
            ? 'empty'
            : 'ready';

  const onCell = (row: Row, column: Column) => {
    if (!model.data || !table) return;
    const d = drillQuery(query, row, column, table.columns, model.data);
    if (d) setDrill(d);
  };
  const quantities = table ? table.columns.filter((c) => c.kind === 'measure' || c.kind === 'number') : [];

  return (
    <div className="ex-page">
      <PageHeader
        title="Explore"
        subtitle="Pick measures and dimensions from the model; the address keeps the question."
        actions={
          <>
            <button
              type="button"
              className="button button-primary"
              disabled={!table || !cubeQuery}
              onClick={() => setSaving(true)}
            >
              Save as report
            </button>
            <button
              type="button"
              className="button button-secondary"
              disabled={!table || !cubeQuery}
              onClick={() => setAdding(true)}
            >
              Add to dashboard
            </button>
            <button
              type="button"
              className="button button-secondary"
              disabled={!runnable(query) && !chart}
              onClick={() => navigate({ search: '' }, { flushSync: true })}
            >
              Start over
            </button>
          </>
        }
      />
      <div role="status" className="ex-status">
        {saved && <SavedNotice deploymentId={deploymentId} report={saved} onDismiss={() => setSaved(null)} />}
        {added && <AddedNotice deploymentId={deploymentId} added={added} onDismiss={() => setAdded(null)} />}
      </div>
      {state.problem && <p className="form-error ex-problem">{state.problem}</p>}
      <div className="ex-layout">
        <aside className="ex-side">
          {model.isPending ? (
            <LoadingState label="Loading the model…" />
          ) : model.isError ? (
            <ErrorState
              title="The model could not be loaded"
              message={rowsErrorText(model.error)}
              error={model.error}
              onRetry={() => void model.refetch()}
            />
          ) : model.data.cubes.length === 0 ? (
            <EmptyState title="No cubes or views">
              This deployment’s model has nothing you may query yet.
            </EmptyState>
          ) : (
            <MemberTree model={model.data} chosen={chosen} onToggle={toggle} />
          )}
        </aside>
        <div className="ex-main">
          {model.data && (
            <QueryPanel
              deploymentId={deploymentId}
              model={model.data}
              query={query}
              onChange={(q) => go(q)}
            />
          )}
          <section
            className="ex-results"
            aria-label="Results"
            data-state={resultsState}
            aria-busy={resultsState === 'loading'}
          >
            {!cubeQuery ? (
              <Card>
                <EmptyState title="No question yet">
                  Pick a measure or a dimension in the model to see its rows and a chart.
                </EmptyState>
              </Card>
            ) : !table ? (
              rows.isError ? (
                <ErrorState
                  title="The query failed"
                  message={rowsErrorText(rows.error)}
                  error={rows.error}
                  onRetry={() => void rows.refetch()}
                />
              ) : (
                <LoadingState label="Running the query…" />
              )
            ) : (
              <>
                {rows.isError && (
                  <ErrorState
                    title="The query failed"
                    message={rowsErrorText(rows.error)}
                    error={rows.error}
                    onRetry={() => void rows.refetch()}
                  />
                )}
                <div className={busy ? 'ex-results-body rs-dimmed' : 'ex-results-body'}>
                  {table.rows.length === 0 ? (
                    <Card>
                      <EmptyState title="No rows">The query ran and answered no rows.</EmptyState>
                    </Card>
                  ) : (
                    <>
                      <section className="card ex-chart-card" aria-label="Chart">
                        <div className="card-header ex-chart-header">
                          <h2>Chart</h2>
                          <ChartPicker
                            kinds={kinds}
                            value={kind}
                            onChange={(k) => {
                              setEditing(false);
                              go(query, k, null);
                            }}
                          />
                          {kind !== 'table' && kind !== 'number' && (
                            <button
                              type="button"
                              className="button button-ghost ex-edit-spec"
                              aria-expanded={editing}
                              onClick={() => setEditing(!editing)}
                            >
                              {editing ? 'Close the spec' : 'Edit as Vega-Lite'}
                            </button>
                          )}
                        </div>
                        <div className="card-body">
                          {kind === 'table' && !customSpec ? (
                            <p className="muted">
                              The rows below are the answer; pick a chart above to draw them.
                            </p>
                          ) : (
                            <ResultChart table={table} kind={kind} spec={customSpec} title={title} />
                          )}
                          {editing && (
                            <SpecEditor
                              spec={customSpec ?? builtSpec}
                              onApply={(s) => go(query, kind, s)}
                              onReset={customSpec ? () => go(query, kind, null) : undefined}
                            />
                          )}
                        </div>
                      </section>
                      <Card title="Rows">
                        <p className="muted ex-count">
                          {table.rows.length === 1
                            ? '1 row'
                            : `${table.rows.length.toLocaleString('en-US')} rows`}
                          {quantities.some((c) => c.kind === 'measure') &&
                            ' · click a number to see the rows behind it'}
                        </p>
                        <ResultTable table={table} onCellClick={model.data ? onCell : undefined} />
                      </Card>
                    </>
                  )}
                </div>
              </>
            )}
            {cubeQuery && (
              <details
                className="card ex-sql"
                onToggle={(e) => setSqlOpen((e.target as HTMLDetailsElement).open)}
              >
                <summary>SQL</summary>
                <div className="card-body">
                  {sql.isError ? (
                    <p className="form-error">{rowsErrorText(sql.error)}</p>
                  ) : sql.data ? (
                    <SqlView sql={sql.data.sql} params={sql.data.params} busy={sql.isFetching} />
                  ) : (
                    <LoadingState label="Compiling the query…" />
                  )}
                </div>
              </details>
            )}
          </section>
        </div>
      </div>
      {drill && <DrillDialog deploymentId={deploymentId} drill={drill} onClose={() => setDrill(null)} />}
      {adding && table && cubeQuery && (
        <AddToDashboardDialog
          deploymentId={deploymentId}
          query={cubeQuery}
          spec={customSpec ?? reportSpec(kind, table, {}, title)}
          defaultTitle={title}
          onAdded={(result) => {
            setAdding(false);
            setAdded(result);
          }}
          onClose={() => setAdding(false)}
        />
      )}
      {saving && table && cubeQuery && (
        <SaveReportDialog
          deploymentId={deploymentId}
          query={cubeQuery}
          columns={quantities}
          specFor={(formats) => customSpec ?? reportSpec(kind, table, formats, title)}
          onSaved={(report) => {
            setSaving(false);
            setSaved(report);
          }}
          onClose={() => setSaving(false)}
        />
      )}
    </div>
  );
}

/** Every member the query names, for the tree's pressed toggles. */
function chosenMembers(query: ExploreQuery): Set<string> {
  return new Set([
    ...(query.measures ?? []),
    ...(query.dimensions ?? []),
    ...(query.segments ?? []),
    ...(query.timeDimensions ?? []).map((t) => t.dimension),
  ]);
}

/** The query with a member added or taken out: a time dimension goes in as a daily series. */
function toggled(query: ExploreQuery, member: Member): ExploreQuery {
  const without = (list: string[] | undefined) => (list ?? []).filter((m) => m !== member.name);
  const order = (query.order ?? []).filter(([m]) => m !== member.name);
  if (member.kind === 'measure') {
    const has = query.measures?.includes(member.name);
    return {
      ...query,
      measures: has ? without(query.measures) : [...(query.measures ?? []), member.name],
      order,
    };
  }
  if (member.kind === 'segment') {
    const has = query.segments?.includes(member.name);
    return { ...query, segments: has ? without(query.segments) : [...(query.segments ?? []), member.name] };
  }
  if (member.type === 'time') {
    const times = query.timeDimensions ?? [];
    const has = times.some((t) => t.dimension === member.name);
    return {
      ...query,
      timeDimensions: has
        ? times.filter((t) => t.dimension !== member.name)
        : [...times, { dimension: member.name, granularity: 'day' }],
      order,
    };
  }
  const has = query.dimensions?.includes(member.name);
  return {
    ...query,
    dimensions: has ? without(query.dimensions) : [...(query.dimensions ?? []), member.name],
    order,
  };
}

/** "Count and Total amount by Created at and Status". */
function questionTitle(table: Table): string {
  const list = (cs: Column[]) => cs.map((c) => c.title).join(' and ');
  const measures = table.columns.filter((c) => c.kind === 'measure' || c.kind === 'number');
  const others = table.columns.filter((c) => !measures.includes(c));
  if (measures.length === 0) return list(others);
  return others.length > 0 ? `${list(measures)} by ${list(others)}` : list(measures);
}

/** The spec a report keeps: the chart's, or for a number a text mark of the first measure. */
function reportSpec(
  kind: ChartKind,
  table: Table,
  formats: ColumnFormats,
  title: string,
): Record<string, unknown> | null {
  if (kind !== 'number') return buildChartSpec(kind, table, formats, title);
  const column = table.columns.find((c) => c.kind === 'measure' || c.kind === 'number');
  if (!column) return null;
  return {
    $schema: VEGA_LITE_SCHEMA,
    description: title,
    mark: { type: 'text', fontSize: 48, fontWeight: 'bold' },
    encoding: {
      text: { field: column.name, type: 'quantitative', format: d3Format(column, formats) },
      tooltip: [
        { field: column.name, type: 'quantitative', title: column.title, format: d3Format(column, formats) },
      ],
    },
  };
}
