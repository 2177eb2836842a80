import { type CompiledQuery, type CompileQueryOptions, DIALECTS, nowMillis } from '../compile-query.ts';
import { printSelect } from '../dialect/print.ts';
import type { Cube, CubeMember, Dimension, Measure, Model, SqlTemplate } from '../model/types.ts';
import { planQuery } from '../planner/plan.ts';
import { joinTree } from '../planner/query-tree.ts';
import type { CubeQuery, FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { isAdditive, type RollupSource, rollupColumns } from './build.ts';
import { cubePolicy, memberKey } from './match.ts';

/**
 * `query` compiled against a built rollup that rollupCanAnswer accepted. The raw query's resolved
 * form is planned again with each member swapped for a column of the rollup table (one stand-in
 * cube, no joins), and with every row-level filter the raw plan applies (its own and its joined
 * cubes', query-tree.ts) on top, so filters, order, limit, total and row-level security work as on
 * raw data. Members keep their paths, hence the raw query's column aliases: the response keeps the
 * raw query's columns, annotation and normalised query; only the SQL (and total SQL) change.
 */
export function compileFromRollup(
  model: Model,
  _query: CubeQuery,
  options: CompileQueryOptions,
  raw: CompiledQuery,
  source: RollupSource,
): CompiledQuery {
  const q = raw.resolved;
  const now = nowMillis(options);
  const { security } = joinTree(model, q, (cube) =>
    cubePolicy(model, cube, options.securityContext, q.timezone, now),
  );
  const { model: rollupModel, members } = standIn(model, source);
  const swap = (m: QueryMember): QueryMember => {
    const member = members.get(memberKey(m));
    if (!member) throw new Error(`rollup ${source.preAggregation.name} holds no ${memberKey(m)}`);
    // no view: its join path would lead back to the raw cubes
    return { ...m, member, view: null, viewMember: null };
  };
  const swapFilter = (n: FilterNode): FilterNode =>
    n.kind === 'member'
      ? { ...n, member: swap(n.member) }
      : n.kind === 'deny'
        ? n
        : { ...n, items: n.items.map(swapFilter) };
  const rewritten: ResolvedQuery = {
    ...q,
    measures: q.measures.map(swap),
    dimensions: q.dimensions.map(swap),
    timeDimensions: q.timeDimensions.map((t) => ({ ...t, member: swap(t.member) })),
    filters: q.filters.map(swapFilter),
    security: security.map(swapFilter),
    // a UTC build holds instants, converted for the query as raw columns are; another zone's
    // build (the query's own, rollupCanAnswer) holds its wall-clock times, read as they are
    timezone: (source.timezone ?? 'UTC') === 'UTC' ? q.timezone : 'UTC',
  };
  const plan = planQuery(rollupModel, rewritten, () => null, {
    now,
    securityContext: options.securityContext,
  });
  const dialect = typeof options.dialect === 'string' ? DIALECTS[options.dialect] : options.dialect;
  const printed = printSelect(plan.select, dialect);
  return {
    ...raw,
    sql: printed.sql,
    params: printed.params,
    totalSql: plan.total ? printSelect(plan.total, dialect) : null,
  };
}

interface StandIn {
  readonly model: Model;
  /** Stand-in member of each rollup member path. */
  readonly members: ReadonlyMap<string, CubeMember>;
}

const standIns = new WeakMap<Model, Map<string, StandIn>>();

/**
 * The model with the rollup's cube replaced by one reading the rollup table: a member per column,
 * named after it, measures re-aggregating their column.
 */
function standIn(model: Model, source: RollupSource): StandIn {
  let perModel = standIns.get(model);
  if (!perModel) {
    perModel = new Map();
    standIns.set(model, perModel);
  }
  const p = source.preAggregation;
  const key = `${p.cube}.${p.name}|${source.from}`;
  const hit = perModel.get(key);
  if (hit) return hit;
  const cube = model.cubes.get(p.cube)!;
  const columns = rollupColumns(p);
  const col = (path: string): SqlTemplate =>
    Object.freeze([{ ref: 'cube', cube: cube.name } as const, `."${columns[path]}"`]);
  const renamed = (path: string) => ({
    cube: cube.name,
    name: columns[path],
    path: `${cube.name}.${columns[path]}`,
  });
  const original = (path: string) => {
    const [c, name] = path.split('.');
    const of = model.cubes.get(c)!;
    return of.measures.get(name) ?? of.dimensions.get(name)!;
  };
  const members = new Map<string, CubeMember>();
  const measures = new Map<string, Measure>();
  for (const path of p.measures) {
    const m = original(path) as Measure;
    if (!isAdditive(model, m)) continue;
    // a count is the sum of the rollup's counts, 0 (not NULL) when no group is left
    const sql: SqlTemplate =
      m.type === 'count' ? Object.freeze(['coalesce(sum(', ...col(path), '), 0)']) : col(path);
    const measure: Measure = Object.freeze({
      ...m,
      ...renamed(path),
      type: m.type === 'count' ? 'number' : m.type,
      sql,
      filters: [],
      drillMembers: [],
    });
    measures.set(measure.name, measure);
    members.set(path, measure);
  }
  const dimensions = new Map<string, Dimension>();
  for (const path of [...p.dimensions, ...(p.timeDimension ? [p.timeDimension] : [])]) {
    const d = original(path) as Dimension;
    const dimension: Dimension = Object.freeze({
      ...d,
      ...renamed(path),
      sql: col(path),
      case: null,
      subQuery: false,
      granularities: new Map(),
    });
    dimensions.set(dimension.name, dimension);
    members.set(path, dimension);
  }
  const rollupCube: Cube = Object.freeze({
    ...cube,
    sqlTable: source.from,
    sql: null,
    joins: new Map(),
    measures,
    dimensions,
    segments: new Map(),
    primaryKeys: Object.freeze([]),
    preAggregations: new Map(),
  });
  const cubes = new Map(model.cubes);
  cubes.set(cube.name, rollupCube);
  const result: StandIn = { model: Object.freeze({ cubes, views: new Map() }), members };
  if (perModel.size > 100) perModel.clear();
  perModel.set(key, result);
  return result;
}
