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
  toLocal: (expr, tz, zone) =>
    wallClock(`(${expr})`, `((${expr}) AT TIME ZONE 'UTC') AT TIME ZONE ${tz}`, zone),
  // Time columns already hold UTC wall-clock TIMESTAMPs, so in UTC the value is its own local time.
  toLocalUtc: (expr) => `(${expr})`,
  dateTrunc: (unit, expr) => `date_trunc('${unit}', ${expr})`,
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
function wallClock(x: string, icu: string, zone: string): string {
  const { from, to, changes, offsets } = zoneOffsets(zone);
  const at = (ms: number) => `TIMESTAMP '${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}'`;
  // offsets[lo..hi] are the candidates; changes[i - 1] starts offsets[i]
  const pick = (lo: number, hi: number): string => {
    if (lo === hi) return String(offsets[lo] * 1_000_000);
    const mid = Math.ceil((lo + hi) / 2);
    return `CASE WHEN ${x} < ${at(changes[mid - 1])} THEN ${pick(lo, mid - 1)} ELSE ${pick(mid, hi)} END`;
  };
  const offsetMicros = pick(0, changes.length);
  return `CASE WHEN ${x} < ${at(from)} OR ${x} >= ${at(to)} THEN ${icu} ELSE make_timestamp(epoch_us(${x}) + ${offsetMicros}) END`;
}
