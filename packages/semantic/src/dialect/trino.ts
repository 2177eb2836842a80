import { UserError } from '../errors.ts';
import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

/**
 * An interval as one Trino literal (Trino's "Date and time functions and operators": `INTERVAL
 * '3' DAY`, a year-month or a day-time interval, never both). Days and seconds are one day-time
 * interval (a day is 24 hours on the UTC or wall-clock TIMESTAMPs the planner compares), printed
 * in the largest unit that divides it; months with days or times cannot be one value.
 */
function literal(i: Interval, engine: string): string {
  if (i.months !== 0 && (i.days !== 0 || i.seconds !== 0))
    throw new UserError(
      `Intervals mixing months, days and times (${i.text}) are not supported on ${engine}: its intervals are year-to-month or day-to-second, never both; write the window in one unit`,
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

/**
 * Trino (and Presto, whose SQL it shares for everything printed here), per Trino's SQL reference.
 * Time columns are TIMESTAMPs holding UTC, as on the other engines. Values are `$n` placeholders
 * that the driver inlines as literals: the client protocol binds parameters only through a
 * prepared statement's EXECUTE ... USING, one more round trip per query.
 */
export function trinoFamily(name: 'trino' | 'athena', engine: string): Dialect {
  const intervalLiteral = (i: Interval) => literal(i, engine);
  return {
    name,
    quoteIdentifier: quoteWith('"'),
    placeholder: (i) => `$${i}`,
    // TIMESTAMP is timestamp(3): the range ends' milliseconds (`23:59:59.999`) are kept
    timestamp: (p) => `CAST(${p} AS TIMESTAMP)`,
    // with_timezone reads the column as UTC whatever the session's zone; at_timezone moves the
    // instant to the query's zone; the cast keeps its wall clock (DST days have 23 and 25 hours).
    // TIMESTAMP(6): a timestamp(6) column keeps its microseconds (a cast to (3) would round them).
    toLocal: (expr, tz) => `CAST(at_timezone(with_timezone(${expr}, 'UTC'), ${tz}) AS TIMESTAMP(6))`,
    toLocalUtc: (expr) => `(${expr})`,
    // Trino's date_trunc takes every grain the planner uses; `week` starts on Monday (ISO), as PostgreSQL's
    dateTrunc: (unit, expr) => `date_trunc('${unit}', ${expr})`,
    // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds. Integer
    // division truncates toward zero in Trino, so the milliseconds are divided as DOUBLE and floored.
    timeBucket: (interval, expr, origin) => {
      const n = `CAST(floor(CAST(date_diff('millisecond', ${origin}, ${expr}) AS DOUBLE) / ${intervalEpochSeconds(interval) * 1000}) AS BIGINT)`;
      const parts: Interval[] = [
        { text: '', months: interval.months, days: 0, seconds: 0 },
        { text: '', months: 0, days: interval.days, seconds: interval.seconds },
      ].filter((p) => p.months !== 0 || p.days !== 0 || p.seconds !== 0);
      return `(${origin}${parts.map((p) => ` + ${intervalLiteral(p)} * ${n}`).join('')})`;
    },
    interval: intervalLiteral,
    // Trino's HyperLogLog estimate (standard error 2.3%), as Cube's Trino driver counts approximately
    approxCountDistinct: (arg) => `approx_distinct(${arg})`,
    median: () => {
      throw new UserError(
        `Median measures are not supported on ${engine}: it has no exact percentile aggregate (approx_percentile is an estimate, not the interpolated median)`,
      );
    },
    // Trino casts text to TIMESTAMP from `YYYY-MM-DD HH:MM:SS.fff`, without the ISO `T` or `Z`
    timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
    castText: (expr) => `CAST(${expr} AS VARCHAR)`,
    // Trino has no ILIKE: compare lowered. Its string literals have no backslash escapes, so `'\'`
    // is the one-character escape the planner escapes `%` and `_` with.
    like: (expr, pattern, negated) =>
      `lower(${expr}) ${negated ? 'NOT LIKE' : 'LIKE'} lower(${pattern}) ESCAPE '\\'`,
    // Trino sorts NULLs last both ways unless told; PostgreSQL (and Cube) put them first descending
    nullsOrder: true,
    // Trino's grammar takes OFFSET before LIMIT only
    offsetBeforeLimit: true,
  };
}

export const trino: Dialect = trinoFamily('trino', 'Trino/Presto');
