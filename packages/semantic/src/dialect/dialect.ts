import type { Interval } from '../model/types.ts';

/**
 * What differs between engines, and nothing else: the shared printer asks these questions.
 * Each answer receives already printed SQL fragments.
 */
export interface Dialect {
  readonly name: DialectName;
  quoteIdentifier(name: string): string;
  placeholder(index: number): string;
  /** A bound timestamp: `instant` in UTC (compared with raw columns) or a local wall-clock value. */
  timestamp(placeholder: string, kind: 'instant' | 'local'): string;
  /**
   * UTC timestamp column -> local wall clock in the zone bound at `tz`. `zone` is the same zone's
   * validated IANA name, for a dialect that derives SQL from the zone's rules (never print it).
   */
  toLocal(expr: string, tz: string, zone: string): string;
  /**
   * The same for the query zone UTC, where the engine can skip the conversion: on 1M rows DuckDB's
   * ICU `AT TIME ZONE` pair costs several times the rest of a monthly GROUP BY. Absent: use toLocal.
   */
  toLocalUtc?: (expr: string) => string;
  dateTrunc(unit: string, expr: string): string;
  /**
   * The start of the local `unit` holding the UTC timestamp `expr` in the zone bound at `tz`
   * (`zone` as for toLocal), where the engine has a faster way than truncating toLocal's wall
   * clock (a monthly GROUP BY needs the local month, not each row's wall clock). Absent, or the
   * zone UTC: dateTrunc(unit, toLocal(...)).
   */
  truncLocal?: (unit: string, expr: string, tz: string, zone: string) => string;
  /**
   * Start of the custom-granularity bucket holding `expr`: `origin` plus whole intervals, counted
   * as Cube's PostgreSQL dateBin counts them (interval length in epoch seconds, months of 30 days).
   */
  timeBucket(interval: Interval, expr: string, origin: string): string;
  interval(interval: Interval): string;
  approxCountDistinct(arg: string): string;
  /** The interpolated 50th percentile of `arg` (Cube's `median` measure type). */
  median(arg: string): string;
  /** Parameter value for a bound timestamp (engines disagree on the accepted text form). */
  timestampValue(value: string, kind: 'instant' | 'local'): string;
  /** `CAST(x AS <text type>)`. Absent: `CAST(x AS TEXT)`. */
  castText?: (expr: string) => string;
  /** A case-insensitive LIKE of an escaped pattern (`\` escapes). Absent: `ILIKE ... ESCAPE '\'`. */
  like?: (expr: string, pattern: string, negated: boolean) => string;
  /** Text concatenation. Absent: `a || b`. */
  concat?: (parts: readonly string[]) => string;
  /** `a IS NOT DISTINCT FROM b` where the engine spells it otherwise. */
  notDistinct?: (left: string, right: string) => string;
  /**
   * An ORDER BY item with NULLs where PostgreSQL puts them (last ascending, first descending), for
   * engines that sort them the other way. Absent: `expr ASC|DESC`.
   */
  orderItem?: (expr: string, desc: boolean) => string;
  /**
   * ORDER BY items say NULLS LAST ascending and NULLS FIRST descending, where PostgreSQL puts them
   * and the engine's default differs but the syntax exists (Trino sorts NULLs last both ways).
   */
  readonly nullsOrder?: boolean;
  /**
   * String literals read `\` as an escape (MySQL without NO_BACKSLASH_ESCAPES, Snowflake): a value
   * inlined into SQL doubles its backslashes too.
   */
  readonly backslashEscapes?: boolean;
  /**
   * A text value inlined into SQL (a pre-aggregation build), where `'...'` with `''` for a quote
   * is not the engine's literal. Absent: that, with `\` doubled under `backslashEscapes`.
   */
  stringLiteral?: (text: string) => string;
  /** OFFSET is printed before LIMIT (Trino's grammar takes no other order). */
  readonly offsetBeforeLimit?: boolean;
  /** A derived table of literal rows, without its alias. Absent: `(VALUES ...) AS alias (columns)`. */
  values?: (rows: readonly (readonly string[])[], columns: readonly string[]) => string;
  /**
   * A JOIN ON without an equality between its sides (the rolling window's time comparisons), for
   * engines that join only on keys: `left` and `right` are a column of each side it compares.
   * Absent: the ON as printed.
   */
  keylessJoin?: (on: string, left: string, right: string) => string;
  /**
   * `expr` (a time dimension's SQL) moved by a multi-stage measure's time_shift (`forward`: later),
   * where `(expr) + <interval>` is not the engine's. Absent: that.
   */
  timeShift?: (expr: string, interval: Interval, forward: boolean) => string;
  /**
   * Features the planner's SQL needs that the engine lacks, each the words of the 400 refusing a
   * query that needs it (never rows the engine would compute differently).
   */
  readonly refuses?: { readonly fullJoin?: string };
  /**
   * Outer SQL of the SQL API (sql-api/), printed for PostgreSQL, where the engine differs:
   * `rowFramesOnly` names an engine whose window frames are ROWS only and required with ORDER BY
   * on an aggregate; `now` is its clock where CURRENT_TIMESTAMP and now() are not to be used.
   */
  readonly sqlApi?: {
    readonly rowFramesOnly?: string;
    readonly now?: string;
    /** The words of the 400 refusing any SQL-API query, where the engine cannot run its outer SQL at all. */
    readonly refused?: string;
  };
}

export const DIALECT_NAMES = [
  'duckdb',
  'postgres',
  'mysql',
  'trino',
  'snowflake',
  'redshift',
  'presto',
  'databricks',
  'clickhouse',
  'athena',
  'bigquery',
] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

export function quoteWith(q: string) {
  return (name: string): string => q + name.split(q).join(q + q) + q;
}
