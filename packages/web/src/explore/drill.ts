/**
 * The rows behind a value: a query of the measure's drill members (else its cube's dimensions),
 * filtered to the clicked row's dimension values and the question's own filters and date range.
 */
import type { Column, Row } from '../results/table.ts';
import type { ExploreModel } from './model.ts';
import type { ExploreQuery, MemberFilter } from './query-state.ts';

const grainSuffix = /\.(second|minute|hour|day|week|month|quarter|year)$/;
export const drillLimit = 1000;

/** A period's last instant: `2024-03-01T00:00:00.000` at month is `2024-03-31T23:59:59.999`. */
export function periodEnd(start: string, grain: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2}))?/.exec(start);
  if (!m) return start;
  const [y, mo, d, h = '0', mi = '0', s = '0'] = m.slice(1).map((x) => x ?? '0');
  const t = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
  const next = new Date(t);
  if (grain === 'year') next.setUTCFullYear(t.getUTCFullYear() + 1);
  else if (grain === 'quarter') next.setUTCMonth(t.getUTCMonth() + 3);
  else if (grain === 'month') next.setUTCMonth(t.getUTCMonth() + 1);
  else if (grain === 'week') next.setUTCDate(t.getUTCDate() + 7);
  else if (grain === 'day') next.setUTCDate(t.getUTCDate() + 1);
  else if (grain === 'hour') next.setUTCHours(t.getUTCHours() + 1);
  else if (grain === 'minute') next.setUTCMinutes(t.getUTCMinutes() + 1);
  else next.setUTCSeconds(t.getUTCSeconds() + 1);
  return new Date(next.getTime() - 1).toISOString().replace('Z', '');
}

export interface Drill {
  query: ExploreQuery;
  /** What the rows are: "Count where Status = completed, Created at in 2024-03". */
  description: string;
}

export function drillQuery(
  query: ExploreQuery,
  row: Row,
  column: Column,
  columns: readonly Column[],
  model: ExploreModel,
): Drill | null {
  const measure = model.members.get(column.name);
  if (measure?.kind !== 'measure') return null;
  let dimensions = measure.drillMembers.filter((m) => model.members.has(m));
  if (dimensions.length === 0) {
    const cube = model.cubes.find((c) => c.name === measure.cube);
    dimensions = (cube?.dimensions ?? []).slice(0, 8).map((d) => d.name);
  }
  if (dimensions.length === 0) return null;
  const isDimension = (name: string) => model.members.get(name)?.kind === 'dimension';
  const filters: ExploreQuery['filters'] = (query.filters ?? []).filter(
    (f) => !('member' in f) || isDimension((f as MemberFilter).member),
  );
  const said: string[] = [];
  for (const c of columns) {
    if (c.kind === 'measure') continue;
    const value = row[c.name];
    const grain = grainSuffix.exec(c.name);
    if (c.kind === 'time' && grain) {
      const member = c.name.slice(0, grain.index);
      if (typeof value !== 'string' || !isDimension(member)) continue;
      filters.push({ member, operator: 'inDateRange', values: [value, periodEnd(value, grain[1])] });
      said.push(
        `${c.title} ${value.slice(0, grain[1] === 'year' ? 4 : grain[1] === 'month' || grain[1] === 'quarter' ? 7 : 10)}`,
      );
      continue;
    }
    if (!isDimension(c.name)) continue;
    if (value === null || value === undefined) {
      filters.push({ member: c.name, operator: 'notSet' });
      said.push(`${c.title} not set`);
    } else {
      filters.push({ member: c.name, operator: 'equals', values: [String(value)] });
      said.push(`${c.title} = ${String(value)}`);
    }
  }
  for (const t of query.timeDimensions ?? []) {
    if (t.dateRange === undefined) continue;
    filters.push({
      member: t.dimension,
      operator: 'inDateRange',
      values: Array.isArray(t.dateRange) ? t.dateRange : [t.dateRange],
    });
  }
  const out: ExploreQuery = { dimensions, filters, limit: drillLimit };
  if (query.segments?.length) out.segments = query.segments;
  const order = dimensions.find((d) => model.members.get(d)?.type === 'time');
  if (order) out.order = [[order, 'desc']];
  return {
    query: out,
    description: `${measure.title}${said.length > 0 ? ` where ${said.join(', ')}` : ''}`,
  };
}
