import { intervalEpochSeconds, intervalSql } from '../model/interval.ts';
import { type Dialect, quoteWith } from './dialect.ts';

/**
 * DuckDB (with the ICU extension, built into @duckdb/node-api). Time columns are TIMESTAMP in
 * UTC; `(ts AT TIME ZONE 'UTC') AT TIME ZONE tz` gives the wall clock in tz without depending
 * on the session's TimeZone setting.
 */
export const duckdb: Dialect = {
  name: 'duckdb',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
  toLocal: (expr, tz) => `((${expr}) AT TIME ZONE 'UTC') AT TIME ZONE ${tz}`,
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
