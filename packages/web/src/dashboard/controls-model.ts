import type { DashboardTimeGrainSetting, Grain } from '@tessera/dashboard';
import type { WidgetModel } from './model.ts';

/**
 * The controls a dashboard offers, derived from the semantic queries of its report snapshots:
 * - every time dimension a widget groups by a granularity: a date range and a time grain;
 * - every dimension a widget groups by: a filter, whose kind (a list of values, a text box or
 *   none for numbers) is decided once the dashboard's dimension values say what it holds.
 * SQL-API reports add none: their columns are not model members.
 * - every filter the dashboard sets itself (`settings.filters`, the editor's), even on a member
 *   no widget groups by.
 * - when the dashboard configures its time-grain switchers (`settings.timeGrains`, the editor's),
 *   exactly those, each offering its own grains, instead of one per time dimension.
 */
export type ControlDef =
  | { kind: 'dimension'; member: string }
  | { kind: 'dateRange'; member: string }
  | { kind: 'grain'; member: string; published: string; choices?: readonly Grain[] };

export function deriveControls(
  models: readonly WidgetModel[],
  configured: readonly string[] = [],
  grainSwitchers: readonly DashboardTimeGrainSetting[] | null = null,
): ControlDef[] {
  const times = new Map<string, string>();
  // The dashboard's own filters (settings.filters, set in the editor) come first, in their order.
  const dimensions = new Set<string>(configured);
  for (const model of models) {
    const query = model.query;
    if (!query) continue;
    for (const td of query.timeDimensions ?? []) {
      if (td.granularity && !times.has(td.dimension)) times.set(td.dimension, td.granularity);
    }
    for (const d of query.dimensions ?? []) {
      dimensions.add(d);
    }
  }
  const controls: ControlDef[] = [];
  for (const [member, published] of times) {
    controls.push({ kind: 'dateRange', member });
    if (!grainSwitchers) controls.push({ kind: 'grain', member, published });
  }
  for (const s of grainSwitchers ?? []) {
    // What the reports group by when the viewer picks nothing; a switcher on a member no report
    // groups by still shows, starting at its default.
    const published = times.get(s.member) ?? s.defaultGrain ?? s.grains[0];
    controls.push({ kind: 'grain', member: s.member, published, choices: s.grains });
  }
  for (const member of dimensions) {
    if (!times.has(member)) controls.push({ kind: 'dimension', member });
  }
  return controls;
}
