/**
 * The dashboard document (spec 2.2), one model for the server's store and renderer and the web
 * app's viewer and editor. This entry needs nothing at run time but itself (no schema library),
 * so that the web bundle can take it whole; `@tessera/dashboard/schema` adds the TypeBox schema
 * and its validation for the server.
 */
export {
  chartSpec,
  escapeField,
  type Grain,
  grainFormats,
  grains,
  preparedSpec,
  shownGrains,
  titleAtGrain,
  widgetTitleAtGrains,
} from './chart-spec.ts';
export {
  type Breakpoint,
  breakpoints,
  type GridSettings,
  gridSettings,
  type Placed,
  placeWidgets,
} from './grid.ts';
export {
  type DashboardFilterSetting,
  dashboardFilters,
  dashboardWidgets,
  readDashboardConfig,
  widgetReportId,
  widgetText,
  widgetTitle,
} from './read.ts';
export type {
  DashboardConfig,
  DashboardDraft,
  DashboardLayout,
  DashboardTheme,
  Widget,
  WidgetPosition,
  WidgetType,
} from './schema.ts';
export {
  type DashboardTab,
  type DashboardTimeGrainSetting,
  dashboardTabs,
  dashboardTimeGrains,
  stackTabs,
  widgetsOnTab,
  widgetTabId,
} from './settings.ts';
