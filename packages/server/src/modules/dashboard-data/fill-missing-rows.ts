import type { CubeQuery, QueryFilter } from '@tessera/semantic';

/**
 * A report's `fillMissingRows` {`member`, `excludedDimensions`} (spec 2.3, reference
 * `FillMissingRows`): a time series is drawn with every period of its granularity, not only those
 * that have rows. The reference gives the shape only; the behaviour follows Cube's own client
 * (`ResultSet.pivot` with `fillMissingDates`, whose `fillWithValue` defaults to 0):
 * - the periods run over the query's date range on that member (its time dimension's `dateRange`,
 *   or the bounds of an `inDateRange`/`afterOrOnDate`/`beforeOrOnDate` filter on it, such as a
 *   dashboard's date control), else from the first to the last period that has rows;
 * - a missing period gets a row whose measures are 0, once per combination of the values of the
 *   query's other dimensions found in the rows; `excludedDimensions` take no part in the
 *   combinations and are null in the rows added;
 * - it applies only where the query groups `member` by a granularity, after any time-grain override.
 * At most `maxPeriods` periods are filled: a longer series is answered as queried.
 */
export interface FillSpec {
  member: string;
  excludedDimensions?: readonly string[] | null;
}

type Row = Record<string, unknown>;

export const maxPeriods = 10_000;

export function fillMissingRows(rows: readonly Row[], query: CubeQuery, fill: FillSpec): Row[] {
  const td = query.timeDimensions?.find((t) => t.dimension === fill.member && t.granularity !== undefined);
  const grain = td?.granularity;
  if (!td || !grain || !(grain in steps)) return [...rows];
  const key = `${fill.member}.${grain}`;
  const values = rows.map((r) => r[key]).filter((v): v is string => typeof v === 'string');
  const [from, to] = bounds(td.dateRange, query.filters ?? [], fill.member);
  const start = from
    ? truncate(from, grain)
    : values.reduce<string | null>((a, v) => (a === null || v < a ? v : a), null);
  const end = to
    ? truncate(to, grain)
    : values.reduce<string | null>((a, v) => (a === null || v > a ? v : a), null);
  if (!start || !end) return [...rows];
  const periods = series(start, end, grain);
  if (periods === null) return [...rows];

  const excluded = new Set(fill.excludedDimensions ?? []);
  const dimensions = (query.dimensions ?? []).filter((d) => !excluded.has(d));
  const measures = query.measures ?? [];
  const comboOf = (r: Row) => JSON.stringify(dimensions.map((d) => r[d] ?? null));
  const combos = new Map<string, Row>();
  for (const r of rows) {
    const c = comboOf(r);
    if (!combos.has(c)) combos.set(c, Object.fromEntries(dimensions.map((d) => [d, r[d] ?? null])));
  }
  if (combos.size === 0) combos.set('[]', {});
  const present = new Set(rows.map((r) => `${String(r[key])}|${comboOf(r)}`));
  const byPeriod = new Map<string, Row[]>();
  for (const r of rows) {
    const p = String(r[key]);
    byPeriod.set(p, [...(byPeriod.get(p) ?? []), r]);
  }

  const descending = orderOf(query, fill.member, key) === 'desc';
  const out: Row[] = [];
  for (const period of descending ? periods.reverse() : periods) {
    out.push(...(byPeriod.get(period) ?? []));
    byPeriod.delete(period);
    for (const [c, values] of combos) {
      if (present.has(`${period}|${c}`)) continue;
      const row: Row = { [key]: period, [fill.member]: period, ...values };
      for (const d of excluded) row[d] = null;
      // Numbers as the data API writes them: strings (Cube's wire format).
      for (const m of measures) row[m] = '0';
      out.push(row);
    }
  }
  // Rows outside the range (a period the bounds did not cover) are kept as they came.
  for (const rest of byPeriod.values()) out.push(...rest);
  return out;
}

const steps = {
  second: 1,
  minute: 1,
  hour: 1,
  day: 1,
  week: 7,
  month: 1,
  quarter: 3,
  year: 1,
} as const;
type Step = keyof typeof steps;

function bounds(
  dateRange: string | readonly string[] | undefined,
  filters: readonly QueryFilter[],
  member: string,
): [string | null, string | null] {
  if (Array.isArray(dateRange) && dateRange.length === 2) return [dateRange[0], dateRange[1]];
  let from: string | null = null;
  let to: string | null = null;
  const visit = (f: QueryFilter) => {
    const g = f as {
      member?: string;
      dimension?: string;
      operator?: string;
      values?: readonly string[];
      and?: QueryFilter[];
    };
    if (g.and) g.and.forEach(visit);
    if ((g.member ?? g.dimension) !== member || !g.values) return;
    if (g.operator === 'inDateRange' && g.values.length === 2) [from, to] = [g.values[0], g.values[1]];
    if (g.operator === 'afterOrOnDate') from = g.values[0];
    if (g.operator === 'beforeOrOnDate') to = g.values[0];
  };
  filters.forEach(visit);
  return [from, to];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A local time as the data API writes it: `YYYY-MM-DDTHH:mm:ss.SSS`, read and written as UTC fields. */
function parse(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m) return null;
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)));
}

function write(d: Date): string {
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.000`
  );
}

/** The start of the period holding `value` (weeks start on Monday, as Cube's do). */
function truncate(value: string, grain: string): string | null {
  const d = parse(value);
  if (!d) return null;
  const g = grain as Step;
  if (g === 'second') d.setUTCMilliseconds(0);
  if (g === 'minute') d.setUTCSeconds(0, 0);
  if (g === 'hour') d.setUTCMinutes(0, 0, 0);
  if (g === 'day' || g === 'week' || g === 'month' || g === 'quarter' || g === 'year')
    d.setUTCHours(0, 0, 0, 0);
  if (g === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (g === 'month' || g === 'quarter' || g === 'year') d.setUTCDate(1);
  if (g === 'quarter') d.setUTCMonth(d.getUTCMonth() - (d.getUTCMonth() % 3));
  if (g === 'year') d.setUTCMonth(0);
  return write(d);
}

function series(start: string, end: string, grain: string): string[] | null {
  const g = grain as Step;
  const d = parse(start);
  const last = parse(end);
  if (!d || !last) return null;
  const out: string[] = [];
  while (d <= last) {
    if (out.length >= maxPeriods) return null;
    out.push(write(d));
    if (g === 'second') d.setUTCSeconds(d.getUTCSeconds() + 1);
    else if (g === 'minute') d.setUTCMinutes(d.getUTCMinutes() + 1);
    else if (g === 'hour') d.setUTCHours(d.getUTCHours() + 1);
    else if (g === 'day' || g === 'week') d.setUTCDate(d.getUTCDate() + steps[g]);
    else d.setUTCMonth(d.getUTCMonth() + (g === 'year' ? 12 : steps[g]));
  }
  return out;
}

function orderOf(query: CubeQuery, member: string, key: string): 'asc' | 'desc' | undefined {
  const order = query.order;
  if (!order) return undefined;
  const pairs = Array.isArray(order) ? order : Object.entries(order);
  return (pairs as [string, 'asc' | 'desc'][]).find(([m]) => m === member || m === key)?.[1];
}
