/**
 * The shapes the viewer reads, written out here (not taken from @tessera/client) so that its pure
 * parts type-check anywhere; where they meet the client (api-types.ts), the compiler checks that
 * they agree with the generated types.
 */

/** The filter operators the controls send (a subset of the widget-data endpoint's). */
export type FilterOperator = 'equals' | 'contains' | 'inDateRange' | 'afterOrOnDate' | 'beforeOrOnDate';

/** A dashboard filter (spec 2.5 shape). */
export interface DashboardFilter {
  member: string;
  operator: FilterOperator;
  value?: string;
  values?: string[];
}

export type Grain = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

/** A time-grain override (spec 2.5 shape). */
export interface TimeGrain {
  member: string;
  grain: Grain;
}

/** One widget's rows as the widget-data endpoint answers them (the parts the viewer reads). */
export interface WidgetAnswer {
  kind: 'semantic' | 'sql';
  annotation?: unknown;
  columns?: { name: string; column_type: string }[];
  data: Record<string, unknown>[];
  totalRows: number | null;
  /** SQL-API widgets: the dashboard filters and grains their SQL could not take. */
  notApplied?: { kind: 'filter' | 'timeGrain'; member: string; reason: string }[];
}

/** A report's format for one column (`preferences.columnFormats`). */
export interface ColumnFormat {
  type: 'currency' | 'percent' | 'number';
  decimalPlaces?: number | null;
}

export const breakpoints = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;
export type Breakpoint = (typeof breakpoints)[number];

export interface Position {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A widget of the dashboard config (spec 2.2). A CHART widget names its report in `config.reportId`. */
export interface Widget {
  id: string;
  position: Position;
  type?: string;
  config?: { reportId?: number; title?: string; text?: string; [key: string]: unknown } | null;
  responsiveLayouts?: Partial<Record<Breakpoint, Position | null>> | null;
  style?: Record<string, unknown> | null;
}

interface Border {
  color?: string | null;
  radius?: string | null;
  style?: string | null;
  width?: string | null;
}
interface Title {
  color?: string | null;
  fontFamily?: string | null;
  fontSize?: string | null;
  fontWeight?: string | null;
}

/** The dashboard theme (spec 2.2): every value a string, every key optional. */
export interface DashboardTheme {
  backgroundColor?: string | null;
  fontFamily?: string | null;
  primaryColor?: string | null;
  themeId?: string | null;
  controls?: {
    backgroundColor?: string | null;
    padding?: string | null;
    border?: Border | null;
    title?: Title | null;
  } | null;
  dashboard?: { backgroundColor?: string | null; padding?: string | null } | null;
  widgets?: {
    backgroundColor?: string | null;
    margin?: string | null;
    padding?: string | null;
    border?: Border | null;
    text?: {
      codeFontFamily?: string | null;
      color?: string | null;
      fontFamily?: string | null;
      secondaryColor?: string | null;
    } | null;
    title?: Title | null;
  } | null;
}

type PerBreakpoint = Partial<Record<Breakpoint, number | null>>;

/** The dashboard config (spec 2.2). */
export interface DashboardConfig {
  title?: string | null;
  description?: string | null;
  layout?: {
    breakpoints?: PerBreakpoint | null;
    cols?: PerBreakpoint | null;
    containerPadding?: number[] | null;
    margin?: number[] | null;
    rowHeight?: number | null;
  } | null;
  settings?: Record<string, unknown> | null;
  theme?: DashboardTheme | null;
  widgets?: Widget[] | null;
}

/** The Cube query a report snapshot runs (the parts the viewer reads). */
export interface SemanticQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: { dimension: string; granularity?: string; dateRange?: unknown }[];
  filters?: unknown[];
  limit?: number;
}
