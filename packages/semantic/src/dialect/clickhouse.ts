import { UserError } from '../errors.ts';
import { intervalEpochSeconds } from '../model/interval.ts';
import type { Interval } from '../model/types.ts';
import { type Dialect, quoteWith } from './dialect.ts';

const ENGINE = 'ClickHouse';

/**
 * The settings every statement of this dialect runs with (the driver sends them with each query,
 * tests set them on their session), so that its SQL means what PostgreSQL's means:
 * - `join_use_nulls`: an outer join's missing side is NULL, not the type's default (0, '');
 * - `aggregate_functions_null_for_empty`: sum/avg/min/max over no rows are NULL, not 0 or nan
 *   (count stays 0);
 * - `allow_experimental_join_condition`: inequalities beside the equality of a JOIN ON (the
 *   rolling window's join, see `keylessJoin` below);
 * - `session_timezone`: DateTime columns without a zone of their own read and print as UTC;
 * - `enable_positional_arguments`: `GROUP BY 1` and `ORDER BY 1` name select items (the default
 *   since 22.7, set in case a profile turned it off).
 * (ClickHouse docs, "Session Settings".)
 */
export const CLICKHOUSE_SETTINGS = {
  join_use_nulls: 1,
  aggregate_functions_null_for_empty: 1,
  allow_experimental_join_condition: 1,
  session_timezone: 'UTC',
  enable_positional_arguments: 1,
} as const;

/** Each grain's start, on a wall-clock DateTime64 in UTC (`toLocal` below); ISO weeks from Monday. */
const truncations: Record<string, (x: string) => string> = {
  second: (x) => `toStartOfSecond(${x})`,
  minute: (x) => `toDateTime64(toStartOfMinute(${x}), 3, 'UTC')`,
  hour: (x) => `toDateTime64(toStartOfHour(${x}), 3, 'UTC')`,
  // toStartOfDay/toMonday/toStartOf{Month,Quarter,Year} of a DateTime64 in UTC: that day in UTC,
  // which is the wall-clock day since toLocal shifted the value; the Date ones back to DateTime64
  day: (x) => `toDateTime64(toStartOfDay(${x}), 3, 'UTC')`,
  week: (x) => `toDateTime64(toMonday(${x}), 3, 'UTC')`,
  month: (x) => `toDateTime64(toStartOfMonth(${x}), 3, 'UTC')`,
  quarter: (x) => `toDateTime64(toStartOfQuarter(${x}), 3, 'UTC')`,
  year: (x) => `toDateTime64(toStartOfYear(${x}), 3, 'UTC')`,
};

/** The interval's parts as ClickHouse units, in the order PostgreSQL adds them (months, days, seconds). */
function parts(i: Interval): Array<[number, 'MONTH' | 'DAY' | 'SECOND']> {
  const all: Array<[number, 'MONTH' | 'DAY' | 'SECOND']> = [
    [i.months, 'MONTH'],
    [i.days, 'DAY'],
    [i.seconds, 'SECOND'],
  ];
  const used = all.filter(([n]) => n !== 0);
  return used.length > 0 ? used : [[0, 'SECOND']];
}

/**
 * ClickHouse 24+ (the new analyzer), per its SQL reference. Time columns hold instants
 * (DateTime, DateTime64); the planner's local wall clock is a DateTime64(3, 'UTC') whose UTC
 * reading is the local time. Values are `$n` placeholders the driver inlines as ClickHouse
 * literals (backslash-escaped strings), as the MySQL and Trino drivers do; the settings above go
 * with every statement.
 */
export const clickhouse: Dialect = {
  name: 'clickhouse',
  quoteIdentifier: quoteWith('"'),
  placeholder: (i) => `$${i}`,
  // DateTime64(3): the range ends' milliseconds (`23:59:59.999`) are kept; 'UTC' whatever the server's zone
  timestamp: (p) => `toDateTime64(${p}, 3, 'UTC')`,
  // The wall clock in the zone: the instant plus the zone's offset at that instant (timeZoneOffset
  // of the value seen in the zone: -5 h or -4 h in New York, so DST days have 23 and 25 hours).
  // toTimeZone alone would change the zone of the type, not the instant, and comparisons and
  // toStartOf* would then disagree with the planner's local bounds. The zone is a constant literal.
  toLocal: (expr, tz) =>
    `addSeconds(toDateTime64(${expr}, 3, 'UTC'), timeZoneOffset(toTimeZone(${expr}, ${tz})))`,
  // a column's own zone (DateTime('Europe/Berlin')) or a Date is read as the UTC instant it holds
  toLocalUtc: (expr) => `toDateTime64(${expr}, 3, 'UTC')`,
  dateTrunc: (unit, expr) => {
    const truncate = truncations[unit];
    if (!truncate) throw new UserError(`Granularity ${unit} is not supported on ${ENGINE}`);
    return truncate(expr);
  },
  // Cube's PostgreSQL dateBin: whole intervals since the origin, measured in epoch seconds
  // (milliseconds here, floored as Float64: integer division would truncate toward zero)
  timeBucket: (interval, expr, origin) => {
    const n = `toInt64(floor((toUnixTimestamp64Milli(${expr}) - toUnixTimestamp64Milli(${origin})) / ${intervalEpochSeconds(interval) * 1000}))`;
    const add = { MONTH: 'addMonths', DAY: 'addDays', SECOND: 'addSeconds' } as const;
    return parts(interval).reduce((acc, [k, unit]) => `${add[unit]}(${acc}, ${n} * ${k})`, origin);
  },
  // one INTERVAL, or a sum of them, which ClickHouse applies in order (months, then days, then time)
  interval: (i) => {
    const list = parts(i).map(([n, unit]) => `INTERVAL ${n} ${unit}`);
    return list.length === 1 ? list[0]! : `(${list.join(' + ')})`;
  },
  // ClickHouse's adaptive estimate (exact below 65,536 distinct values), as Cube's ClickHouse driver
  approxCountDistinct: (arg) => `uniq(${arg})`,
  // R-7 interpolation, as PostgreSQL's percentile_cont (docs: quantileExactInclusive), which takes
  // no Decimal: as Float64, the type percentile_cont answers in too
  median: (arg) => `quantileExactInclusive(0.5)(toFloat64(${arg}))`,
  timestampValue: (v) => v.replace('T', ' ').replace(/Z$/, ''),
  // toString keeps NULL (a CAST to String refuses it)
  castText: (expr) => `toString(${expr})`,
  // ILIKE has no ESCAPE clause: backslash is its escape, which the planner escapes `%` and `_` with
  like: (expr, pattern, negated) => `${expr} ${negated ? 'NOT ILIKE' : 'ILIKE'} (${pattern})`,
  values: (rows, columns) =>
    rows
      .map((r, i) => `SELECT ${r.map((v, j) => (i === 0 ? `${v} AS ${columns[j]}` : v)).join(', ')}`)
      .join(' UNION ALL '),
  // ClickHouse sorts NULLs last both ways unless told; PostgreSQL (and Cube) put them first descending
  nullsOrder: true,
  // A JOIN ON needs an equality between the sides (docs: JOIN, "Conditions in ON section"): the
  // rolling window's join compares times only, so an always-equal key over a column of each side
  // (NULL only where the comparisons are NULL too) lets the inequalities join as a filter.
  keylessJoin: (on, left, right) => `0 * cityHash64(${left}) = 0 * cityHash64(${right}) AND ${on}`,
};
