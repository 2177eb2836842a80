import { UserError } from '../errors.ts';
import type { Cube, Dimension, Measure, Model, RollingWindow } from '../model/types.ts';
import { formatLocal, startOf, type TimeUnit } from '../query/time.ts';
import type { TimeDimensionSpec } from '../query/types.ts';
import type { PlannedColumn } from './columns.ts';
import { leafAlias } from './fanout.ts';
import { type GranularitySpec, periods } from './granularity.ts';
import { aggregateOfType, countValue, dimensionExpr, measureArg } from './member-sql.ts';
import {
  and,
  type Expr,
  ident,
  integer,
  type JoinNode,
  raw,
  type Select,
  type SelectItem,
  type Source,
  select,
} from './nodes.ts';

const MAX_PERIODS = 10_000;

/** What a rolling-window measure is computed over. */
export interface RollingContext {
  /** The time dimension whose date range anchors the windows. */
  readonly td: TimeDimensionSpec;
  /** Its granularity; null when the query has none (the whole date range is one period). */
  readonly spec: GranularitySpec | null;
  readonly dimCols: readonly PlannedColumn[];
  readonly dimItems: readonly SelectItem[];
  readonly from: Source;
  readonly joins: readonly JoinNode[];
  /** Filters and segments, without the anchoring date range (a window reaches outside it). */
  readonly where: Expr | null;
  readonly timezone: string;
  /** The measure's cube is multiplied by the joins: each of its rows counts once. */
  readonly multiplied: Cube | null;
}

/**
 * Rolling-window measures, as Cube computes them (BaseQuery.overTimeSeriesQuery): the periods of
 * the date range (generated here, bound as parameters) LEFT JOINed to the rows on the window
 * condition (rollingWindowDateJoinCondition; runningTotalDateJoinCondition for `running_total`,
 * whose window starts at the date range), then aggregated per period. The rows are prefiltered
 * on the union of all windows, which may reach before the range.
 */
export function rollingSubquery(model: Model, leaf: Measure, ctx: RollingContext): Select {
  const window = leaf.rollingWindow!;
  const range = ctx.td.dateRange!;
  const list = ctx.spec
    ? periods(ctx.spec, ctx.td.granularity !== null && !customOf(ctx.td), range.from, range.to, MAX_PERIODS)
    : [{ from: range.from, to: range.to }];
  if (list === null)
    throw new UserError(`Date range of ${ctx.td.member.path} has more than ${MAX_PERIODS} periods`);
  const tdKey = ctx.spec ? `${ctx.td.member.path}.${ctx.td.granularity}` : null;
  const others = ctx.dimItems.filter((_, i) => ctx.dimCols[i].key !== tdKey);
  const running = leaf.type === 'running_total';
  const local = (v: number): Expr => ({ kind: 'timestamp', value: formatLocal(v), local: true });
  const rangeStart = local(range.from);
  const t = ident('base', '__t');
  const rowTime: Expr = {
    kind: 'toLocal',
    expr: dimensionExpr(model, ctx.td.member.member as Dimension),
    timezone: ctx.timezone,
  };
  const pkItems = (ctx.multiplied?.primaryKeys ?? []).map((pk, i) => ({
    expr: dimensionExpr(model, pk),
    alias: `__pk_${i}`,
  }));
  // the rows a window may take; a multiplied cube's rows once per dimension values (Cube's keys)
  const baseRows = (window: Expr, bounds: Expr[], withTime: boolean, alias = 'base'): Source => ({
    kind: 'subquery',
    alias,
    select: select({
      distinct: ctx.multiplied !== null,
      items: [
        ...(withTime ? [{ expr: rowTime, alias: '__t' }] : []),
        ...others,
        ...pkItems,
        { expr: measureArg(model, leaf, countValue(model, leaf) ?? raw('1')), alias: '__m' },
      ],
      from: ctx.from,
      joins: ctx.joins,
      where: and([...(ctx.where ? [ctx.where] : []), ...bounds, window]),
    }),
  });
  if (!ctx.spec) {
    // no granularity: one window over the whole range, grouped by the other dimensions
    const whole = windowCondition(
      window,
      running,
      rowTime,
      local(range.from),
      local(range.to),
      rangeStart,
      false,
    );
    const bounds = rawBounds(model, ctx, window, running, range.from, range.to, range.from);
    return select({
      items: [
        ...others.map((d) => ({ expr: ident('base', d.alias), alias: d.alias })),
        { expr: plainAggregate(leaf), alias: leafAlias(leaf) },
      ],
      from: baseRows(whole, bounds, false),
      groupBy: others.map((_, i) => integer(i + 1)),
    });
  }
  const first = local(list[0].from);
  const last = local(list[list.length - 1].to);
  const spanning = windowCondition(window, running, rowTime, first, last, rangeStart, true);
  const dateFrom = ident('series', 'date_from');
  const dateTo = ident('series', 'date_to');
  const daily = ADDITIVE.has(leaf.type) && dayAligned(list, window, range.from, running);
  const bounds = rawBounds(model, ctx, window, running, list[0].from, list[list.length - 1].to, range.from);
  return select({
    items: [
      ...ctx.dimItems.map((d, i) => ({
        expr: ctx.dimCols[i].key === tdKey ? dateFrom : ident('base', d.alias),
        alias: d.alias,
      })),
      { expr: daily ? combined(leaf) : seriesAggregate(leaf), alias: leafAlias(leaf) },
    ],
    from: {
      kind: 'values',
      rows: list.map((p) => [local(p.from), local(p.to)]),
      columns: ['date_from', 'date_to'],
      alias: 'series',
    },
    joins: [
      {
        type: 'left',
        source: daily
          ? dailyRows(leaf, baseRows(spanning, bounds, true, 'rows'), others)
          : baseRows(spanning, bounds, true),
        on: windowCondition(window, running, t, dateFrom, dateTo, rangeStart, false),
      },
    ],
    groupBy: ctx.dimItems.map((_, i) => integer(i + 1)),
  });
}

/**
 * Additive measures over windows whose every bound falls on a local midnight: the rows summed
 * per day first, as Cube groups them below the window for additive measures
 * (overTimeSeriesQuery's granularityOverride), so that the window join meets days, not rows.
 */
const ADDITIVE = new Set<Measure['type']>(['sum', 'count', 'min', 'max', 'running_total']);
const DAY = 86_400_000;
const UNITS = new Set<string>(['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);

function dayAligned(
  list: readonly { from: number; to: number }[],
  w: RollingWindow,
  rangeFrom: number,
  running: boolean,
): boolean {
  const midnight = (v: number) => ((v % DAY) + DAY) % DAY === 0;
  if (!list.every((p) => midnight(p.from) && midnight(p.to + 1))) return false;
  if (running) return midnight(rangeFrom);
  if (w.type === 'to_date') return ['day', 'week', 'month', 'quarter', 'year'].includes(w.granularity ?? '');
  const whole = (i: RollingWindow['trailing']) => i === null || i === 'unbounded' || i.seconds === 0;
  return whole(w.trailing) && whole(w.leading);
}

function dailyRows(leaf: Measure, rows: Source, others: readonly SelectItem[]): Source {
  const fn = leaf.type === 'min' || leaf.type === 'max' ? leaf.type : leaf.type === 'count' ? 'count' : 'sum';
  const day: Expr = { kind: 'dateTrunc', unit: 'day', expr: ident('rows', '__t') };
  return {
    kind: 'subquery',
    alias: 'base',
    select: select({
      items: [
        { expr: day, alias: '__t' },
        ...others.map((d) => ({ expr: ident('rows', d.alias), alias: d.alias })),
        { expr: { kind: 'agg', fn, distinct: false, arg: ident('rows', '__m') }, alias: '__m' },
      ],
      from: rows,
      groupBy: [day, ...others.map((d) => ident('rows', d.alias))],
    }),
  };
}

/** A period's value from the daily partial aggregates: counts and sums add up. */
function combined(m: Measure): Expr {
  const fn = m.type === 'min' || m.type === 'max' ? m.type : 'sum';
  return { kind: 'agg', fn, distinct: false, arg: ident('base', '__m') };
}

function customOf(td: TimeDimensionSpec): boolean {
  const m = td.member.member;
  return m.kind === 'dimension' && td.granularity !== null && m.granularities.has(td.granularity);
}

/**
 * The same rows as the window condition, roughly: the raw UTC column between two UTC instants, a
 * superset of the rows the (local time) window condition keeps. The exact condition still
 * follows; this one lets the engine skip rows without converting each row's time to the query's
 * zone first (DuckDB prunes row groups on it, PostgreSQL evaluates the cheap test first). Local
 * bounds widen to UTC by a day, more than any zone's offset (14 hours at most), and calendar
 * intervals by 31 days a month, so no DST rule or month length can make the superset miss a row.
 */
function rawBounds(
  model: Model,
  ctx: RollingContext,
  w: RollingWindow,
  running: boolean,
  from: number,
  to: number,
  rangeFrom: number,
): Expr[] {
  const column = dimensionExpr(model, ctx.td.member.member as Dimension);
  const reach = (i: RollingWindow['trailing']): number | null =>
    i === 'unbounded'
      ? null
      : i === null
        ? 0
        : (Math.abs(i.months) * 31 + Math.abs(i.days)) * DAY + Math.abs(i.seconds) * 1000;
  let lower: number | null;
  let upper: number | null;
  if (running) [lower, upper] = [rangeFrom, to];
  else if (w.type === 'to_date') {
    const unit = w.granularity as TimeUnit;
    // the window starts at the start of the first period's day, week, month, quarter or year
    [lower, upper] = [UNITS.has(unit) ? startOf(from, unit) : from - 366 * DAY, to];
  } else {
    const back = reach(w.trailing);
    const ahead = reach(w.leading);
    // offset start/end only moves a bound within [from, to]; both ends of the union are covered
    lower = back === null ? null : from - back;
    upper = ahead === null ? null : to + ahead;
  }
  const instant = (local: number): Expr => ({ kind: 'timestamp', value: formatLocal(local), local: false });
  return [
    ...(lower === null
      ? []
      : [{ kind: 'binary', op: '>=', left: column, right: instant(lower - DAY) } as const]),
    ...(upper === null
      ? []
      : [{ kind: 'binary', op: '<=', left: column, right: instant(upper + DAY) } as const]),
  ];
}

/**
 * The rows of a period [from, to]. With `spanning`, the union over periods from `from` to `to`
 * (Cube's isFromStartToEnd): trailing bounds count from the first start, leading from the last end.
 */
export function windowCondition(
  w: RollingWindow,
  running: boolean,
  t: Expr,
  from: Expr,
  to: Expr,
  rangeStart: Expr,
  spanning: boolean,
): Expr {
  if (running) {
    return and([
      { kind: 'binary', op: '>=', left: t, right: rangeStart },
      { kind: 'binary', op: '<=', left: t, right: to },
    ])!;
  }
  if (w.type === 'to_date') {
    return and([
      { kind: 'binary', op: '>=', left: t, right: { kind: 'dateTrunc', unit: w.granularity!, expr: from } },
      { kind: 'binary', op: '<=', left: t, right: to },
    ])!;
  }
  const conditions: Expr[] = [];
  if (w.trailing !== 'unbounded') {
    const start = spanning || w.offset === 'start' ? from : to;
    const bound: Expr = w.trailing
      ? { kind: 'binary', op: '-', left: start, right: { kind: 'interval', interval: w.trailing } }
      : start;
    conditions.push({ kind: 'binary', op: w.offset === 'start' ? '>=' : '>', left: t, right: bound });
  }
  if (w.leading !== 'unbounded') {
    const end = spanning || w.offset === 'end' ? to : from;
    const bound: Expr = w.leading
      ? { kind: 'binary', op: '+', left: end, right: { kind: 'interval', interval: w.leading } }
      : end;
    conditions.push({ kind: 'binary', op: w.offset === 'end' ? '<=' : '<', left: t, right: bound });
  }
  return and(conditions) ?? { kind: 'bool', value: true };
}

/**
 * The aggregate over a period's rows. Cube sums counts of rows grouped below the period
 * (aggregateOnGroupedColumn), so a count over an empty window is NULL, not 0.
 */
function seriesAggregate(m: Measure): Expr {
  const arg = ident('base', '__m');
  if (m.type === 'count') {
    const one: Expr = {
      kind: 'case',
      whens: [
        { when: { kind: 'isNull', expr: ident('base', '__t'), negated: false }, result: raw('NULL') },
        { when: { kind: 'isNull', expr: arg, negated: true }, result: raw('1') },
      ],
      else: raw('0'),
    };
    return { kind: 'agg', fn: 'sum', distinct: false, arg: one };
  }
  return plainAggregate(m);
}

function plainAggregate(m: Measure): Expr {
  const aggregate = aggregateOfType(m.type, ident('base', '__m'));
  if (!aggregate)
    throw new UserError(`Rolling window is not supported on measure ${m.path} of type ${m.type}`);
  return aggregate;
}
