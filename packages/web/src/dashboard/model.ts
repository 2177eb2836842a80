import { readDashboardConfig, widgetReportId, widgetTitle } from '@tessera/dashboard';
import type { PublishedDashboard, ReportSnapshot } from './api-types.ts';
import type { ColumnFormat, DashboardConfig, SemanticQuery, Widget } from './types.ts';

/** What the viewer needs of one widget: its report snapshot, query and chart, read once. */
export interface WidgetModel {
  widget: Widget;
  title: string;
  description: string | null;
  /** Null for a widget that shows no report (a text widget, a spacer). */
  snapshot: ReportSnapshot | null;
  /** The widget names a report the published version has no snapshot of. */
  missingReport: boolean;
  /** The snapshot's Cube query; null for a SQL-API report. */
  query: SemanticQuery | null;
  /** The snapshot's Vega-Lite v5 spec (it holds no data); null draws a table. */
  spec: Record<string, unknown> | null;
  columnFormats: Record<string, ColumnFormat>;
}

/** The published config (spec 2.2), read as the server reads it (packages/dashboard read.ts). */
export function dashboardConfig(dashboard: PublishedDashboard): DashboardConfig {
  return readDashboardConfig(dashboard.config);
}

/** The widgets of a published dashboard with their snapshots (spec 2.3). */
export function widgetModels(dashboard: PublishedDashboard): WidgetModel[] {
  const byReport = new Map(dashboard.reportSnapshots.map((s) => [s.reportId, s]));
  return (dashboardConfig(dashboard).widgets ?? []).map((widget) => {
    const reportId = widgetReportId(widget);
    const snapshot = reportId === null ? null : (byReport.get(reportId) ?? null);
    return {
      widget,
      title: widgetTitle(widget) ?? snapshot?.title ?? snapshot?.name ?? '',
      description: snapshot?.description ?? null,
      snapshot,
      missingReport: reportId !== null && snapshot === null,
      query: snapshot ? semanticQuery(snapshot) : null,
      spec: snapshot ? chartSpec(snapshot) : null,
      columnFormats: (snapshot?.preferences?.columnFormats ?? {}) as Record<string, ColumnFormat>,
    };
  });
}

/** Spec 2.3 has no field for a semantic query: the server returns it in `meta.jsonQuery`. */
function semanticQuery(snapshot: ReportSnapshot): SemanticQuery | null {
  const raw = snapshot.meta?.jsonQuery;
  if (typeof raw === 'string') return parseObject(raw) as SemanticQuery | null;
  if (raw && typeof raw === 'object') return raw as SemanticQuery;
  return null;
}

function chartSpec(snapshot: ReportSnapshot): Record<string, unknown> | null {
  return snapshot.spec ? parseObject(snapshot.spec) : null;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** "orders.created_at" -> "Orders created at": a label for a member before its data has loaded. */
export function memberLabel(member: string): string {
  const words = member.replaceAll('.', ' ').replaceAll('_', ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
