import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

/**
 * The interval's parts as DATEADD dateparts, in the order PostgreSQL adds an interval (months,
 * days, seconds): DATEADD takes one datepart at a time. DATEADD(month, ...) keeps the day of
 * the month where it exists (AWS's DATEADD page: unlike ADD_MONTHS, which jumps to month ends).
 */
function units(i: Interval): Array<[number, string]> {
  const parts: Array<[number, string]> = [
    [i.months, 'month'],
    [i.days, 'day'],
    [i.seconds, 'second'],
  ];
  const used = parts.filter(([n]) => n !== 0);
  return used.length > 0 ? used : [[0, 'second']];
}

/**
 * Amazon Redshift, per AWS's "SQL reference" of the Redshift Database Developer Guide. Redshift
 * speaks PostgreSQL's protocol and much of its SQL, but not all of it; where it differs:
 * - time zones: CONVERT_TIMEZONE('UTC', zone, ts) reads the UTC column and gives the zone's wall
 *   clock as a TIMESTAMP, following the IANA rules (DST days have 23 and 25 hours);
 * - intervals: the documented literal form lists its parts with commas (`'3 months, 2 days'`);
 * - custom granularities: DATEDIFF counts whole seconds (boundaries crossed, so a floor also
 *   before the origin) and DATEADD adds whole dateparts;
 * - derived tables: FROM takes no VALUES list (Cube's RedshiftQuery.seriesSql also writes
 *   UNION ALL of SELECTs);
 * - `a IS NOT DISTINCT FROM b` is not among Redshift's comparison conditions;
 * - string literals read backslash escapes (the LIKE page: the default escape is `'\\'`, two
 *   characters in the literal for one backslash), and ILIKE folds ASCII letters only: `contains`
 *   compares LOWER() of both sides with LIKE, escaping `%` and `_` with a backslash;
 * - TEXT is VARCHAR(256) on Redshift: text casts go to VARCHAR(65535), its longest;
 * - `count_distinct_approx` is Redshift's APPROXIMATE COUNT(DISTINCT) (HyperLogLog, as Cube's
 *   RedshiftQuery prints it).
 * Relative date ranges need nothing of the engine: the planner turns them into bounds from the
 * query's `now`; in the SQL API's outer SQL, CURRENT_TIMESTAMP and now() (leader-node functions,
 * refused next to tables) become GETDATE(), the statement's start. Window frames: the planner's
 * own SQL has only `rank()` (no frame); in outer SQL Redshift takes ROWS frames only, and needs
 * one on an aggregate window with ORDER BY (the window functions page), else the query is refused.
 * The driver sets each session's time zone to UTC, as the PostgreSQL dialect expects.
 */
export const redshift: Dialect = {
  name: 'redshift',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
  toLocal: (expr, tz) => `CONVERT_TIMEZONE('UTC', ${tz}, ${expr})`,
  // time columns hold UTC wall clocks: in UTC the value is its own local time
  toLocalUtc: (expr) => `(${expr})`,
  // DATE_TRUNC takes every grain the planner uses; `week` truncates to Monday, as PostgreSQL's
  dateTrunc: (unit, expr) => `DATE_TRUNC('${unit}', ${expr})`,
  // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds. The
  // seconds are divided as DOUBLE PRECISION and floored (BIGINT division truncates toward zero).
  timeBucket: (interval, expr, origin) => {
    const n = `FLOOR(CAST(DATEDIFF(second, ${origin}, ${expr}) AS DOUBLE PRECISION) / ${intervalEpochSeconds(interval)})`;
    return units(interval).reduce(
      (acc, [k, unit]) => `DATEADD(${unit}, CAST(${k} * ${n} AS INTEGER), ${acc})`,
      origin,
    );
  },
  interval: (i) =>
    `INTERVAL '${units(i)
      .map(([k, unit]) => `${k} ${unit}s`)
      .join(', ')}'`,
  approxCountDistinct: (arg) => `APPROXIMATE COUNT(DISTINCT ${arg})`,
  median: (arg) => `PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY ${arg})`,
  // the space form, UTC implied, as the TIMESTAMP literals of AWS's examples
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  castText: (expr) => `CAST(${expr} AS VARCHAR(65535))`,
  like: (expr, pattern, negated) =>
    `LOWER(${expr}) ${negated ? 'NOT LIKE' : 'LIKE'} LOWER(${pattern}) ESCAPE '\\\\'`,
  notDistinct: (left, right) => `(${left} = ${right} OR (${left} IS NULL AND ${right} IS NULL))`,
  sqlApi: { rowFramesOnly: 'Redshift', now: 'GETDATE()' },
  values: (rows, columns) =>
    rows
      .map((r, i) => `SELECT ${r.map((v, j) => (i === 0 ? `${v} AS ${columns[j]}` : v)).join(', ')}`)
      .join(' UNION ALL '),
};
