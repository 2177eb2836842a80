import { isBuiltInGranularity } from '../model/interval.ts';
import type { Dimension, Interval } from '../model/types.ts';
import { add, formatLocal, parseLocal, startOf, type TimeUnit, toLocal } from '../query/time.ts';
import type { Expr } from './nodes.ts';

/**
 * How a granularity buckets a wall-clock timestamp, as Cube's Granularity and
 * BaseQuery.dimensionTimeGroupedColumn decide it:
 * - built-in granularities and custom ones of one whole unit (`1 year`) truncate to the unit;
 *   an `offset` shifts the truncation (Cube ignores an `origin` there);
 * - other intervals count whole intervals from the origin (dateBin): the custom `origin` read in
 *   the query's time zone, else the start of the current year there plus `offset`.
 */
export type GranularitySpec =
  | {
      readonly kind: 'trunc';
      readonly unit: TimeUnit;
      readonly offset: Interval | null;
      readonly origin: number;
    }
  | { readonly kind: 'bin'; readonly interval: Interval; readonly origin: number };

export function granularitySpec(
  dim: Dimension,
  name: string,
  timezone: string,
  now: number,
): GranularitySpec {
  if (isBuiltInGranularity(name)) return { kind: 'trunc', unit: name, offset: null, origin: 0 };
  const custom = dim.granularities.get(name);
  if (!custom) throw new Error(`Unknown granularity ${name} of ${dim.path}`);
  const yearStart = startOf(toLocal(now, timezone), 'year');
  const origin =
    custom.origin !== null
      ? (parseLocal(custom.origin, timezone)?.local ?? yearStart)
      : custom.offset
        ? shift(yearStart, custom.offset, 1)
        : yearStart;
  const words = custom.interval.text.split(/\s+/);
  const unit = words[1]?.replace(/s$/, '');
  if (words.length === 2 && words[0] === '1' && unit && isBuiltInGranularity(unit)) {
    return { kind: 'trunc', unit, offset: custom.offset, origin };
  }
  return { kind: 'bin', interval: custom.interval, origin };
}

/** The bucket start of a local timestamp expression. */
export function bucketExpr(spec: GranularitySpec, local: Expr): Expr {
  if (spec.kind === 'bin') {
    return { kind: 'timeBucket', interval: spec.interval, origin: formatLocal(spec.origin), expr: local };
  }
  if (!spec.offset) return { kind: 'dateTrunc', unit: spec.unit, expr: local };
  const interval: Expr = { kind: 'interval', interval: spec.offset };
  const shifted: Expr = { kind: 'binary', op: '-', left: local, right: interval };
  return {
    kind: 'binary',
    op: '+',
    left: { kind: 'dateTrunc', unit: spec.unit, expr: shifted },
    right: interval,
  };
}

/**
 * The periods of a date range (local bounds, both inclusive), as Cube's time series: built-in
 * granularities from the start of the period holding `from`; custom ones stepping by the interval
 * from the origin to the step holding `from` (timeSeriesFromCustomInterval in @cubejs-backend/shared).
 */
export function periods(
  spec: GranularitySpec,
  builtIn: boolean,
  from: number,
  to: number,
  max: number,
): { from: number; to: number }[] | null {
  const out: { from: number; to: number }[] = [];
  if (builtIn && spec.kind === 'trunc') {
    for (let s = startOf(from, spec.unit); s <= to; s = add(s, 1, spec.unit)) {
      if (out.length >= max) return null;
      out.push({ from: s, to: add(s, 1, spec.unit) - 1 });
    }
    return out;
  }
  const step = spec.kind === 'bin' ? spec.interval : unitInterval(spec.unit);
  let start = spec.origin;
  let guard = 0;
  if (start > from) {
    while (start > from) {
      start = shift(start, step, -1);
      if (++guard > 1_000_000) return null;
    }
  } else {
    for (let next = shift(start, step, 1); next <= from; next = shift(start, step, 1)) {
      start = next;
      if (++guard > 1_000_000) return null;
    }
  }
  while (start < to) {
    if (out.length >= max) return null;
    const next = shift(start, step, 1);
    out.push({ from: start, to: next - 1 });
    start = next;
  }
  return out;
}

function unitInterval(unit: TimeUnit): Interval {
  const months = unit === 'year' ? 12 : unit === 'quarter' ? 3 : unit === 'month' ? 1 : 0;
  const days = unit === 'week' ? 7 : unit === 'day' ? 1 : 0;
  const seconds = unit === 'hour' ? 3600 : unit === 'minute' ? 60 : unit === 'second' ? 1 : 0;
  return { text: `1 ${unit}`, months, days, seconds };
}

/** Local time plus or minus an interval, months first as moment.js adds them. */
function shift(local: number, i: Interval, sign: 1 | -1): number {
  let t = i.months ? add(local, sign * i.months, 'month') : local;
  t = add(t, sign * i.days, 'day');
  return t + sign * i.seconds * 1000;
}
