/**
 * What the renderer draws: a dashboard config as stored (spec 2.2, every part optional or null as
 * in a stored config) plus, per widget, either the rows of its report and its Vega-Lite spec, or
 * the reason its data could not be had. The renderer queries nothing itself: whoever calls it (a
 * scheduled notification, a dashboard export) runs the widgets' queries under the right security
 * context first (DESIGN.md "Notifications and rendering"). The config's type is the one model of
 * packages/dashboard.
 */
import type { DashboardConfig, DashboardTheme } from '@tessera/dashboard';

/** Spec 2.2 dashboard config, the parts that decide what a rendered dashboard looks like. */
export type DashboardRenderConfig = Pick<
  DashboardConfig,
  'title' | 'description' | 'layout' | 'theme' | 'widgets'
>;

export type { DashboardTheme };

/** A Vega-Lite v5 spec as stored in a report snapshot (spec 2.3): no `data`, the rows come apart. */
export type VegaLiteSpec = Record<string, unknown>;

/**
 * A report without a chart, drawn as the web viewer's table: column titles, and every value
 * already formatted as the viewer shows it. The renderer draws as many rows as fit in the tile.
 */
export interface TableContent {
  columns: { title: string /** Numbers are right-aligned. */; numeric: boolean }[];
  /** One text per column for each row. */
  rows: string[][];
}

/** One widget's content: its chart and rows, a table, or why there is none. */
export type WidgetContent =
  | { title: string; vegaSpec: VegaLiteSpec; rows: Record<string, unknown>[] }
  | { title: string; table: TableContent }
  | { title: string; error: string };

export interface DashboardRenderInput {
  config: DashboardRenderConfig;
  /** Content per widget id; a widget of the config missing here is drawn as failed. */
  content: Record<string, WidgetContent>;
  /** Width of the whole image in pixels; the grid is laid out at the `lg` breakpoint. */
  width: number;
}

/** A widget drawn with an error instead of its chart: the run that rendered it partly failed. */
export interface FailedWidget {
  id: string;
  title: string;
  error: string;
}

export interface RenderedDashboard {
  svg: string;
  width: number;
  height: number;
  failedWidgets: FailedWidget[];
}
