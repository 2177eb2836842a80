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
}

export const DIALECT_NAMES = ['duckdb', 'postgres'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

export function quoteWith(q: string) {
  return (name: string): string => q + name.split(q).join(q + q) + q;
}
