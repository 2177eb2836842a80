import { UserError } from '../errors.ts';
import { memberRefs } from '../model/template.ts';
import type { Dimension, Measure, Model } from '../model/types.ts';
import type { FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { dimensionExpr, subQueryAlias } from './member-sql.ts';
import { and, type Expr, ident, type JoinNode, type Select, type Source } from './nodes.ts';
import { cubesOfMember, filterMembers } from './required.ts';

/**
 * `sub_query` dimensions (https://cube.dev/docs/product/data-modeling/concepts/calculated-members#subquery-dimensions):
 * a measure of another cube as a dimension of this one. The value comes from a subquery that
 * computes the dimension's SQL grouped by the cube's primary key (planned as any query, row-level
 * policies included), LEFT JOINed wherever the cube is in a FROM; a member's SQL reads it as
 * `<alias>.value`, so that member SQL stays query-free. With `propagate_filters_to_sub_query` the
 * query's filters on cubes the subquery joins apply inside it too.
 */

/** The dimension's SQL as the one measure of its subquery: a calculated measure of its cube. */
export function subQueryMeasure(dim: Dimension): Measure {
  return {
    kind: 'measure',
    cube: dim.cube,
    name: dim.name,
    path: dim.path,
    title: null,
    description: null,
    meta: null,
    public: true,
    declaredPublic: null,
    loc: dim.loc,
    type: 'number',
    sql: dim.sql,
    filters: [],
    rollingWindow: null,
    format: null,
    drillMembers: [],
  };
}

/**
 * The ResolvedQuery a sub_query dimension's subquery answers. `filters` are the outer query's
 * (its date ranges included), kept when the dimension propagates them and every cube they read is
 * one the subquery joins anyway.
 */
export function subQueryQuery(
  model: Model,
  dim: Dimension,
  outer: ResolvedQuery,
  filters: readonly FilterNode[],
): ResolvedQuery {
  const cube = model.cubes.get(dim.cube)!;
  if (cube.primaryKeys.length === 0)
    throw new UserError(
      `cube ${cube.name}: sub_query dimension ${dim.path} needs a primary key on ${cube.name}`,
    );
  const member = (m: Dimension | Measure): QueryMember => ({
    path: m.path,
    owner: m.cube,
    member: m,
    view: null,
    viewMember: null,
  });
  const readsMeasure = memberRefs(dim.sql).some((r) => model.cubes.get(r.cube)?.measures.has(r.member));
  if (!readsMeasure)
    throw new UserError(`sub_query dimension ${dim.path} must reference a measure of another cube`);
  const measure = member(subQueryMeasure(dim));
  const reach = new Set([dim.cube, ...cubesOfMember(model, measure.member)]);
  const reads = (f: FilterNode) =>
    filterMembers([f]).every((m) => cubesOfMember(model, m.member).every((c) => reach.has(c)));
  return {
    measures: [measure],
    dimensions: cube.primaryKeys.map(member),
    timeDimensions: [],
    segments: [],
    filters: dim.propagateFiltersToSubQuery ? filters.filter(reads) : [],
    security: [],
    order: [],
    limit: 0,
    offset: 0,
    total: false,
    timezone: outer.timezone,
    ungrouped: false,
  };
}

/**
 * Adds, to every SELECT whose own expressions read a sub_query dimension, the LEFT JOIN of its
 * subquery right after the cube's FROM item. `planSub` plans one (value column `value`, primary
 * keys `pk_0`, `pk_1`, ...).
 */
export function attachSubQueries(model: Model, select: Select, planSub: (dim: Dimension) => Select): Select {
  const visit = (s: Select): Select => {
    const from = nested(s.from);
    let joins = s.joins.map((j): JoinNode => ({ ...j, source: nested(j.source) }));
    for (const alias of aliasesRead(s)) {
      const dim = dimensions(model).get(alias);
      if (!dim || joins.some((j) => j.source.alias === alias)) continue;
      const at = from.alias === dim.cube ? 0 : joins.findIndex((j) => j.source.alias === dim.cube) + 1;
      if (at === 0 && from.alias !== dim.cube) continue;
      const pks = model.cubes.get(dim.cube)!.primaryKeys;
      const join: JoinNode = {
        type: 'left',
        source: { kind: 'subquery', select: planSub(dim), alias },
        on: and(
          pks.map(
            (pk, i): Expr => ({
              kind: 'binary',
              op: '=',
              left: dimensionExpr(model, pk),
              right: ident(alias, `pk_${i}`),
            }),
          ),
        )!,
      };
      joins = [...joins.slice(0, at), join, ...joins.slice(at)];
    }
    return { ...s, from, joins };
  };
  const nested = (source: Source): Source =>
    source.kind === 'subquery' ? { ...source, select: visit(source.select) } : source;
  return visit(select);
}

const byAlias = new WeakMap<Model, Map<string, Dimension>>();

function dimensions(model: Model): Map<string, Dimension> {
  let map = byAlias.get(model);
  if (!map) {
    map = new Map();
    for (const cube of model.cubes.values())
      for (const d of cube.dimensions.values()) if (d.subQuery) map.set(subQueryAlias(d), d);
    byAlias.set(model, map);
  }
  return map;
}

/** First path segments of the identifiers a SELECT's own expressions read (not its subqueries'). */
function aliasesRead(s: Select): Set<string> {
  const out = new Set<string>();
  const expr = (x: Expr | null): void => {
    if (x === null) return;
    for (const child of children(x)) expr(child);
    if (x.kind === 'ident' && x.path.length > 1) out.add(x.path[0]);
  };
  for (const i of s.items) expr(i.expr);
  for (const j of s.joins) expr(j.on);
  if (s.from.kind === 'sql') expr(s.from.sql);
  expr(s.where);
  s.groupBy.forEach(expr);
  expr(s.having);
  for (const o of s.orderBy) expr(o.expr);
  return out;
}

/** The expressions directly inside one. */
function children(x: Expr): readonly Expr[] {
  switch (x.kind) {
    case 'raw':
      return x.parts.filter((p): p is Expr => typeof p !== 'string');
    case 'toLocal':
    case 'dateTrunc':
    case 'timeBucket':
    case 'timeShift':
    case 'not':
    case 'isNull':
      return [x.expr];
    case 'agg':
      return x.arg ? [x.arg] : [];
    case 'func':
      return x.args;
    case 'binary':
      return [x.left, x.right];
    case 'logical':
      return x.items;
    case 'in':
      return [x.expr, ...x.values];
    case 'like':
      return [x.expr, x.value];
    case 'case':
      return [...x.whens.flatMap((w) => [w.when, w.result]), ...(x.else ? [x.else] : [])];
    default:
      return [];
  }
}
