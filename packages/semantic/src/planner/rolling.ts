import { UserError } from '../errors.ts';
import { isBuiltInGranularity } from '../model/interval.ts';
import type { Dimension, Measure, Model, RollingWindow } from '../model/types.ts';
import { add, endOf, formatLocal, startOf, type TimeUnit } from '../query/time.ts';
import type { TimeDimensionSpec } from '../query/types.ts';
import type { PlannedColumn } from './columns.ts';
import { leafAlias } from './fanout.ts';
import { aggregateOfType, dimensionExpr, measureArg } from './member-sql.ts';
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

/**
 * Rolling-window measures, as Cube computes them: a series of periods (one row per granularity
 * step of the date range, generated here and bound as parameters) LEFT JOINed to the ungrouped
 * rows on the window condition (BaseQuery.rollingWindowDateJoinCondition), then aggregated per
 * period. The base rows are not limited to the date range: a trailing window reaches before it.
 */
export function rollingSubquery(
  model: Model,
  leaf: Measure,
  td: TimeDimensionSpec,
  dimCols: readonly PlannedColumn[],
  dimItems: readonly SelectItem[],
  from: Source,
  joins: readonly JoinNode[],
  where: Expr | null,
  timezone: string,
): Select {
  const g = td.granularity!;
  if (!isBuiltInGranularity(g))
    throw new UserError(`Rolling window measure ${leaf.path} needs a built-in granularity, not '${g}'`);
  const window = leaf.rollingWindow!;
  const tdKey = `${td.member.path}.${g}`;
  const others = dimItems.filter((_, i) => dimCols[i].key !== tdKey);
  const base = select({
    items: [
      {
        expr: { kind: 'toLocal', expr: dimensionExpr(model, td.member.member as Dimension), timezone },
        alias: '__t',
      },
      ...others,
      { expr: measureArg(model, leaf, raw('1')), alias: '__m' },
    ],
    from,
    joins,
    where,
  });
  const t = ident('base', '__t');
  return select({
    items: [
      ...dimItems.map((d, i) => ({
        expr: dimCols[i].key === tdKey ? ident('series', 'date_from') : ident('base', d.alias),
        alias: d.alias,
      })),
      { expr: rollingAggregate(leaf, ident('base', '__m')), alias: leafAlias(leaf) },
    ],
    from: { kind: 'values', rows: series(td, g), columns: ['date_from', 'date_to'], alias: 'series' },
    joins: [
      {
        type: 'left',
        source: { kind: 'subquery', select: base, alias: 'base' },
        on: windowCondition(window, t),
      },
    ],
    groupBy: dimItems.map((_, i) => integer(i + 1)),
  });
}

function series(td: TimeDimensionSpec, g: TimeUnit): Expr[][] {
  const rows: Expr[][] = [];
  const range = td.dateRange!;
  for (let s = startOf(range.from, g); s <= range.to; s = add(s, 1, g)) {
    if (rows.length >= MAX_PERIODS)
      throw new UserError(`Date range of ${td.member.path} has more than ${MAX_PERIODS} ${g} periods`);
    rows.push([
      { kind: 'timestamp', value: formatLocal(s), local: true },
      { kind: 'timestamp', value: formatLocal(endOf(s, g)), local: true },
    ]);
  }
  return rows;
}

function windowCondition(w: RollingWindow, t: Expr): Expr {
  const from = ident('series', 'date_from');
  const to = ident('series', 'date_to');
  if (w.type === 'to_date') {
    return and([
      { kind: 'binary', op: '>=', left: t, right: { kind: 'dateTrunc', unit: w.granularity!, expr: from } },
      { kind: 'binary', op: '<=', left: t, right: to },
    ])!;
  }
  const conditions: Expr[] = [];
  if (w.trailing !== 'unbounded') {
    const start = w.offset === 'start' ? from : to;
    const bound: Expr = w.trailing
      ? { kind: 'binary', op: '-', left: start, right: { kind: 'interval', interval: w.trailing } }
      : start;
    conditions.push({ kind: 'binary', op: w.offset === 'start' ? '>=' : '>', left: t, right: bound });
  }
  if (w.leading !== 'unbounded') {
    const end = w.offset === 'end' ? to : from;
    const bound: Expr = w.leading
      ? { kind: 'binary', op: '+', left: end, right: { kind: 'interval', interval: w.leading } }
      : end;
    conditions.push({ kind: 'binary', op: w.offset === 'end' ? '<=' : '<', left: t, right: bound });
  }
  return and(conditions) ?? { kind: 'bool', value: true };
}

function rollingAggregate(m: Measure, arg: Expr): Expr {
  const aggregate = aggregateOfType(m.type, arg);
  if (!aggregate)
    throw new UserError(`Rolling window is not supported on measure ${m.path} of type ${m.type}`);
  return aggregate;
}
