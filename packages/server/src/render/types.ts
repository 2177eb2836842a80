/**
 * What the renderer draws: a dashboard config as stored (spec 2.2, every part optional or null as
 * in a stored config) plus, per widget, either the rows of its report and its Vega-Lite spec, or
 * the reason its data could not be had. The renderer queries nothing itself: whoever calls it (a
 * scheduled notification, a dashboard export) runs the widgets' queries under the right security
 * context first (DESIGN.md "Notifications and rendering").
 */

export const breakpoints = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;
export type Breakpoint = (typeof breakpoints)[number];
type PerBreakpoint<T> = Partial<Record<Breakpoint, T | null>>;

/** A widget's place on the grid, in columns and rows (react-grid-layout units). */
export interface GridPosition {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Spec 2.2 `layout`: react-grid-layout's responsive-grid settings. */
export interface DashboardLayout {
  breakpoints?: PerBreakpoint<number> | null;
  cols?: PerBreakpoint<number> | null;
  /** [horizontal, vertical] pixels between tiles. */
  margin?: number[] | null;
  /** [horizontal, vertical] pixels between the grid's edge and its tiles. */
  containerPadding?: number[] | null;
  rowHeight?: number | null;
}

type Text = string | null;
interface BorderTheme {
  color?: Text;
  radius?: Text;
  style?: Text;
  width?: Text;
}
interface TitleTheme {
  color?: Text;
  fontFamily?: Text;
  fontSize?: Text;
  fontWeight?: Text;
}

/** Spec 2.2 theme: every value a string (CSS-like: `#1f2933`, `14px`, `600`). */
export interface DashboardTheme {
  backgroundColor?: Text;
  fontFamily?: Text;
  primaryColor?: Text;
  themeId?: Text;
  controls?: {
    backgroundColor?: Text;
    padding?: Text;
    border?: BorderTheme | null;
    title?: TitleTheme | null;
  } | null;
  dashboard?: { backgroundColor?: Text; padding?: Text } | null;
  widgets?: {
    backgroundColor?: Text;
    margin?: Text;
    padding?: Text;
    border?: BorderTheme | null;
    text?: { codeFontFamily?: Text; color?: Text; fontFamily?: Text; secondaryColor?: Text } | null;
    title?: TitleTheme | null;
  } | null;
}

export interface DashboardWidget {
  id: string;
  position: GridPosition;
  responsiveLayouts?: PerBreakpoint<GridPosition> | null;
}

/** Spec 2.2 dashboard config, the parts that decide what a rendered dashboard looks like. */
export interface DashboardRenderConfig {
  title?: string | null;
  description?: string | null;
  layout?: DashboardLayout | null;
  theme?: DashboardTheme | null;
  widgets?: DashboardWidget[] | null;
}

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
