import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

/**
 * The interval's parts as Snowflake's DATEADD units, in the order PostgreSQL adds them (months,
 * days, seconds): DATEADD takes one unit at a time.
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
 * Snowflake, per its SQL reference. Time columns are TIMESTAMP_NTZ holding UTC, as on the other
 * engines. Values are `$n` placeholders that the driver inlines as literals (the SQL API's
 * `bindings` take `?`, one value per occurrence, and the dialect repeats its operands). Snowflake's
 * string literals read backslash escapes, so the LIKE escape is written `'\\'`.
 */
export const snowflake: Dialect = {
  name: 'snowflake',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  timestamp: (p) => `CAST(${p} AS TIMESTAMP_NTZ)`,
  // CONVERT_TIMEZONE(source, target, timestamp_ntz): the UTC wall clock moved to the zone's,
  // a TIMESTAMP_NTZ again (DST days have 23 and 25 hours)
  toLocal: (expr, tz) => `CONVERT_TIMEZONE('UTC', ${tz}, ${expr})`,
  toLocalUtc: (expr) => `(${expr})`,
  // A week starts on Monday, as PostgreSQL's: DATE_TRUNC('week') follows the account's WEEK_START
  // (which the SQL API cannot set per statement), DAYOFWEEKISO never does (Snowflake's "Supported
  // date and time parts": ISO parts ignore WEEK_START)
  dateTrunc: (unit, expr) =>
    unit === 'week'
      ? `DATEADD('day', 1 - DAYOFWEEKISO(${expr}), DATE_TRUNC('day', ${expr}))`
      : `DATE_TRUNC('${unit}', ${expr})`,
  // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds
  timeBucket: (interval, expr, origin) => {
    const n = `FLOOR(DATEDIFF('millisecond', ${origin}, ${expr}) / ${intervalEpochSeconds(interval) * 1000})`;
    return units(interval).reduce((acc, [k, unit]) => `DATEADD('${unit}', ${k} * ${n}, ${acc})`, origin);
  },
  // Snowflake's interval constants list their parts with commas
  interval: (i) =>
    `INTERVAL '${units(i)
      .map(([k, unit]) => `${k} ${unit}s`)
      .join(', ')}'`,
  approxCountDistinct: (arg) => `APPROX_COUNT_DISTINCT(${arg})`,
  median: (arg) => `PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY ${arg})`,
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  castText: (expr) => `CAST(${expr} AS VARCHAR)`,
  like: (expr, pattern, negated) => `${expr} ${negated ? 'NOT ILIKE' : 'ILIKE'} (${pattern}) ESCAPE '\\\\'`,
  // DEFAULT_NULL_ORDERING may be changed per account: say where PostgreSQL puts NULLs
  nullsOrder: true,
  backslashEscapes: true,
};
