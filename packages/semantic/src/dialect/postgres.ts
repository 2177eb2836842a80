import { intervalSql } from '../model/interval.ts';
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
  timestamp: (p, kind) => (kind === 'instant' ? `${p}::timestamptz` : `${p}::timestamp`),
  toLocal: (expr, tz) => `(${expr})::timestamptz AT TIME ZONE ${tz}::text`,
  dateTrunc: (unit, expr) => `date_trunc('${unit}', ${expr})`,
  timeBucket: (interval, expr, origin) => {
    if (interval.months === 0) return `date_bin(INTERVAL '${intervalSql(interval)}', ${expr}, ${origin})`;
    // date_bin cannot step by months: count whole months since the origin instead
    const months = `(extract(year from age(${expr}, ${origin})) * 12 + extract(month from age(${expr}, ${origin})))`;
    return `(${origin} + make_interval(months => (floor(${months} / ${interval.months}) * ${interval.months})::int))`;
  },
  interval: (i) => `INTERVAL '${intervalSql(i)}'`,
  approxCountDistinct: (arg) => `count(DISTINCT ${arg})`,
  timestampValue: (v, kind) => (kind === 'instant' ? `${v}Z` : v),
};
