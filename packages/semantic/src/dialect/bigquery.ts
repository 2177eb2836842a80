import { UserError } from '../errors.ts';
import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import type { Dialect } from './dialect.ts';

/**
 * Each grain as a DATETIME_TRUNC part (datetime_functions#datetime_trunc): WEEK starts on Sunday
 * there, ISOWEEK on Monday, as PostgreSQL's `week`.
 */
const parts: Record<string, string> = {
  second: 'SECOND',
  minute: 'MINUTE',
  hour: 'HOUR',
  day: 'DAY',
  week: 'ISOWEEK',
  month: 'MONTH',
  quarter: 'QUARTER',
  year: 'YEAR',
};

/** The interval's parts as BigQuery date parts, in the order PostgreSQL adds them (months, days, seconds). */
function units(i: Interval): Array<[number, 'MONTH' | 'DAY' | 'SECOND']> {
  const all: Array<[number, 'MONTH' | 'DAY' | 'SECOND']> = [
    [i.months, 'MONTH'],
    [i.days, 'DAY'],
    [i.seconds, 'SECOND'],
  ];
  const used = all.filter(([n]) => n !== 0);
  return used.length > 0 ? used : [[0, 'SECOND']];
}

/**
 * One part: `INTERVAL n UNIT`; several: MAKE_INTERVAL (interval_functions#make_interval), whose
 * parts a DATETIME takes months first, then days, then time, as PostgreSQL adds them.
 */
function bigqueryInterval(i: Interval): string {
  const used = units(i);
  if (used.length === 1) return `INTERVAL ${used[0]![0]} ${used[0]![1]}`;
  return `MAKE_INTERVAL(0, ${i.months}, ${i.days}, 0, 0, ${i.seconds})`;
}

/**
 * A quoted identifier: backticks, with the escapes of a string literal (`\``, `\\`), as BigQuery's
 * lexical structure says (lexical#quoted_identifiers); a doubled backtick is not one.
 */
function quoteIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

/**
 * Google BigQuery's GoogleSQL, per its reference (the pages named here and above by their path
 * under https://cloud.google.com/bigquery/docs/reference/standard-sql/). Time columns are TIMESTAMPs
 * (instants, compared with bound TIMESTAMPs); the planner's local wall clock is a DATETIME:
 * - `DATETIME(ts, zone)` is the wall clock of the instant in the named zone, by the IANA rules
 *   (datetime_functions#datetime; DST days have 23 and 25 hours), `DATETIME(ts)` the one in UTC;
 * - DATETIME_TRUNC truncates it (ISOWEEK from Monday); DATETIME_ADD and `- INTERVAL n DAY` move it
 *   by months too, which TIMESTAMP_ADD refuses (timestamp_functions#timestamp_add: no MONTH on a
 *   TIMESTAMP), and month additions keep the day of the month or go to the month's last day, as
 *   PostgreSQL's do (datetime_functions#datetime_add);
 * - Cube's dateBin: whole intervals since the origin, DATETIME_DIFF in milliseconds divided with
 *   `/` (always FLOAT64, operators#arithmetic_operators) and floored;
 * - values are named query parameters `@pN` with types (the driver sends them, one per value,
 *   however often the SQL names it); string literals read backslash escapes, so a value inlined
 *   into SQL doubles its backslashes (`backslashEscapes`);
 * - LIKE has no ESCAPE clause and no ILIKE: `\` escapes `%` and `_` in the pattern (operators#like_operator;
 *   a parameter's value is raw, so the planner's single backslash is the escape), both sides
 *   lowered for `contains`;
 * - NULLs sort first ascending, last descending (query-syntax#order_by_clause): NULLS LAST/FIRST said;
 * - no VALUES table constructor: literal rows as UNION ALL of SELECTs;
 * - an outer join needs an equality between its sides (BigQuery's "LEFT OUTER JOIN cannot be used
 *   without a condition that is an equality of fields from both sides of the join"): the rolling
 *   window's join compares times only, so `(l IS NULL) = (r IS NULL)`, true wherever the time
 *   comparisons can be, goes with them;
 * - the median is exact: PERCENTILE_CONT is an analytic function only
 *   (navigation_functions#percentile_cont), run over the group's values gathered with ARRAY_AGG
 *   (aggregate_functions#array_agg, NULLs left out as the aggregate leaves them out); a group too
 *   large for one array fails on BigQuery rather than giving an estimate;
 * - `count_distinct_approx` is APPROX_COUNT_DISTINCT (HyperLogLog++, approximate_aggregate_functions).
 */
export const bigquery: Dialect = {
  name: 'bigquery',
  quoteIdentifier,
  placeholder: (i) => `@p${i}`,
  // a STRING parameter cast: `YYYY-MM-DD HH:MM:SS.fff` reads as UTC for a TIMESTAMP (the default
  // zone), as the wall clock it says for a DATETIME (conversion_functions#cast)
  timestamp: (p, kind) => (kind === 'instant' ? `CAST(${p} AS TIMESTAMP)` : `CAST(${p} AS DATETIME)`),
  toLocal: (expr, tz) => `DATETIME(${expr}, ${tz})`,
  toLocalUtc: (expr) => `DATETIME(${expr})`,
  dateTrunc: (unit, expr) => {
    const part = parts[unit];
    if (!part) throw new UserError(`Granularity ${unit} is not supported on BigQuery`);
    return `DATETIME_TRUNC(${expr}, ${part})`;
  },
  timeBucket: (interval, expr, origin) => {
    const n = `CAST(FLOOR(DATETIME_DIFF(${expr}, ${origin}, MILLISECOND) / ${intervalEpochSeconds(interval) * 1000}) AS INT64)`;
    return units(interval).reduce(
      (acc, [k, unit]) => `DATETIME_ADD(${acc}, INTERVAL (${k} * ${n}) ${unit})`,
      origin,
    );
  },
  interval: (i) => bigqueryInterval(i),
  // a time_shift moves the TIMESTAMP as a UTC wall clock, so that months can be added (PostgreSQL's
  // `timestamptz + interval '1 month'` in its UTC session), and back to a TIMESTAMP: a TIMESTAMP
  // takes no MONTH, QUARTER or YEAR interval, which Cube's BigqueryQuery also adds through
  // DATETIME (addTimestampInterval, cube-js/cube#9432)
  timeShift: (expr, interval, forward) =>
    `CAST(DATETIME(${expr}) ${forward ? '+' : '-'} ${bigqueryInterval(interval)} AS TIMESTAMP)`,
  approxCountDistinct: (arg) => `APPROX_COUNT_DISTINCT(${arg})`,
  median: (arg) =>
    `(SELECT PERCENTILE_CONT(${quoteIdentifier('__v')}, 0.5) OVER () FROM UNNEST(ARRAY_AGG(${arg} IGNORE NULLS)) AS ${quoteIdentifier('__v')} LIMIT 1)`,
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  castText: (expr) => `CAST(${expr} AS STRING)`,
  like: (expr, pattern, negated) => `LOWER(${expr}) ${negated ? 'NOT LIKE' : 'LIKE'} LOWER(${pattern})`,
  nullsOrder: true,
  backslashEscapes: true,
  // a quote in a GoogleSQL literal is `\'` (lexical#string_and_bytes_literals: no `''`)
  stringLiteral: (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  values: (rows, columns) =>
    rows
      .map((r, i) => `SELECT ${r.map((v, j) => (i === 0 ? `${v} AS ${columns[j]}` : v)).join(', ')}`)
      .join(' UNION ALL '),
  // the SQL API's outer SQL is PostgreSQL's: double-quoted names (strings in GoogleSQL,
  // lexical#string_and_bytes_literals, so a column would silently read as its name), literals
  // without backslash escapes, PostgreSQL's functions
  sqlApi: {
    refused:
      "The SQL API is not supported on BigQuery: its outer SQL is PostgreSQL's, whose double-quoted names BigQuery reads as strings; query through /v1/load",
  },
  keylessJoin: (on, left, right) => `(${left} IS NULL) = (${right} IS NULL) AND ${on}`,
};
