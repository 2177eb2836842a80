import type { RequestOptionsOf, SuccessBody } from '@tessera/client';

/** A published dashboard (spec 2.3), as `GET /api/v1/embed/dashboard/{publicId}` answers it. */
export type PublishedDashboard = SuccessBody<'/api/v1/embed/dashboard/{publicId}', 'get'>;
export type ReportSnapshot = PublishedDashboard['reportSnapshots'][number];

export const widgetDataPath =
  '/api/v1/deployments/{deploymentId}/dashboards/{publicId}/widgets/{widgetId}/data';
/** One widget's rows, as the widget-data endpoint answers them. */
export type WidgetData = SuccessBody<typeof widgetDataPath, 'post'>;
export type WidgetDataBody = NonNullable<RequestOptionsOf<typeof widgetDataPath, 'post'>['body']>;
/** A dashboard filter (spec 2.5 shape). */
export type DashboardFilter = NonNullable<WidgetDataBody['filters']>[number];
/** A time-grain override (spec 2.5 shape). */
export type TimeGrain = NonNullable<WidgetDataBody['timeGrains']>[number];
export type Grain = TimeGrain['grain'];

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
