import { UserError } from '../errors.ts';
import { isBuiltInGranularity } from '../model/interval.ts';
import type { Dimension, Interval, Measure, RollingWindow } from '../model/types.ts';
import type { LocalRange } from '../query/date-range.ts';
import { add, formatLocal, startOf, type TimeUnit } from '../query/time.ts';
import type { ResolvedQuery, TimeDimensionSpec } from '../query/types.ts';
import { periods } from './granularity.ts';
import type { GrainCol } from './multi-stage-sql.ts';
import { type Expr, ident, integer, type Select, type SelectItem, type Source, select } from './nodes.ts';
import { windowCondition } from './rolling.ts';

/**
 * `rolling_window` on a multi-stage measure, as Cube's Tesseract planner computes it
 * (sql-generation.test.ts "rolling day ago", "rolling qtd proxy"): the inner stage is planned at
 * a time grain fine enough for every window bound (days for `trailing: 2 day` or `to_date`
 * quarter), over the date range widened to what the first and last windows reach; then each
 * period of the query's date range takes the inner rows its window holds (rolling.ts's window
 * condition) and aggregates them with the measure's type. Without a date range there are no
 * periods to roll over: the measure aggregates like one without a window, as rolling.ts does.
 */
export interface RollingStage {
  /** The query's time dimension the windows follow. */
  readonly td: TimeDimensionSpec;
  readonly window: RollingWindow;
  /** The periods of its date range (local, both ends inclusive): one per row. */
  readonly periods: readonly { readonly from: number; readonly to: number }[];
  /** The granularity of the inner stage's time column. */
  readonly innerGranularity: TimeUnit;
  /** The inner stage's date range; null when a window is unbounded (no range at all). */
  readonly innerRange: LocalRange | null;
}

const MAX_PERIODS = 10_000;
const UNITS: readonly TimeUnit[] = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

/** The time dimension rolling windows run over: plan.ts's rollingAnchor rule. */
export function rollingAnchor(q: ResolvedQuery): TimeDimensionSpec | null {
  return (
    q.timeDimensions.find((t) => t.granularity !== null && t.dateRange !== null) ??
    q.timeDimensions.find((t) => t.granularity === null && t.dateRange !== null) ??
    null
  );
}

export function rollingStage(m: Measure, q: ResolvedQuery): RollingStage | null {
  const window = m.rollingWindow!;
  const td = rollingAnchor(q);
  if (!td) return null;
  const range = td.dateRange!;
  let periodUnit: TimeUnit;
  let list: { from: number; to: number }[] | null;
  if (td.granularity === null) {
    periodUnit = alignment(range, m, td);
    list = [{ from: range.from, to: range.to }];
  } else {
    if (!isBuiltInGranularity(td.granularity))
      throw new UserError(
        `${m.path}: a rolling window over the custom granularity ${td.granularity} of ${td.member.path} is not supported`,
      );
    periodUnit = td.granularity;
    list = periods(
      { kind: 'trunc', unit: periodUnit, offset: null, origin: 0 },
      true,
      range.from,
      range.to,
      MAX_PERIODS,
    );
    if (list === null)
      throw new UserError(`Date range of ${td.member.path} has more than ${MAX_PERIODS} periods`);
  }
  const windowUnit = unitOfWindow(window);
  return {
    td,
    window,
    periods: list,
    innerGranularity: windowUnit === null ? periodUnit : finer(periodUnit, windowUnit),
    innerRange: reach(window, list[0].from, list[list.length - 1].to),
  };
}

/** True when buckets of `b` nest in buckets of `a`. */
function coarserOrSame(a: TimeUnit, b: TimeUnit): boolean {
  if ((a === 'week') !== (b === 'week') && UNITS.indexOf(a) > UNITS.indexOf('week')) return false;
  return UNITS.indexOf(a) >= UNITS.indexOf(b);
}

/** A granularity whose buckets nest in both: weeks do not nest in months, days nest in both. */
function finer(a: TimeUnit, b: TimeUnit): TimeUnit {
  if (coarserOrSame(a, b)) return b;
  if (coarserOrSame(b, a)) return a;
  return 'day';
}

/** The coarsest granularity every bound of a window falls on; null when it has no bound. */
function unitOfWindow(w: RollingWindow): TimeUnit | null {
  if (w.type === 'to_date') return w.granularity as TimeUnit;
  const units = [w.trailing, w.leading]
    .filter((i): i is Interval => i !== null && i !== 'unbounded')
    .map(unitOfInterval)
    .filter((u): u is TimeUnit => u !== null);
  return units.reduce<TimeUnit | null>((acc, u) => (acc === null ? u : finer(acc, u)), null);
}

function unitOfInterval(i: Interval): TimeUnit | null {
  if (i.seconds % 60 !== 0) return 'second';
  if (i.seconds % 3600 !== 0) return 'minute';
  if (i.seconds % 86_400 !== 0) return 'hour';
  if (i.seconds !== 0 || i.days % 7 !== 0) return 'day';
  if (i.days !== 0) return i.months === 0 ? 'week' : 'day';
  if (i.months === 0) return null;
  return i.months % 12 === 0 ? 'year' : i.months % 3 === 0 ? 'quarter' : 'month';
}

/** A date range without a granularity is one period: its bounds set the inner grain. */
function alignment(range: LocalRange, m: Measure, td: TimeDimensionSpec): TimeUnit {
  const unit = (['day', 'hour', 'minute', 'second'] as const).find(
    (u) => startOf(range.from, u) === range.from && startOf(range.to + 1, u) === range.to + 1,
  );
  if (!unit)
    throw new UserError(
      `${m.path}: the date range of ${td.member.path} must start and end on whole seconds for a rolling window`,
    );
  return unit;
}

/** Every time the windows of the periods from `from` to `to` reach (local, both ends inclusive). */
function reach(w: RollingWindow, from: number, to: number): LocalRange | null {
  if (w.type === 'to_date') return { from: startOf(from, w.granularity as TimeUnit), to };
  if (w.trailing === 'unbounded' || w.leading === 'unbounded') return null;
  // offset start or end moves a bound within the period: the union reaches no further than this
  return {
    from: w.trailing ? move(from, w.trailing, -1) : from,
    to: w.leading ? move(to + 1, w.leading, 1) - 1 : to,
  };
}

function move(local: number, i: Interval, sign: 1 | -1): number {
  const months = i.months ? add(local, sign * i.months, 'month') : local;
  return add(months, sign * i.days, 'day') + sign * i.seconds * 1000;
}

/** A grain column as multi-stage.ts keeps it. */
type Column = Pick<GrainCol, 'alias' | 'dim' | 'granularity' | 'member'>;

/**
 * What each grain column holds in the stage's rows: an inner column, the period's start (the
 * anchor's own column), or that start truncated to a coarser unit (the anchor's dimension at
 * another granularity). Anything else of the anchor's dimension has no single value per period.
 */
export function periodColumns(m: Measure, r: RollingStage, G: readonly Column[]): PeriodColumn[] {
  const dim = r.td.member.member as Dimension;
  const by = r.td.granularity;
  return G.map((c) => {
    if (c.dim !== dim) return { alias: c.alias, expr: ident('ms_in', c.alias) };
    if (by !== null && c.granularity === by) return { alias: c.alias, expr: 'period' };
    const unit = c.granularity;
    if (unit === null || by === null || !isBuiltInGranularity(unit) || !coarserOrSame(unit, by as TimeUnit))
      throw new UserError(
        `${m.path}: a rolling window over ${dim.path} by ${by ?? 'its date range'} cannot also group by ${c.member.path}${unit ? ` by ${unit}` : ''}`,
      );
    return { alias: c.alias, expr: unit };
  });
}

export interface PeriodColumn {
  readonly alias: string;
  readonly expr: Expr | 'period' | TimeUnit;
}

/**
 * The stage's rows: one per period (and values of the other grain columns in its window), the
 * measure's aggregate over the inner rows in the window. `time` is the inner row's time bucket.
 */
export function rollingSelect(
  stage: RollingStage,
  inner: Source,
  time: Expr,
  columns: readonly PeriodColumn[],
  value: SelectItem,
): Select {
  const local = (v: number): Expr => ({ kind: 'timestamp', value: formatLocal(v), local: true });
  const dateFrom = ident('series', 'date_from');
  const dateTo = ident('series', 'date_to');
  const items: SelectItem[] = columns.map((c) => ({
    alias: c.alias,
    expr:
      c.expr === 'period'
        ? dateFrom
        : typeof c.expr === 'string'
          ? { kind: 'dateTrunc', unit: c.expr, expr: dateFrom }
          : c.expr,
  }));
  return select({
    items: [...items, value],
    from: {
      kind: 'values',
      rows: stage.periods.map((p) => [local(p.from), local(p.to)]),
      columns: ['date_from', 'date_to'],
      alias: 'series',
    },
    joins: [
      {
        type: 'left',
        source: inner,
        on: windowCondition(stage.window, false, time, dateFrom, dateTo, dateFrom, false),
      },
    ],
    groupBy: items.map((_, i) => integer(i + 1)),
  });
}
