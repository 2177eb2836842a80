import { UserError } from '../errors.ts';
import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

const ENGINE = 'Databricks';

/**
 * An interval as one Databricks literal ("INTERVAL type": a year-month or a day-time interval,
 * never both; adding `INTERVAL '1' MONTH + INTERVAL '1' DAY` to each other is refused too). Days
 * and seconds are one day-time interval, printed in the largest unit that divides it; months with
 * days or times cannot be one value, so such a window is refused as on Trino.
 */
function literal(i: Interval): string {
  if (i.months !== 0 && (i.days !== 0 || i.seconds !== 0))
    throw new UserError(
      `Intervals mixing months, days and times (${i.text}) are not supported on ${ENGINE}: its intervals are year-month or day-time, never both; write the window in one unit`,
    );
  if (i.months !== 0)
    return i.months % 12 === 0 ? `INTERVAL '${i.months / 12}' YEAR` : `INTERVAL '${i.months}' MONTH`;
  const seconds = i.days * 86_400 + i.seconds;
  for (const [unit, size] of [
    ['DAY', 86_400],
    ['HOUR', 3600],
    ['MINUTE', 60],
  ] as const)
    if (seconds !== 0 && seconds % size === 0) return `INTERVAL '${seconds / size}' ${unit}`;
  return `INTERVAL '${seconds}' SECOND`;
}

/** The interval's parts as timestampadd units, in the order PostgreSQL adds them (months, days, seconds). */
function units(i: Interval): Array<[number, 'MONTH' | 'DAY' | 'SECOND']> {
  const parts: Array<[number, 'MONTH' | 'DAY' | 'SECOND']> = [
    [i.months, 'MONTH'],
    [i.days, 'DAY'],
    [i.seconds, 'SECOND'],
  ];
  const used = parts.filter(([n]) => n !== 0);
  return used.length > 0 ? used : [[0, 'SECOND']];
}

/**
 * Databricks SQL (SQL warehouses; Databricks Runtime 13.3 LTS and above), per its SQL language
 * reference (docs.databricks.com/sql/language-manual). Time columns are TIMESTAMPs holding UTC, as
 * on the other engines, read in the session time zone UTC (the TIMEZONE parameter's system
 * default, "TIMEZONE" configuration parameter page; the connection test says so when a warehouse
 * changed it). Values are `$n` placeholders that the driver inlines as Databricks literals.
 * - Identifiers are quoted with backticks ("Identifiers": a double-quoted text is a string).
 * - String literals read backslash escapes ("STRING type", Literals: `\<other char>` is that
 *   char, `'O\'Connell'`), and two quotes in a row have been two adjacent literals, concatenated
 *   (Spark before SPARK-52545): a quote is written `\'`, a backslash `\\`, the LIKE escape `'\\'`.
 * - `from_utc_timestamp(expr, tz)` ("from_utc_timestamp function"): the UTC timestamp's wall
 *   clock in the tz database zone at that instant, so DST days have 23 and 25 hours.
 * - `date_trunc(unit, expr)` ("date_trunc function"): YEAR, QUARTER, MONTH, WEEK (from Monday, as
 *   PostgreSQL's), DAY, HOUR, MINUTE, SECOND.
 * - Cube's dateBin through `timestampdiff(MILLISECOND, ...)` (whole milliseconds, a BIGINT) and
 *   `timestampadd` ("timestampdiff function", "timestampadd function"); `/` is always fractional
 *   division in Databricks ("/ (slash sign) operator"), so floor() counts whole intervals.
 * - `percentile_cont(0.5) WITHIN GROUP (ORDER BY x)` ("percentile_cont aggregate function"):
 *   exact and interpolated, as PostgreSQL's.
 * - `approx_count_distinct` ("approx_count_distinct aggregate function", HyperLogLog++).
 * - `ilike ... ESCAPE` ("ilike operator"), whose escape is one character.
 * - NULLs sort first ascending and last descending ("ORDER BY clause"): the reverse of
 *   PostgreSQL's, so every item says where they go.
 * - `LIMIT n OFFSET m` in that order ("OFFSET clause").
 */
export const databricks: Dialect = {
  name: 'databricks',
  quoteIdentifier: quoteWith('`'),
  placeholder: (i) => `$${i}`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
  toLocal: (expr, tz) => `from_utc_timestamp(${expr}, ${tz})`,
  toLocalUtc: (expr) => `(${expr})`,
  dateTrunc: (unit, expr) => `date_trunc('${unit.toUpperCase()}', ${expr})`,
  // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds
  timeBucket: (interval, expr, origin) => {
    const n = `CAST(floor(timestampdiff(MILLISECOND, ${origin}, ${expr}) / ${intervalEpochSeconds(interval) * 1000}) AS BIGINT)`;
    return units(interval).reduce((acc, [k, unit]) => `timestampadd(${unit}, ${k} * ${n}, ${acc})`, origin);
  },
  interval: literal,
  approxCountDistinct: (arg) => `approx_count_distinct(${arg})`,
  median: (arg) => `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${arg})`,
  // CAST(string AS TIMESTAMP) reads `YYYY-MM-DD HH:MM:SS.fff` ("cast function", STRING to TIMESTAMP)
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  castText: (expr) => `CAST(${expr} AS STRING)`,
  like: (expr, pattern, negated) => `${expr} ${negated ? 'NOT ILIKE' : 'ILIKE'} (${pattern}) ESCAPE '\\\\'`,
  nullsOrder: true,
  backslashEscapes: true,
  // a value inlined into a pre-aggregation build: `\'` for a quote, as the driver writes it
  // (datasources/databricks-literals.ts), never `''`, which older runtimes read as two literals
  stringLiteral: (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  // The SQL API's outer SQL is PostgreSQL's: identifiers in double quotes, which Databricks reads
  // as string literals, and quotes doubled in literals, which older runtimes read as two literals
  sqlApi: {
    refused:
      'The SQL API (/v1/cubesql) is not supported on Databricks: its outer SQL quotes names with double quotes and doubles quotes in literals, which Databricks reads as strings and, on older runtimes, concatenated literals; use /v1/load',
  },
};
