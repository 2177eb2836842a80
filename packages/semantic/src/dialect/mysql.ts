import { UserError } from '../errors.ts';
import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

const ENGINE = 'MySQL/MariaDB';

/** `date_trunc` per grain, as DATETIME values (MySQL has no date_trunc). */
const truncations: Record<string, (x: string) => string> = {
  second: (x) => `CAST(DATE_FORMAT(${x}, '%Y-%m-%d %H:%i:%s') AS DATETIME)`,
  minute: (x) => `CAST(DATE_FORMAT(${x}, '%Y-%m-%d %H:%i:00') AS DATETIME)`,
  hour: (x) => `CAST(DATE_FORMAT(${x}, '%Y-%m-%d %H:00:00') AS DATETIME)`,
  day: (x) => `CAST(DATE(${x}) AS DATETIME)`,
  // ISO weeks start on Monday, as date_trunc('week') does: WEEKDAY() is 0 on Mondays
  week: (x) => `CAST(DATE(${x}) - INTERVAL WEEKDAY(${x}) DAY AS DATETIME)`,
  month: (x) => `CAST(DATE_FORMAT(${x}, '%Y-%m-01') AS DATETIME)`,
  quarter: (x) => `CAST(MAKEDATE(YEAR(${x}), 1) + INTERVAL (QUARTER(${x}) - 1) QUARTER AS DATETIME)`,
  year: (x) => `CAST(DATE_FORMAT(${x}, '%Y-01-01') AS DATETIME)`,
};

/** The interval's parts as MySQL units, in the order PostgreSQL adds them (months, days, seconds). */
function units(i: Interval): Array<[number, string]> {
  const parts: Array<[number, string]> = [
    [i.months, 'MONTH'],
    [i.days, 'DAY'],
    [i.seconds, 'SECOND'],
  ];
  const used = parts.filter(([n]) => n !== 0);
  return used.length > 0 ? used : [[0, 'SECOND']];
}

/**
 * MySQL 8 and MariaDB 10.3+. The driver sets each session's `sql_mode` to include ANSI_QUOTES and
 * PIPES_AS_CONCAT (so `"name"` quotes identifiers and `||` concatenates, in model SQL as in ours)
 * and its `time_zone` to UTC; named zones need the server's time-zone tables (CONVERT_TZ answers
 * NULL without them, which the driver refuses to run into). Placeholders are `?`, one value each.
 */
export const mysql: Dialect = {
  name: 'mysql',
  quoteIdentifier: quoteWith('"'),
  // MySQL's own `?` takes one value per occurrence, and dialect fragments repeat their operands
  // (a week's start names its time twice): the driver inlines `$n` as escaped literals instead
  placeholder: (i) => `$${i}`,
  // DATETIME(3): a plain DATETIME cast would drop the milliseconds of a range's `23:59:59.999` end
  timestamp: (p) => `CAST(${p} AS DATETIME(3))`,
  toLocal: (expr, tz) => `CONVERT_TZ(${expr}, '+00:00', ${tz})`,
  toLocalUtc: (expr) => `(${expr})`,
  dateTrunc: (unit, expr) => {
    const truncate = truncations[unit];
    if (!truncate) throw new UserError(`Granularity ${unit} is not supported on ${ENGINE}`);
    return truncate(expr);
  },
  // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds
  timeBucket: (interval, expr, origin) => {
    const n = `FLOOR(TIMESTAMPDIFF(SECOND, ${origin}, ${expr}) / ${intervalEpochSeconds(interval)})`;
    return `(${origin}${units(interval)
      .map(([k, unit]) => ` + INTERVAL (${n} * ${k}) ${unit}`)
      .join('')})`;
  },
  interval: (i) => {
    const parts = units(i);
    if (parts.length > 1)
      throw new UserError(
        `Intervals mixing months, days and times (${i.text}) are not supported on ${ENGINE}: write the window in one unit`,
      );
    return `INTERVAL ${parts[0]![0]} ${parts[0]![1]}`;
  },
  approxCountDistinct: (arg) => `COUNT(DISTINCT ${arg})`,
  median: () => {
    throw new UserError(
      `Median measures are not supported on ${ENGINE}: it has no percentile aggregate (MariaDB's PERCENTILE_CONT is a window function only)`,
    );
  },
  // CAST('...T...Z') is refused or warned about by MySQL: the space form, UTC implied
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  castText: (expr) => `CAST(${expr} AS CHAR)`,
  // LIKE follows the column's collation, which may be case-sensitive: compare lowered, as ILIKE does.
  // Backslash is MySQL's default LIKE escape, and what the planner escapes `%` and `_` with.
  like: (expr, pattern, negated) => `LOWER(${expr}) ${negated ? 'NOT LIKE' : 'LIKE'} LOWER(${pattern})`,
  concat: (parts) => `CONCAT(${parts.join(', ')})`,
  // MySQL sorts NULL first ascending: sort by IS NULL first, as PostgreSQL (and Cube) order
  orderItem: (expr, desc) => (desc ? `${expr} IS NULL DESC, ${expr} DESC` : `${expr} IS NULL, ${expr} ASC`),
  notDistinct: (left, right) => `${left} <=> ${right}`,
  // the driver's session mode keeps backslash escapes (mysql-driver.ts)
  backslashEscapes: true,
  values: (rows, columns) =>
    rows
      .map((r, i) => `SELECT ${r.map((v, j) => (i === 0 ? `${v} AS ${columns[j]}` : v)).join(', ')}`)
      .join(' UNION ALL '),
  refuses: {
    fullJoin: `Multi-stage measures that combine stages by their dimensions are not supported on ${ENGINE}: they need a FULL JOIN, which ${ENGINE} does not have`,
  },
};
