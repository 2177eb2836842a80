import '../dashboard.css';
import './editor.css';
import 'react-grid-layout/css/styles.css';
import { isApiError } from '@tessera/client';
import { useGetReports, useGetWorkbook, useRestoreDashboardVersion } from '@tessera/client/react';
import {
  type Breakpoint,
  breakpoints,
  type DashboardDraft,
  dashboardTabs,
  gridSettings,
  widgetReportId,
  widgetTabId,
} from '@tessera/dashboard';
import { useCallback, useEffect, useId, useMemo, useState } from 'react';
import { getBreakpointFromWidth, type Layout } from 'react-grid-layout';
import { Link, useParams } from 'react-router';
import { idParam } from '../../layout/deployment.ts';
import { PageHeader } from '../../layout/page.tsx';
import { ErrorState, LoadingState } from '../../layout/states.tsx';
import { DashboardTabList, tabElementId } from '../dashboard-tabs.tsx';
import { mergeTheme, themeVariables } from '../theme.ts';
import { errorText } from '../widget-tile.tsx';
import {
  addReportWidget,
  addTextWidget,
  applyLayout,
  draftWidgets,
  placed,
  removeWidget,
  resetBreakpoint,
  setFilters,
  setTimeGrains,
  updateWidgetConfig,
} from './draft-model.ts';
import { EditorGrid, type ReportInfo, widgetName } from './editor-grid.tsx';
import { AddWidgets, FiltersPanel, WidgetPanel } from './editor-panels.tsx';
import { GrainPanel } from './grain-panel.tsx';
import { type History, record, redo, startHistory, undo } from './history.ts';
import { PublishDialog } from './publish-dialog.tsx';
import { addTab, deleteTab, moveTab, moveWidgetToTab, renameTab } from './tabs-model.ts';
import { TabsPanel } from './tabs-panel.tsx';
import { setThemeValue } from './theme-model.ts';
import { ThemePanel } from './theme-panel.tsx';
import { type SaveState, useAutosave } from './use-autosave.ts';
import { VersionsPanel } from './versions-panel.tsx';

type Workbook = NonNullable<ReturnType<typeof useGetWorkbook>['data']>;

/** `/workspace/:deploymentId/workbooks/:workbookId/edit`: the dashboard editor (issue 23 items 1 and 2). */
export function DashboardEditorPage() {
  const params = useParams();
  const deploymentId = idParam(params.deploymentId);
  const workbookId = idParam(params.workbookId);
  if (deploymentId === null || workbookId === null)
    return <ErrorState title="Not found" message="This address does not name a workbook." />;
  return (
    <EditorLoader key={`${deploymentId}/${workbookId}`} deploymentId={deploymentId} workbookId={workbookId} />
  );
}

function EditorLoader({ deploymentId, workbookId }: { deploymentId: number; workbookId: number }) {
  const workbook = useGetWorkbook(
    { params: { path: { deploymentId, workbookId } } },
    // Always read afresh when the editor opens: a cached draft would be edited from a stale version.
    // Read again every few seconds too, so that an editor learns of another's save before their own
    // is refused (the draft's version moved on: see `savedElsewhere` below).
    { refetchOnWindowFocus: false, refetchOnMount: 'always', staleTime: 0, refetchInterval: 10_000 },
  );
  // Bumped by a reload: the editor starts over from the draft as the server now has it.
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(async () => {
    await workbook.refetch();
    setGeneration((g) => g + 1);
  }, [workbook]);
  if (workbook.isPending || (!workbook.isFetchedAfterMount && workbook.isFetching))
    return <LoadingState label="Loading the dashboard draft…" />;
  if (workbook.isError)
    return (
      <ErrorState
        title="This dashboard could not be opened for editing"
        error={workbook.error}
        onRetry={() => void workbook.refetch()}
      />
    );
  return (
    <Editor
      key={generation}
      workbook={workbook.data}
      deploymentId={deploymentId}
      workbookId={workbookId}
      reload={reload}
    />
  );
}

/** The draft to start from: the saved draft, else the published config, else an empty board. */
function startingDraft(workbook: Workbook): DashboardDraft {
  return (workbook.dashboardDraft ?? workbook.dashboardPublished ?? { widgets: [] }) as DashboardDraft;
}

/** The draft's breakpoint for a page `width` pixels wide (spec 2.2 `layout.breakpoints`). */
function screenBreakpoint(draft: DashboardDraft, width: number): Breakpoint {
  return getBreakpointFromWidth(gridSettings(draft.layout).breakpoints, width) as Breakpoint;
}

/** A key press that belongs to a text field (its own undo, its own arrows). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

function Editor(props: {
  workbook: Workbook;
  deploymentId: number;
  workbookId: number;
  reload: () => Promise<void>;
}) {
  const { workbook, deploymentId, workbookId } = props;
  const where = useMemo(() => ({ deploymentId, workbookId }), [deploymentId, workbookId]);
  const [history, setHistory] = useState<History<DashboardDraft>>(() =>
    startHistory(startingDraft(workbook)),
  );
  const draft = history.present;
  const autosave = useAutosave(where, draft, workbook.dashboardDraftVersion);
  // The layout first shown is the one for this screen's width: on a phone its own narrow layout,
  // whose 12-column `lg` tiles would not fit; the select shows and edits any other.
  const [breakpoint, setBreakpoint] = useState<Breakpoint>(() =>
    screenBreakpoint(startingDraft(workbook), window.innerWidth),
  );
  const [selected, setSelected] = useState<string | null>(null);
  const [publishing, setPublishing] = useState(false);
  const [published, setPublished] = useState((workbook.dashboardPublished ?? null) as DashboardDraft | null);
  const [notice, setNotice] = useState<string | null>(null);
  const [publishCount, setPublishCount] = useState(0);
  const restore = useRestoreDashboardVersion();
  const reportsQuery = useGetReports({ params: { path: { deploymentId }, query: { first: 500 } } });
  const reportList: ReportInfo[] = reportsQuery.data?.items ?? [];
  const reports = useMemo(() => new Map(reportList.map((r) => [r.id, r])), [reportList]);
  const apply = useCallback(
    (next: (d: DashboardDraft) => DashboardDraft, key: string | null = null) =>
      setHistory((h) => record(h, next(h.present), key)),
    [],
  );
  const widgets = draftWidgets(draft);
  // The tab the grid shows and new widgets go on (settings.tabs; null: an untabbed dashboard).
  const tabs = dashboardTabs(draft);
  const [chosenTab, setChosenTab] = useState<string | null>(null);
  const activeTab = tabs.some((t) => t.id === chosenTab) ? chosenTab : (tabs[0]?.id ?? null);
  const tabsId = useId();
  const previewStyle = useMemo(() => themeVariables(mergeTheme(draft.theme)), [draft.theme]);
  const selectedWidget = widgets.find((w) => w.id === selected) ?? null;
  // Another editor saved since this one last did: said before this editor's next save is refused.
  const savedElsewhere =
    autosave.state.kind === 'saved' && workbook.dashboardDraftVersion > autosave.version.current;

  // Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) undo and redo; with a tile selected, Delete removes it,
  // the arrows move it and Shift+arrows resize it at the breakpoint being edited.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || document.querySelector('dialog[open]')) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === 'z') {
        e.preventDefault();
        setHistory((h) => (e.shiftKey ? redo(h) : undo(h)));
        return;
      }
      if (mod && key === 'y') {
        e.preventDefault();
        setHistory(redo);
        return;
      }
      if (!selected || mod || e.altKey) return;
      if (e.key === 'Delete' || e.key === 'Backspace') {
        e.preventDefault();
        apply((d) => removeWidget(d, selected));
        setSelected(null);
        return;
      }
      const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
      if (!step) return;
      e.preventDefault();
      apply((d) => {
        const layout = placed(d, breakpoint, activeTab).map(({ id, ...p }) => ({ i: id, ...p }));
        const item = layout.find((l) => l.i === selected);
        if (!item) return d;
        if (e.shiftKey) {
          item.w = Math.max(1, item.w + step[0]);
          item.h = Math.max(1, item.h + step[1]);
        } else {
          item.x = Math.max(0, item.x + step[0]);
          item.y = Math.max(0, item.y + step[1]);
        }
        return applyLayout(d, breakpoint, layout);
      });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [apply, selected, breakpoint, activeTab]);

  const onRestore = async (versionNumber: number) => {
    try {
      const answer = await restore.mutateAsync({
        params: { path: { ...where, versionNumber } },
        body: { expectedDraftVersion: autosave.version.current },
      });
      const restored = answer.dashboardDraft as DashboardDraft;
      autosave.reset(restored, answer.dashboardDraftVersion);
      setHistory((h) => record(h, restored));
      setNotice(
        `Version ${versionNumber} is the draft now. Undo (Ctrl+Z) takes it back; publish to make it current.`,
      );
    } catch (error) {
      setNotice(
        isApiError(error) && error.status === 409
          ? `Not restored: ${errorText(error)}`
          : `Version ${versionNumber} could not be restored: ${errorText(error)}`,
      );
    }
  };

  const { suggestions, timeSuggestions } = useMemo(() => {
    const members = new Set<string>();
    const times = new Set<string>();
    for (const w of widgets) {
      const query = reportsQuery.data?.items.find((r) => r.id === widgetReportId(w))?.jsonQuery;
      if (!query) continue;
      try {
        const parsed = JSON.parse(query) as {
          dimensions?: string[];
          timeDimensions?: { dimension?: string }[];
        };
        for (const d of parsed.dimensions ?? []) members.add(d);
        for (const t of parsed.timeDimensions ?? []) if (t.dimension) times.add(t.dimension);
      } catch {
        // A report whose query is not JSON suggests nothing.
      }
    }
    return { suggestions: [...members], timeSuggestions: [...times] };
  }, [widgets, reportsQuery.data]);

  const viewLink = workbook.publishedDashboard
    ? `/dashboards/${deploymentId}/${workbook.publishedDashboard.publicId}`
    : null;
  return (
    <div className="tsr-editor">
      <PageHeader
        title={`Edit: ${draft.title || workbook.name}`}
        breadcrumbs={[
          { label: 'Workspace', to: `/workspace/${deploymentId}` },
          { label: workbook.name, to: `/workspace/${deploymentId}/workbooks/${workbookId}` },
          { label: 'Edit dashboard' },
        ]}
        subtitle={<SaveStatus state={autosave.state} />}
        actions={
          <>
            <button
              type="button"
              className="button"
              onClick={() => setHistory(undo)}
              disabled={history.past.length === 0}
              title="Undo (Ctrl+Z)"
            >
              Undo
            </button>
            <button
              type="button"
              className="button"
              onClick={() => setHistory(redo)}
              disabled={history.future.length === 0}
              title="Redo (Ctrl+Shift+Z)"
            >
              Redo
            </button>
            {viewLink ? (
              <Link className="button" to={viewLink}>
                View published
              </Link>
            ) : null}
            <button type="button" className="button button-primary" onClick={() => setPublishing(true)}>
              Publish…
            </button>
          </>
        }
      />
      {autosave.state.kind === 'conflict' ? (
        <div className="tsr-edit-conflict" role="alert">
          <p>
            <strong>Your changes were not saved.</strong> {autosave.state.message}
          </p>
          <button type="button" className="button button-primary" onClick={() => void props.reload()}>
            Reload the draft
          </button>
          <span className="tsr-edit-muted">
            {' '}
            Reloading shows their draft; your unsaved changes are dropped.
          </span>
        </div>
      ) : null}
      {savedElsewhere && autosave.state.kind !== 'conflict' ? (
        <div className="tsr-edit-conflict" role="status">
          <p>
            <strong>Someone else saved this draft</strong> (it is now version {workbook.dashboardDraftVersion}
            ); your next change would be refused.
          </p>
          <button type="button" className="button button-primary" onClick={() => void props.reload()}>
            Reload the draft
          </button>
        </div>
      ) : null}
      {notice ? (
        <p className="tsr-edit-notice" role="status">
          {notice}
        </p>
      ) : null}
      <div className="tsr-edit-body">
        {/* The draft's theme on the canvas (tabs and grid): the preview follows the Theme panel. */}
        <div className="tsr-edit-canvas" style={previewStyle}>
          <div className="tsr-edit-toolbar">
            <label>
              Layout for{' '}
              <select value={breakpoint} onChange={(e) => setBreakpoint(e.target.value as Breakpoint)}>
                {breakpoints.map((b) => (
                  <option key={b} value={b}>
                    {b === 'lg' ? 'lg (wide screens; the others derive from it)' : b}
                  </option>
                ))}
              </select>
            </label>
            {breakpoint !== 'lg' ? (
              <button
                type="button"
                className="button"
                onClick={() => apply((d) => resetBreakpoint(d, breakpoint))}
              >
                Derive {breakpoint} from lg again
              </button>
            ) : null}
          </div>
          {activeTab !== null ? (
            <div className="tsr-edit-tabbar">
              <DashboardTabList
                tabs={tabs}
                active={activeTab}
                onChange={setChosenTab}
                panelId={`${tabsId}-panel`}
                idPrefix={tabsId}
              />
            </div>
          ) : null}
          <div className="tsr-dashboard">
            <EditorGrid
              draft={draft}
              tabId={activeTab}
              panel={
                activeTab !== null
                  ? {
                      id: `${tabsId}-panel`,
                      labelledBy: tabElementId(tabsId, activeTab),
                    }
                  : null
              }
              breakpoint={breakpoint}
              reports={reports}
              selected={selected}
              onSelect={setSelected}
              onRemove={(id) => {
                apply((d) => removeWidget(d, id));
                if (selected === id) setSelected(null);
              }}
              onLayout={(layout: Layout) => apply((d) => applyLayout(d, breakpoint, layout))}
            />
          </div>
        </div>
        <aside className="tsr-edit-side" aria-label="Dashboard editor">
          <AddWidgets
            reports={reportList}
            loading={reportsQuery.isPending}
            onAddReport={(id) => {
              const added = addReportWidget(draft, id, activeTab);
              apply(() => added.draft);
              setSelected(added.id);
            }}
            onAddText={(kind) => {
              const added = addTextWidget(draft, kind, activeTab);
              apply(() => added.draft);
              setSelected(added.id);
            }}
          />
          <WidgetPanel
            widget={selectedWidget}
            name={selectedWidget ? widgetName(selectedWidget, reports) : ''}
            tabs={tabs}
            tabId={selectedWidget ? widgetTabId(selectedWidget, tabs) : null}
            onMoveToTab={(tabId) => {
              if (!selected) return;
              apply((d) => moveWidgetToTab(d, selected, tabId));
              setChosenTab(tabId);
            }}
            onChange={(changes, key) =>
              selected && apply((d) => updateWidgetConfig(d, selected, changes), key)
            }
          />
          <FiltersPanel
            draft={draft}
            suggestions={suggestions}
            onChange={(f) => apply((d) => setFilters(d, f))}
          />
          <TabsPanel
            draft={draft}
            onAdd={(title) => {
              const added = addTab(draft, title);
              apply(() => added.draft);
              setChosenTab(added.id);
            }}
            onRename={(id, title) => apply((d) => renameTab(d, id, title), `tab:${id}`)}
            onMove={(id, by) => apply((d) => moveTab(d, id, by))}
            onDelete={(id) => apply((d) => deleteTab(d, id))}
          />
          <GrainPanel
            draft={draft}
            suggestions={timeSuggestions}
            onChange={(switchers) => apply((d) => setTimeGrains(d, switchers))}
          />
          <ThemePanel
            draft={draft}
            onChange={(path, value) => apply((d) => setThemeValue(d, path, value), `theme:${path}`)}
          />
          <VersionsPanel
            deploymentId={deploymentId}
            workbookId={workbookId}
            restoring={restore.isPending}
            published={publishCount}
            onRestore={(n) => void onRestore(n)}
          />
        </aside>
      </div>
      {publishing ? (
        <PublishDialog
          deploymentId={deploymentId}
          workbookId={workbookId}
          draft={draft}
          published={published}
          publishedTitle={workbook.publishedDashboard?.title ?? null}
          reports={reports}
          onClose={() => setPublishing(false)}
          onPublished={(answer) => {
            setPublished(answer.config as DashboardDraft);
            setPublishing(false);
            setPublishCount((n) => n + 1);
            setNotice(`Published version ${answer.versionNumber}.`);
          }}
        />
      ) : null}
    </div>
  );
}

function SaveStatus({ state }: { state: SaveState }) {
  const text = {
    saved: 'All changes saved',
    pending: 'Unsaved changes…',
    saving: 'Saving…',
    error: 'Not saved',
    conflict: 'Not saved: another editor saved first',
  }[state.kind];
  return (
    <span className={`tsr-save tsr-save-${state.kind}`} role="status" data-save-state={state.kind}>
      {text}
      {state.kind === 'error' ? `: ${state.message}` : ''}
    </span>
  );
}
