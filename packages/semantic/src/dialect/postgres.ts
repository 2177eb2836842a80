import { intervalEpochSeconds, intervalSql } from '../model/interval.ts';
import { type Dialect, quoteWith } from './dialect.ts';

/**
 * PostgreSQL, as Cube's PostgresQuery prints it: `ts::timestamptz AT TIME ZONE tz`. Like Cube's
 * driver, this expects the session time zone to be UTC (`SET TIME ZONE 'UTC'`) so that
 * `timestamp without time zone` columns read as UTC.
 */
export const postgres: Dialect = {
  name: 'postgres',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  // Instants too are bound as `timestamp` (UTC wall clock, read in the UTC session): Cube's
  // `::timestamptz` makes PostgreSQL convert every row of a `timestamp` column before comparing
  // (about twice the scan time of a date-range filter on 1M rows, bench/data-api), while a
  // `timestamptz` column compared with a `timestamp` reads it in the same UTC session: same rows.
  timestamp: (p) => `${p}::timestamp`,
  toLocal: (expr, tz) => `(${expr})::timestamptz AT TIME ZONE ${tz}::text`,
  dateTrunc: (unit, expr) => `date_trunc('${unit}', ${expr})`,
  // Cube's PostgresQuery.dateBin: whole intervals since the origin, measured in epoch seconds
  timeBucket: (interval, expr, origin) =>
    `(${origin} + INTERVAL '${intervalSql(interval)}' * floor(EXTRACT(EPOCH FROM (${expr} - ${origin})) / ${intervalEpochSeconds(interval)}))`,
  interval: (i) => `INTERVAL '${intervalSql(i)}'`,
  approxCountDistinct: (arg) => `count(DISTINCT ${arg})`,
  median: (arg) => `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${arg})`,
  timestampValue: (v) => v,
};
