/**
 * The shapes the viewer reads. The dashboard document (spec 2.2: config, widgets, layout, theme)
 * is the one model of packages/dashboard, shared with the server. The widget-data shapes are
 * written out here (not taken from @tessera/client) so that the viewer's pure parts type-check
 * anywhere; where they meet the client (api-types.ts), the compiler checks that they agree with
 * the generated types.
 */
export type {
  Breakpoint,
  DashboardConfig,
  DashboardTheme,
  Grain,
  Widget,
  WidgetPosition as Position,
} from '@tessera/dashboard';

import type { Grain } from '@tessera/dashboard';

/** The filter operators the controls send (a subset of the widget-data endpoint's). */
export type FilterOperator = 'equals' | 'contains' | 'inDateRange' | 'afterOrOnDate' | 'beforeOrOnDate';

/** A dashboard filter (spec 2.5 shape). */
export interface DashboardFilter {
  member: string;
  operator: FilterOperator;
  value?: string;
  values?: string[];
}

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

/** The Cube query a report snapshot runs (the parts the viewer reads). */
export interface SemanticQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: { dimension: string; granularity?: string; dateRange?: unknown }[];
  filters?: unknown[];
  limit?: number;
}
