import 'react-grid-layout/css/styles.css';
import './dashboard.css';
import { QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
import type { Client } from '@tessera/client';
import { ClientProvider } from '@tessera/client/react';
import {
  dashboardFilters,
  dashboardTabs,
  dashboardTimeGrains,
  stackTabs,
  widgetTabId,
} from '@tessera/dashboard';
import { type ReactNode, useContext, useId, useMemo, useState } from 'react';
import { GridLayout, getBreakpointFromWidth, useContainerWidth } from 'react-grid-layout';
import type { PublishedDashboard } from './api-types.ts';
import { Controls } from './controls.tsx';
import { deriveControls } from './controls-model.ts';
import { toggleCrossFilter } from './cross-filter.ts';
import { DashboardTabList, tabElementId, useActiveTab } from './dashboard-tabs.tsx';
import { gridSettings } from './layout.ts';
import { dashboardConfig, type WidgetModel, widgetModels } from './model.ts';
import { describeView, PrintGrid } from './print-grid.tsx';
import { chartConfig, mergeTheme, themeVariables } from './theme.ts';
import type { DashboardTheme } from './types.ts';
import { useViewState } from './use-view-state.ts';
import type { ViewState } from './view-state.ts';
import { WidgetTile, type WidgetTileProps } from './widget-tile.tsx';

export interface DashboardViewProps {
  /** The published dashboard (spec 2.3), e.g. from `GET /api/v1/embed/dashboard/{publicId}`. */
  dashboard: PublishedDashboard;
  /**
   * The client the widgets' rows are read with: the signed-in app's (cookie session) or one
   * created with an embed token (`createClient({ baseUrl, token })`). The caller decides.
   */
  client: Client;
  /** The deployment in the widget-data path; defaults to the dashboard's own. */
  deploymentId?: number;
  /** Laid over the config's theme (spec 2.2 shape), e.g. an embedding page's colors. */
  theme?: DashboardTheme;
  /** Keep the controls' choices in the URL query string, so that a link reproduces the view (default true). */
  syncUrl?: boolean;
  /** Hide the filters and time-grain controls (default false). */
  hideControls?: boolean;
  /** Where a tile's query opens in Explore (its menu's "Open in Explore"); none in an embed. */
  exploreHref?: WidgetTileProps['exploreHref'];
  /** "Create alert" in each tile's menu (issue 23 item 6); none in an embed. */
  createAlert?: WidgetTileProps['createAlert'];
  /** Drawn above the controls, on the dashboard's themed background (a title, a description). */
  header?: ReactNode;
  /**
   * The print view (issue 23 item 5): the widest layout in the page's flow (print-grid.tsx), the
   * chosen filters in words instead of controls, no menus or download buttons.
   */
  print?: boolean;
  className?: string;
}

/**
 * A published dashboard, read-only: its controls, then its widgets on the config's responsive grid
 * (spec 2.2), each tile reading its rows from the widget-data endpoint through `client` with the
 * chosen filters and time grains (spec 2.5 shapes). Needs no provider above it: it brings the
 * client to the hooks itself, and a TanStack Query client when none is above.
 */
export function DashboardView(props: DashboardViewProps) {
  const outer = useContext(QueryClientContext);
  const [own] = useState(() => (outer ? null : new QueryClient()));
  const view = (
    <ClientProvider client={props.client}>
      <Dashboard {...props} />
    </ClientProvider>
  );
  return own ? <QueryClientProvider client={own}>{view}</QueryClientProvider> : view;
}

function Dashboard({
  dashboard,
  deploymentId = dashboard.deploymentId,
  theme: overrides,
  syncUrl = true,
  hideControls = false,
  header,
  className,
  exploreHref,
  print = false,
  createAlert,
}: DashboardViewProps) {
  const config = useMemo(() => dashboardConfig(dashboard), [dashboard]);
  const models = useMemo(() => widgetModels(dashboard), [dashboard]);
  const filters = useMemo(() => dashboardFilters(config), [config]);
  const switchers = useMemo(() => dashboardTimeGrains(config), [config]);
  const controls = useMemo(
    () =>
      deriveControls(
        models,
        filters.map((f) => f.member),
        switchers,
      ),
    [models, filters, switchers],
  );
  const defaults = useMemo(
    () => ({
      equals: Object.fromEntries(
        filters.flatMap((f) => (f.defaultValue ? [[f.member, f.defaultValue]] : [])),
      ),
      grains: Object.fromEntries(
        (switchers ?? []).flatMap((s) => (s.defaultGrain ? [[s.member, s.defaultGrain]] : [])),
      ),
    }),
    [filters, switchers],
  );
  const tabs = useMemo(() => dashboardTabs(config), [config]);
  const [activeTab, setActiveTab] = useActiveTab(tabs, syncUrl && !print);
  const tabsId = useId();
  // On screen, the chosen tab's widgets; on paper, every tab's, one under the other (settings.ts).
  const shown = useMemo(
    () =>
      print
        ? printedModels(config, models)
        : models.filter((m) => tabs.length === 0 || widgetTabId(m.widget, tabs) === activeTab),
    [print, config, models, tabs, activeTab],
  );
  const grid = useMemo(
    () =>
      gridSettings(
        config,
        shown.map((m) => m.widget),
      ),
    [config, shown],
  );
  const theme = useMemo(() => mergeTheme(config.theme, overrides), [config.theme, overrides]);
  const charts = useMemo(() => chartConfig(theme), [theme]);
  const [state, setState] = useViewState(syncUrl, defaults);
  // Cross-filtering by a picked bar or slice, on the members the widgets share (the dimension
  // filters the controls offer), and only where the controls are on the page: the chip there is
  // how the filter is seen and removed.
  const crossFilter = useMemo<WidgetTileProps['crossFilter']>(
    () =>
      hideControls
        ? undefined
        : {
            members: new Set(controls.filter((c) => c.kind === 'dimension').map((c) => c.member)),
            onPick: (member, value) => setState(toggleCrossFilter(state, member, value)),
          },
    [hideControls, controls, state, setState],
  );
  const { width, containerRef, mounted } = useContainerWidth({ measureBeforeMount: true });
  // The viewer picks the breakpoint from the grid's width itself and hands that breakpoint's layout
  // to a plain grid. react-grid-layout's responsive grid keeps the layout in two components'
  // state, synchronised by effects; after a resize under load they were seen passing a stale
  // layout back and forth for seconds (xxs tiles at md). A read-only view needs none of that
  // state: every breakpoint's layout is in the config (spec 2.2). The grid is not remounted when
  // the breakpoint changes (it takes the new layout from its props): a remount would remount
  // every tile, losing its rows on the page and blanking its chart until drawn again, and the
  // breakpoint can change for a moment without the window changing size (a full-page screenshot
  // went md -> xxs -> md and blanked every chart just after a filter change, issue 21).
  const breakpoint = print ? 'lg' : mounted ? getBreakpointFromWidth(grid.breakpoints, width) : undefined;
  const source = { deploymentId, publicId: dashboard.publicId, versionNumber: dashboard.versionNumber };
  const tile = (model: (typeof models)[number]) => (
    <WidgetTile
      model={model}
      state={state}
      allowDownload={!print && !dashboard.restrictDataDownload}
      chartConfig={charts}
      exploreHref={print ? undefined : exploreHref}
      createAlert={print ? undefined : createAlert}
      crossFilter={print ? undefined : crossFilter}
      {...source}
    />
  );
  const byId = new Map(shown.map((m) => [m.widget.id, m]));
  const panelId = `${tabsId}-panel`;
  const tabbed = tabs.length > 0 && !print && activeTab !== null;
  const classes = ['tsr-dashboard', print ? 'tsr-print' : null, className].filter(Boolean).join(' ');

  return (
    <div
      className={classes}
      style={themeVariables(theme)}
      data-public-id={dashboard.publicId}
      data-breakpoint={breakpoint}
    >
      {header}
      {print ? (
        <PrintedView state={state} />
      ) : hideControls ? null : (
        <Controls controls={controls} state={state} onChange={setState} {...source} />
      )}
      {tabbed ? (
        <DashboardTabList
          tabs={tabs}
          active={activeTab}
          onChange={setActiveTab}
          panelId={panelId}
          idPrefix={tabsId}
        />
      ) : null}
      <div
        ref={containerRef}
        className="tsr-grid"
        {...(tabbed
          ? {
              id: panelId,
              role: 'tabpanel',
              tabIndex: 0,
              'aria-labelledby': tabElementId(tabsId, activeTab),
            }
          : {})}
      >
        {print ? (
          <PrintGrid grid={grid}>
            {(id) => {
              const model = byId.get(id);
              return model ? tile(model) : null;
            }}
          </PrintGrid>
        ) : breakpoint ? (
          <GridLayout
            width={width}
            layout={grid.layouts[breakpoint]}
            gridConfig={{
              cols: grid.cols[breakpoint],
              rowHeight: grid.rowHeight,
              margin: grid.margin,
              containerPadding: grid.containerPadding,
            }}
            dragConfig={{ enabled: false }}
            resizeConfig={{ enabled: false }}
          >
            {shown.map((model) => (
              <div key={model.widget.id} className="tsr-cell">
                {tile(model)}
              </div>
            ))}
          </GridLayout>
        ) : null}
        {tabbed && shown.length === 0 ? <Empty>This tab has no widgets yet.</Empty> : null}
      </div>
      {models.length === 0 ? <Empty>This dashboard has no widgets yet.</Empty> : null}
    </div>
  );
}

/**
 * Every tab's widgets for paper (settings.ts `stackTabs`): the same models at their stacked places,
 * and a heading per tab. An untabbed dashboard prints as it is.
 */
function printedModels(config: ReturnType<typeof dashboardConfig>, models: WidgetModel[]): WidgetModel[] {
  const byId = new Map(models.map((m) => [m.widget.id, m]));
  return stackTabs({ ...config, widgets: models.map((m) => m.widget) }).map((widget) => {
    const model = byId.get(widget.id);
    if (model) return { ...model, widget };
    return {
      widget,
      title: '',
      description: null,
      snapshot: null,
      missingReport: false,
      query: null,
      spec: null,
      columnFormats: {},
    };
  });
}

/** On paper there are no controls: the filters and grains the view was printed with, in words. */
function PrintedView({ state }: { state: ViewState }) {
  const lines = describeView(state);
  return (
    <p className="tsr-print-view">
      {lines.length === 0 ? 'No filters.' : `Filtered by ${lines.join('; ')}.`}
    </p>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="tsr-dashboard-empty">{children}</p>;
}
