import { type DashboardConfig, type DashboardDraft, widgetReportId } from '@tessera/dashboard';
import { dashboardConfigProblems, repeatedWidgetId } from '@tessera/dashboard/schema';
import { ValidationError } from '../../errors/domain-errors.ts';

/**
 * Checks a config about to be published (spec 4.4) against the spec 2.2 schema
 * (packages/dashboard), theme values all strings included, whether it came in the request or from
 * the workbook's draft; widget ids must be unique. Returns the config as stored: every widget
 * carries its `type` (CHART by default).
 */
export function validateForPublish(config: Record<string, unknown>, field: string): DashboardConfig {
  const problems = dashboardConfigProblems(config);
  if (problems.length > 0) {
    throw new ValidationError(
      'The dashboard config is invalid',
      problems.slice(0, 20).map((p) => ({ field: `${field}${p.path}`, message: p.message })),
      'invalid_dashboard_config',
    );
  }
  const valid = config as DashboardConfig;
  const widgets = valid.widgets ?? [];
  const repeated = repeatedWidgetId(widgets);
  if (repeated >= 0) {
    throw new ValidationError('Widget ids must be unique', [
      { field: `${field}/widgets/${repeated}/id`, message: 'repeats the id of another widget' },
    ]);
  }
  return { ...valid, widgets: widgets.map((w) => ({ ...w, type: w.type ?? 'CHART' })) };
}

/** Report ids used by the widgets (`config.reportId`), with the index of the first widget using each. */
export function reportRefs(config: DashboardConfig): Map<number, number> {
  const refs = new Map<number, number>();
  (config.widgets ?? []).forEach((w, i) => {
    const id = widgetReportId(w);
    if (id !== null && !refs.has(id)) refs.set(id, i);
  });
  return refs;
}

/** Points every widget at the copies of its report (duplicate); unknown ids are left alone. */
export function repoint<C extends DashboardDraft>(config: C | null, copies: Map<number, number>): C | null {
  if (config === null || !config.widgets) return config;
  return {
    ...config,
    widgets: config.widgets.map((w) => {
      const id = widgetReportId(w);
      return id !== null && copies.has(id) ? { ...w, config: { ...w.config, reportId: copies.get(id) } } : w;
    }),
  };
}
