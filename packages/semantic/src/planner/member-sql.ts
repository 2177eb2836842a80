import { UserError } from '../errors.ts';
import type { Dimension, Measure, Model, SqlTemplate } from '../model/types.ts';
import { bucketExpr, granularitySpec } from './granularity.ts';
import { and, type Expr, freeze, ident, param, raw } from './nodes.ts';

/**
 * Member SQL -> expressions. `{CUBE}` becomes the cube's alias (its name, as Cube does),
 * `{dimension}` inlines that dimension's SQL, `{measure}` (in calculated measures) asks `leaf`
 * for the measure's value, which is an aggregate or a column of a pre-aggregated subquery.
 */
export function renderTemplate(
  model: Model,
  t: SqlTemplate,
  leaf?: (m: Measure) => Expr,
  args: readonly Expr[] = [],
): Expr {
  const parts: (string | Expr)[] = [];
  for (const p of t) {
    if (typeof p === 'string') parts.push(p);
    else if (p.ref === 'cube') parts.push(ident(p.cube));
    else if (p.ref === 'cubeSql') parts.push(cubeSqlExpr(model, p.cube));
    else if (p.ref === 'timeShift')
      parts.push({
        kind: 'timeShift',
        expr: renderTemplate(model, p.sql, leaf, args),
        interval: p.interval,
        forward: p.forward,
      });
    else if (p.ref === 'castText')
      parts.push({ kind: 'func', name: 'castText', args: [renderTemplate(model, p.sql, leaf, args)] });
    else if (p.ref === 'arg') {
      if (args[p.index] === undefined)
        throw new UserError('A filter callback parameter is used outside its callback');
      parts.push(args[p.index]);
    } else if (p.ref !== 'member') parts.push({ kind: 'context', part: p });
    else {
      const cube = model.cubes.get(p.cube)!;
      const dim = cube.dimensions.get(p.member);
      if (dim) parts.push(dimensionExpr(model, dim));
      else {
        const measure = cube.measures.get(p.member);
        if (measure && leaf) parts.push(measureValue(model, measure, leaf));
        else if (measure) throw new UserError(`Measure ${measure.path} cannot be used here`);
        else parts.push(renderTemplate(model, cube.segments.get(p.member)!.sql));
      }
    }
  }
  return { kind: 'raw', parts };
}

/** `{cube.sql()}`: the table, or the cube's SQL as a subquery. */
function cubeSqlExpr(model: Model, name: string): Expr {
  const cube = model.cubes.get(name)!;
  return cube.sqlTable !== null ? raw(cube.sqlTable) : raw('(', renderTemplate(model, cube.sql!), ')');
}

/** The alias of a sub_query dimension's subquery (planner/sub-query.ts). */
export function subQueryAlias(dim: Dimension): string {
  return `${dim.cube}__${dim.name}__sq`;
}

const dimensionCache = new WeakMap<Dimension, Expr>();

export function dimensionExpr(model: Model, dim: Dimension): Expr {
  const hit = dimensionCache.get(dim);
  if (hit) return hit;
  // read from its subquery, joined by sub-query.ts wherever the cube is
  if (dim.subQuery) return freeze(ident(subQueryAlias(dim), 'value'));
  let expr: Expr;
  if (dim.case) {
    expr = {
      kind: 'case',
      whens: dim.case.when.map((w) => ({ when: renderTemplate(model, w.sql), result: param(w.label) })),
      else: dim.case.else === null ? null : param(dim.case.else),
    };
  } else expr = renderTemplate(model, dim.sql);
  freeze(expr);
  dimensionCache.set(dim, expr);
  return expr;
}

/** A time dimension in the query zone, truncated to a built-in or custom granularity. */
export function timeExpr(
  model: Model,
  dim: Dimension,
  granularity: string | null,
  timezone: string,
  now: number,
): Expr {
  const local: Expr = { kind: 'toLocal', expr: dimensionExpr(model, dim), timezone };
  if (granularity === null) return local;
  return bucketExpr(granularitySpec(dim, granularity, timezone, now), local);
}

export function isCalculated(m: Measure): boolean {
  return m.type === 'number' || m.type === 'string' || m.type === 'time' || m.type === 'boolean';
}

/** Calculated measures referencing other measures are computed from those ("leaves"). */
export function referencesMeasures(model: Model, m: Measure): boolean {
  // a multi-stage measure is computed in its own stage (multi-stage.ts), never inlined
  if (!isCalculated(m) || m.sql === null || m.multiStage) return false;
  return m.sql.some(
    (p) => typeof p !== 'string' && p.ref === 'member' && model.cubes.get(p.cube)!.measures.has(p.member),
  );
}

export function leavesOf(model: Model, m: Measure, out: Measure[] = []): Measure[] {
  if (!referencesMeasures(model, m)) {
    if (!out.includes(m)) out.push(m);
    return out;
  }
  for (const p of m.sql!) {
    if (typeof p === 'string' || p.ref !== 'member') continue;
    const target = model.cubes.get(p.cube)!.measures.get(p.member);
    if (target) leavesOf(model, target, out);
  }
  return out;
}

/** Value of a measure given its leaves' values. */
export function measureValue(model: Model, m: Measure, leaf: (m: Measure) => Expr): Expr {
  if (!referencesMeasures(model, m)) return leaf(m);
  return renderTemplate(model, m.sql!, leaf);
}

/** The row-level argument of a measure, with its `filters` folded in as CASE WHEN. */
export function measureArg(model: Model, m: Measure, countValue: Expr): Expr {
  const base = m.sql === null ? countValue : renderTemplate(model, m.sql);
  if (m.filters.length === 0) return base;
  const when = and(m.filters.map((f) => renderTemplate(model, f)))!;
  return { kind: 'case', whens: [{ when, result: base }], else: null };
}

/**
 * The aggregate of a leaf measure. `count` without sql counts the primary key, as Cube does, so
 * that rows a LEFT JOIN adds for a missing match are not counted (`count(*)` without a key);
 * filters become `count(CASE WHEN ... THEN pk END)`. `count_distinct_approx` prints as
 * approx_count_distinct where the dialect has it.
 */
export function aggregate(model: Model, m: Measure): Expr {
  if (isCalculated(m)) return renderTemplate(model, m.sql!);
  const pk = countValue(model, m);
  if (m.type === 'count' && m.sql === null && m.filters.length === 0)
    return { kind: 'agg', fn: 'count', distinct: false, arg: pk };
  const arg = measureArg(model, m, pk ?? raw('1'));
  // running_total and rolling windows outside a time series fall back to a sum
  return aggregateOfType(m.type, arg) ?? { kind: 'agg', fn: 'sum', distinct: false, arg };
}

/** The aggregate a measure type names over `arg`; null for types that are not aggregates. */
export function aggregateOfType(type: Measure['type'], arg: Expr): Expr | null {
  switch (type) {
    case 'count':
      return { kind: 'agg', fn: 'count', distinct: false, arg };
    case 'count_distinct':
      return { kind: 'agg', fn: 'count', distinct: true, arg };
    case 'count_distinct_approx':
      return { kind: 'agg', fn: 'approxCountDistinct', distinct: false, arg };
    case 'avg':
    case 'min':
    case 'max':
    case 'sum':
      return { kind: 'agg', fn: type, distinct: false, arg };
    case 'running_total':
      return { kind: 'agg', fn: 'sum', distinct: false, arg };
    case 'median':
      return { kind: 'agg', fn: 'median', distinct: false, arg };
    default:
      return null;
  }
}

/**
 * What `count` counts: the primary key, or with several the concatenation of their text (Cube's
 * primaryKeyCount), so that rows a LEFT JOIN adds without a match are not counted. Null without
 * a primary key: `count(*)`.
 */
export function countValue(model: Model, m: Measure): Expr | null {
  const pks = model.cubes.get(m.cube)!.primaryKeys;
  if (pks.length === 0) return null;
  if (pks.length === 1) return dimensionExpr(model, pks[0]);
  return raw(
    ...pks.flatMap((pk, i): (string | Expr)[] => [
      ...(i === 0 ? [] : [' || ']),
      { kind: 'func', name: 'castText', args: [dimensionExpr(model, pk)] },
    ]),
  );
}

/**
 * Ungrouped queries return measures row by row (Cube's renderSqlMeasure for ungrouped queries):
 * the argument instead of the aggregate, and for counts 1 where the row counts, else NULL.
 */
export function ungroupedValue(model: Model, m: Measure): Expr {
  if (isCalculated(m)) return renderTemplate(model, m.sql!);
  const arg = measureArg(model, m, countValue(model, m) ?? raw('1'));
  if (m.type !== 'count' && m.type !== 'count_distinct' && m.type !== 'count_distinct_approx') return arg;
  if (arg.kind === 'raw' && arg.parts.length === 1 && arg.parts[0] === '1') return arg;
  return {
    kind: 'case',
    whens: [{ when: { kind: 'isNull', expr: arg, negated: true }, result: raw('1') }],
    else: null,
  };
}
