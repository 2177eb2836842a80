import { intervalEpochSeconds, intervalSql } from '../model/interval.ts';
import { type Dialect, quoteWith } from './dialect.ts';
import { zoneOffsets } from './zone-offsets.ts';

/**
 * DuckDB (with the ICU extension, built into @duckdb/node-api). Time columns are TIMESTAMP in
 * UTC; `(ts AT TIME ZONE 'UTC') AT TIME ZONE tz` gives the wall clock in tz without depending
 * on the session's TimeZone setting, but calls ICU twice per row: a monthly GROUP BY in
 * America/New_York took over ten times the same in UTC (issue 24 item 4). toLocal therefore
 * adds the zone's offset, found by comparing the value with the zone's changes (wallClock below).
 */
export const duckdb: Dialect = {
  name: 'duckdb',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
  toLocal: (expr, tz, zone) => wallClock(`(${expr})`, icuWallClock(expr, tz), zone),
  // Time columns already hold UTC wall-clock TIMESTAMPs, so in UTC the value is its own local time.
  toLocalUtc: (expr) => `(${expr})`,
  dateTrunc: (unit, expr) => `date_trunc('${unit}', ${expr})`,
  truncLocal: (unit, expr, tz, zone) =>
    DAY_OR_LONGER.has(unit)
      ? localUnitStart(unit, `(${expr})`, icuWallClock(expr, tz), zone)
      : `date_trunc('${unit}', ${duckdb.toLocal(expr, tz, zone)})`,
  // the same buckets as PostgreSQL (postgres.ts), so that both engines answer as Cube does there
  timeBucket: (interval, expr, origin) =>
    `(${origin} + INTERVAL '${intervalSql(interval)}' * CAST(floor((epoch(${expr}) - epoch(${origin})) / ${intervalEpochSeconds(interval)}) AS BIGINT))`,
  interval: (i) => `INTERVAL '${intervalSql(i)}'`,
  approxCountDistinct: (arg) => `approx_count_distinct(${arg})`,
  median: (arg) => `quantile_cont(${arg}, 0.5)`,
  timestampValue: (v) => v,
};

/**
 * The wall clock of `x` in `zone`: x plus the offset in force at x, chosen by a balanced tree of
 * CASE comparisons with the instants at which the zone's offset changes (about eight plain
 * TIMESTAMP comparisons per row over 1990-2060, no time-zone library per row). Each change is
 * the instant the new offset takes effect, so the 23- and 25-hour days come out as `AT TIME
 * ZONE` gives them. The changes come from Node's tz data, which the planner already uses for
 * date ranges (query/time.ts): a query's bounds and buckets follow one release of the rules,
 * where DuckDB's ICU may carry another (DuckDB 1.5.6 and Node 20's 2025c disagree for a few
 * zones, e.g. Vancouver from 2026). Instants outside the span, rare in analytics data, keep
 * the ICU conversion `icu`. Only timestamps and integers computed here are printed inline; the
 * zone's name stays a bound parameter (inside `icu`).
 */
function wallClock(x: string, icu: string, zone: string, offsetMicros = offsetAt(x, zone)): string {
  const { from, to } = zoneOffsets(zone);
  return `CASE WHEN ${x} < ${at(from)} OR ${x} >= ${at(to)} THEN ${icu} ELSE make_timestamp(epoch_us(${x}) + ${offsetMicros}) END`;
}

const at = (ms: number) => `TIMESTAMP '${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}'`;
const icuWallClock = (expr: string, tz: string) => `((${expr}) AT TIME ZONE 'UTC') AT TIME ZONE ${tz}`;

/** The offset in force at `x` (inside the span), in microseconds: a CASE tree over the changes. */
function offsetAt(x: string, zone: string): string {
  const { changes, offsets } = zoneOffsets(zone);
  // offsets[lo..hi] are the candidates; changes[i - 1] starts offsets[i]
  const pick = (lo: number, hi: number): string => {
    if (lo === hi) return String(offsets[lo] * 1_000_000);
    const mid = Math.ceil((lo + hi) / 2);
    return `CASE WHEN ${x} < ${at(changes[mid - 1])} THEN ${pick(lo, mid - 1)} ELSE ${pick(mid, hi)} END`;
  };
  return pick(0, changes.length);
}

const DAY_OR_LONGER = new Set(['day', 'week', 'month', 'quarter', 'year']);
const DAY_MICROS = 86_400_000_000;

/**
 * truncLocal for a day or longer: the wall clock of wallClock, but with an offset that only has
 * to land in the right local `unit`, which for most rows needs no comparison with the changes.
 * Within the span every offset lies between the zone's least and greatest, `lo` and `hi`. When
 * x + hi is at least hi - lo past its midnight, x plus any of them falls on that same local day
 * (an integer remainder tells): those rows, almost all, take one CASE branch with the span check
 * beside the remainder, and x + hi. Of the rest, x + lo lies on the day before x + hi's, so when
 * x + hi's day is not the first of a `unit` (a date part tells), both lie in the same `unit`, and
 * so does x plus anything between. Only the rows left, those in the hour before a local month
 * start in New York (none in Kolkata), walk the CASE tree. Over 10M rows a UTC monthly GROUP BY
 * measured 1.82-1.85x with the tree for every row, 1.49-1.55x with the remainder in a CASE of its
 * own and two date_truncs deciding the rest, and 1.35-1.38x as written here
 * (bench/data-api/time-zones.ts). Exact to the microsecond, 23- and 25-hour days included.
 */
function localUnitStart(unit: string, x: string, icu: string, zone: string): string {
  const { offsets, from, to } = zoneOffsets(zone);
  const hi = Math.max(...offsets) * 1_000_000;
  const lo = Math.min(...offsets) * 1_000_000;
  const spread = hi - lo;
  const e = `epoch_us(${x})`;
  // x + hi after its midnight (x inside the span here: positive, and far from overflowing)
  const sinceMidnight = `(${e} + ${hi}) % ${DAY_MICROS}`;
  if (spread === 0) return `date_trunc('${unit}', ${wallClock(x, icu, zone, String(hi))})`;
  const shifted = `make_timestamp(${e} + ${hi})`;
  const notUnitStart = unitStartTest(unit, shifted);
  const offset = notUnitStart
    ? `CASE WHEN ${notUnitStart} THEN ${hi} ELSE ${offsetAt(x, zone)} END`
    : offsetAt(x, zone);
  const sameDay = `${sinceMidnight} >= ${spread} AND ${x} >= ${at(from)} AND ${x} < ${at(to)}`;
  return `date_trunc('${unit}', CASE WHEN ${sameDay} THEN ${shifted} ELSE ${wallClock(x, icu, zone, offset)} END)`;
}

/** Whether the day of `t` is not the first of a `unit` (null for a day: every day is one). */
function unitStartTest(unit: string, t: string): string | null {
  switch (unit) {
    case 'week':
      return `isodow(${t}) <> 1`;
    case 'month':
      return `dayofmonth(${t}) <> 1`;
    case 'quarter':
      return `(dayofmonth(${t}) <> 1 OR month(${t}) NOT IN (1, 4, 7, 10))`;
    case 'year':
      return `dayofyear(${t}) <> 1`;
    default:
      return null;
  }
}
