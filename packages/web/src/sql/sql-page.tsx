import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { idParam } from '../layout/deployment.ts';
import { PageHeader } from '../layout/page.tsx';
import { ErrorState } from '../layout/states.tsx';
import { buildChartSpec, type ChartKind, chartKindsFor, chooseChart } from '../results/index.ts';
import { useSignedInUser } from '../session/session.tsx';
import { QueryHistory } from './query-history.tsx';
import { type SavedReport, SaveReportDialog } from './save-report-dialog.tsx';
import { SqlResults } from './sql-results.tsx';
import { useCatalogue, useSqlRun } from './use-sql.ts';
import './sql.css';

// CodeMirror (about 150 KB) loads after the page's heading and history are on screen, so that the
// route stays within its JavaScript budget before the heading (bench/web).
const SqlCodeEditor = lazy(() => import('./sql-code-editor.tsx').then((m) => ({ default: m.SqlCodeEditor })));

/** Results with more rows than this start as a table: a chart of them would be slow and unreadable. */
const chartRowLimit = 5_000;

/**
 * `/sql/:deploymentId`: the SQL editor (issue 21 item 2). A route module, loaded by react-router's
 * `lazy`, so that CodeMirror is not in the sign-in bundle.
 */
export function SqlPage() {
  const deploymentId = idParam(useParams().deploymentId);
  const user = useSignedInUser();
  if (deploymentId === null)
    return <ErrorState title="Not found" message="This address does not name a deployment." />;
  if (user.role === 'viewer')
    return (
      <>
        <PageHeader title="SQL" />
        <ErrorState
          title="The SQL editor needs the developer role"
          message="Running SQL takes a data-API token for the deployment, which developers and admins get. Ask an admin for the developer role."
        />
      </>
    );
  return <SqlEditorView key={deploymentId} deploymentId={deploymentId} />;
}

/** For react-router's route `lazy`. */
export { SqlPage as Component };

/** The editor's text is kept per deployment on this browser, so that leaving the page loses nothing. */
const draftKey = (deploymentId: number) => `tessera.sql.${deploymentId}`;
function readDraft(deploymentId: number): string {
  try {
    return window.localStorage.getItem(draftKey(deploymentId)) ?? '';
  } catch {
    return '';
  }
}
function writeDraft(deploymentId: number, text: string) {
  try {
    window.localStorage.setItem(draftKey(deploymentId), text);
  } catch {
    // Storage refused (private mode, quota): the draft is just not kept.
  }
}

function SqlEditorView({ deploymentId }: { deploymentId: number }) {
  const [text, setText] = useState(() => readDraft(deploymentId));
  const catalogue = useCatalogue(deploymentId);
  const model = catalogue.data ?? null;
  const run = useSqlRun(deploymentId, model);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<SavedReport | null>(null);

  const table = run.result?.table ?? null;
  const kinds = useMemo(() => (table ? chartKindsFor(table) : (['table'] as ChartKind[])), [table]);
  const [kind, setKind] = useState<ChartKind>('table');
  const [customSpec, setCustomSpec] = useState<Record<string, unknown> | null>(null);
  // A new answer is drawn as the chart that suits it, unless the kind chosen still fits it.
  useEffect(() => {
    if (!table) return;
    setCustomSpec(null);
    setKind((chosen) =>
      chosen !== 'table' && kinds.includes(chosen)
        ? chosen
        : table.rows.length > chartRowLimit
          ? 'table'
          : chooseChart(table),
    );
  }, [table, kinds]);
  const builtSpec = useMemo(() => (table ? buildChartSpec(kind, table, {}) : null), [table, kind]);
  const spec = customSpec ?? builtSpec;

  const onChange = useCallback(
    (value: string) => {
      setText(value);
      writeDraft(deploymentId, value);
    },
    [deploymentId],
  );
  const execute = useCallback(() => {
    setSaved(null);
    run.run(text);
  }, [run.run, text]);

  const keysId = `sq-keys-${deploymentId}`;
  const canSave = run.result !== null && run.result.table.columns.length > 0;
  return (
    <div className="sq-page">
      <PageHeader
        title="SQL"
        subtitle="Query the data model in SQL: each cube and view is a table, and MEASURE(member) aggregates a measure."
        actions={
          <button
            type="button"
            className="button button-secondary"
            disabled={!canSave}
            onClick={() => setSaving(true)}
            title={canSave ? undefined : 'Run a query first'}
          >
            Save as report
          </button>
        }
      />
      <div role="status" className="sq-notice-slot">
        {saved && (
          <p className="notice sq-notice">
            Saved “{saved.name}”.{' '}
            <Link to={`/workspace/${deploymentId}/reports/${saved.id}`}>Open the report</Link>
          </p>
        )}
      </div>
      <div className="sq-layout">
        <div className="sq-main">
          <section className="card sq-query" aria-label="Query">
            <div className="card-body">
              <Suspense
                fallback={
                  <p className="muted sq-editor-loading" aria-busy="true">
                    Loading the editor…
                  </p>
                }
              >
                <SqlCodeEditor
                  value={text}
                  onChange={onChange}
                  onRun={execute}
                  catalogue={model}
                  describedBy={keysId}
                />
              </Suspense>
              <div className="sq-toolbar">
                {run.running ? (
                  <button type="button" className="button button-secondary" onClick={run.cancel}>
                    Cancel
                  </button>
                ) : (
                  <button
                    type="button"
                    className="button button-primary"
                    onClick={execute}
                    disabled={text.trim() === ''}
                  >
                    Run
                  </button>
                )}
                <p id={keysId} className="muted sq-keys">
                  <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs; completion offers the model's tables and members,{' '}
                  <kbd>Enter</kbd> accepts one.
                </p>
              </div>
              {catalogue.isError && (
                <p className="form-error sq-catalogue-error" role="alert">
                  The model could not be read, so names are not completed: {catalogue.error.message}
                </p>
              )}
            </div>
          </section>
          <SqlResults
            run={run}
            kind={kind}
            kinds={kinds}
            onKind={(k) => {
              setKind(k);
              setCustomSpec(null);
            }}
            spec={spec}
            customSpec={customSpec}
            onCustomSpec={setCustomSpec}
          />
        </div>
        <aside className="sq-side" aria-label="Query history">
          <QueryHistory deploymentId={deploymentId} onPick={(sql) => onChange(sql)} />
        </aside>
      </div>
      {saving && run.result && (
        <SaveReportDialog
          deploymentId={deploymentId}
          sql={run.result.sql}
          table={run.result.table}
          spec={kind === 'table' || kind === 'number' ? null : spec}
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
