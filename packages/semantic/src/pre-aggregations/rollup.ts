import { type CompiledQuery, type CompileQueryOptions, compileQuery, DIALECTS } from '../compile-query.ts';
import type { DialectName } from '../dialect/dialect.ts';
import { printSelect } from '../dialect/print.ts';
import { servesGranularity } from '../model/pre-aggregations.ts';
import type {
  Cube,
  Dimension,
  Measure,
  Model,
  PreAggregation,
  SqlTemplate,
  TemplatePart,
  View,
  ViewMember,
} from '../model/types.ts';
import { planQuery } from '../planner/plan.ts';
import { normalizeFilter } from '../query/filters.ts';
import { normalizeQuery } from '../query/normalize.ts';
import { endOf, formatLocal, startOf, type TimeUnit } from '../query/time.ts';
import type { CubeQuery, FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { type AccessResolution, resolveAccess } from '../security/access.ts';
import type { SecurityContext } from '../security/context.ts';

/**
 * Rollups (https://cube.dev/docs/product/caching/matching-pre-aggregations): which rollup can
 * answer a query, the SQL that builds one, and the query compiled against a built rollup table.
 * A rollup table holds one row per group of its dimensions (and time bucket, in UTC), one column
 * per member, named by the build query's aliases. A query it answers is the same query compiled
 * against a stand-in cube whose SQL is that table and whose measures re-aggregate its columns,
 * so that filters, order, limit, total and row-level security work exactly as on raw data.
 */

/** Measures whose rollup values add up into coarser groups (count as the sum of counts). */
const ADDITIVE = new Set<Measure['type']>(['count', 'sum', 'min', 'max']);

/** A built rollup: the SQL that reads it (a table, or partitions' UNION ALL) and its range. */
export interface RollupSource {
  readonly preAggregation: PreAggregation;
  /** A FROM item: `schema.table`, or `(SELECT * FROM a UNION ALL SELECT * FROM b)`. */
  readonly from: string;
  /** Wall-clock UTC bounds (ms) of the built time range, both inclusive; null: all rows. */
  readonly range: { readonly from: number; readonly to: number } | null;
}

/** Column of each member in a rollup table: the build query's alias for it (planner/columns.ts). */
export function rollupColumns(p: PreAggregation): Record<string, string> {
  const alias = (key: string) => key.replace(/\./g, '__').toLowerCase();
  const out: Record<string, string> = {};
  for (const m of [...p.measures, ...p.dimensions]) out[m] = alias(`${p.cube}.${m}`);
  if (p.timeDimension !== null) out[p.timeDimension] = alias(`${p.cube}.${p.timeDimension}_${p.granularity}`);
  return out;
}

/**
 * Whether the rollup could answer the query, before looking at what is built: every member of
 * its cube and in the rollup, measures additive, time at its granularity or coarser (a date range
 * on whole buckets, in UTC), user and row-level filters on its dimensions only. Anything else runs
 * raw: a wrong answer from a rollup is worse than a slow one.
 *
 * A member read through a view counts as the cube's when the view includes that cube directly
 * (join path of the cube alone), as Cube matches view queries against the underlying cube's
 * pre-aggregations (https://cube.dev/docs/product/caching/matching-pre-aggregations). The view's
 * row-level filters are in `q.security`; the cube's own, which the planner adds under the view's
 * (query-tree.ts), are resolved here from `securityContext`, so a query through a view without
 * one never matches.
 */
export function rollupCanAnswer(
  model: Model,
  p: PreAggregation,
  q: ResolvedQuery,
  securityContext?: SecurityContext,
): boolean {
  const cube = model.cubes.get(p.cube);
  if (!cube || !rollupBuildable(cube, p)) return false;
  if (q.ungrouped || q.segments.length > 0) return false;
  const own = (m: QueryMember) =>
    m.member.cube === p.cube &&
    (m.view === null
      ? m.owner === p.cube
      : m.viewMember !== null && m.viewMember.joinPath.length === 1 && m.viewMember.joinPath[0] === p.cube);
  const dims = new Set(p.dimensions);
  for (const m of q.measures) {
    const measure = m.member as Measure;
    if (!own(m) || !p.measures.includes(measure.name)) return false;
    if (!ADDITIVE.has(measure.type) || measure.rollingWindow !== null) return false;
  }
  for (const d of q.dimensions) if (!own(d) || !dims.has(d.member.name)) return false;
  for (const td of q.timeDimensions) {
    if (!own(td.member) || td.member.member.name !== p.timeDimension || p.granularity === null) return false;
    if (td.granularity !== null && !servesGranularity(p.granularity, td.granularity)) return false;
    const r = td.dateRange;
    const unit = p.granularity as TimeUnit;
    if (r && (startOf(r.from, unit) !== r.from || endOf(r.to, unit) !== r.to)) return false;
  }
  if (p.timeDimension !== null && q.timeDimensions.length > 0 && q.timezone !== 'UTC') return false;
  const onRollup = (n: FilterNode): boolean => {
    if (n.kind === 'deny') return true;
    if (n.kind !== 'member') return n.items.every(onRollup);
    if (!own(n.member)) return false;
    return n.member.member.kind === 'measure'
      ? p.measures.includes(n.member.member.name) && ADDITIVE.has((n.member.member as Measure).type)
      : dims.has(n.member.member.name);
  };
  // row-level security: the rollup holds every row, so the policy's filters must apply on top
  if (!q.filters.every(onRollup) || !q.security.every(onRollup)) return false;
  const throughView = [...q.measures, ...q.dimensions, ...q.timeDimensions.map((t) => t.member)].some(
    (m) => m.view !== null,
  );
  if (!throughView) return true;
  if (securityContext === undefined) return false;
  const policy = cubePolicy(model, p.cube, securityContext);
  return policy === null || onRollup(policy);
}

/** The cube's own row-level filter for this context (null: none), as the planner adds it. */
function cubePolicy(model: Model, cube: string, securityContext: SecurityContext): FilterNode | null {
  const access = resolveAccess(model, securityContext);
  const f = access.rowFilters.get(cube);
  if (f === undefined) return null;
  if (f === false) return { kind: 'deny' };
  return normalizeFilter(f, { model, access, timezone: 'UTC', now: Date.now(), trusted: true });
}

/** The query's date range, when the rollup has a built range it must lie within. */
export function rollupCovers(source: RollupSource, q: ResolvedQuery): boolean {
  if (source.range === null) return true;
  const td = q.timeDimensions.find((t) => t.member.member.name === source.preAggregation.timeDimension);
  const r = td?.dateRange;
  return r !== undefined && r !== null && r.from >= source.range.from && r.to <= source.range.to;
}

/**
 * Whether a rollup can be built without a query: its cube's SQL and members read no
 * `FILTER_PARAMS` or `SECURITY_CONTEXT` (a rollup is built once for everyone).
 */
export function rollupBuildable(cube: Cube, p: PreAggregation): boolean {
  const templates: SqlTemplate[] = cube.sql ? [cube.sql] : [];
  for (const name of [...p.measures, ...p.dimensions, ...(p.timeDimension ? [p.timeDimension] : [])]) {
    const m = cube.measures.get(name) ?? cube.dimensions.get(name);
    if (!m) return false;
    if (m.kind === 'measure') templates.push(m.sql ?? [], ...m.filters);
    else templates.push(m.sql, ...(m.case?.when.map((w) => w.sql) ?? []));
    if (m.kind === 'dimension' && m.subQuery) return false;
  }
  return templates.every((t) => t.every(contextFree));
}

function contextFree(p: TemplatePart): boolean {
  return typeof p === 'string' || p.ref === 'cube' || p.ref === 'member' || p.ref === 'cubeSql';
}

export interface RollupBuild {
  /** SELECT producing the rollup's rows; parameters inlined (CREATE TABLE AS takes none). */
  readonly sql: string;
}

/**
 * The SELECT that builds a rollup (or one partition, for `range`), without row-level security:
 * a rollup holds every row, and a query reads it only with its policy's filters on top. Time is
 * bucketed in UTC. The build runs with the engine's own dialect.
 */
export function rollupBuildSql(
  model: Model,
  p: PreAggregation,
  dialect: DialectName,
  range: { readonly from: number; readonly to: number } | null,
): RollupBuild {
  const query: CubeQuery = {
    measures: p.measures.map((m) => `${p.cube}.${m}`),
    dimensions: p.dimensions.map((d) => `${p.cube}.${d}`),
    timeDimensions:
      p.timeDimension === null
        ? []
        : [
            {
              dimension: `${p.cube}.${p.timeDimension}`,
              granularity: p.granularity!,
              ...(range ? { dateRange: [formatLocal(range.from), formatLocal(range.to)] } : {}),
            },
          ],
    timezone: 'UTC',
  };
  const open: AccessResolution = { hiddenMembers: new Set(), rowFilters: new Map() };
  const resolved = normalizeQuery(model, query, { access: open, now: Date.now() });
  // every group, in no particular order: LIMIT and ORDER BY are the reading query's business
  const plan = planQuery(model, { ...resolved, order: [], limit: null as unknown as number }, () => null, {
    now: Date.now(),
    securityContext: {},
  });
  const printed = printSelect(plan.select, DIALECTS[dialect]);
  return { sql: inlineParams(printed.sql, printed.params) };
}

function inlineParams(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)\b/g, (whole, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) return whole;
    const v = params[i];
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    return `'${String(v).replace(/'/g, "''")}'`;
  });
}

/**
 * `query` compiled against a built rollup. The response keeps the raw query's columns, aliases,
 * annotation and normalised query: only the SQL (and total SQL) read the rollup instead.
 */
export function compileFromRollup(
  model: Model,
  query: CubeQuery,
  options: CompileQueryOptions,
  raw: CompiledQuery,
  source: RollupSource,
): CompiledQuery {
  const rollupModel = standIn(model, source);
  const c = compileQuery(rollupModel, query, options);
  return { ...raw, sql: c.sql, params: c.params, totalSql: c.totalSql };
}

const standIns = new WeakMap<Model, Map<string, Model>>();

/** The model with the rollup's cube replaced by one reading the rollup table. */
function standIn(model: Model, source: RollupSource): Model {
  let perModel = standIns.get(model);
  if (!perModel) {
    perModel = new Map();
    standIns.set(model, perModel);
  }
  const key = `${source.preAggregation.cube}.${source.preAggregation.name}|${source.from}`;
  const hit = perModel.get(key);
  if (hit) return hit;
  const p = source.preAggregation;
  const cube = model.cubes.get(p.cube)!;
  const columns = rollupColumns(p);
  const col = (name: string): SqlTemplate =>
    Object.freeze([{ ref: 'cube', cube: cube.name } as const, `."${columns[name]}"`]);
  const measures = new Map<string, Measure>();
  for (const name of p.measures) {
    const m = cube.measures.get(name)!;
    if (!ADDITIVE.has(m.type)) continue;
    // a count is the sum of the rollup's counts, 0 (not NULL) when no group is left
    const sql: SqlTemplate =
      m.type === 'count' ? Object.freeze(['coalesce(sum(', ...col(name), '), 0)']) : col(name);
    measures.set(
      name,
      Object.freeze({
        ...m,
        type: m.type === 'count' ? 'number' : m.type,
        sql,
        filters: [],
        drillMembers: [],
      }),
    );
  }
  const dimensions = new Map<string, Dimension>();
  for (const name of [...p.dimensions, ...(p.timeDimension ? [p.timeDimension] : [])]) {
    const d = cube.dimensions.get(name)!;
    dimensions.set(
      name,
      Object.freeze({ ...d, sql: col(name), case: null, subQuery: false, granularities: new Map() }),
    );
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
  // views keep their members and access policies; those of the rollup's cube read the stand-in
  // (a member the rollup lacks keeps its target: rollupCanAnswer lets no query reach it)
  const views = new Map<string, View>();
  for (const [name, view] of model.views) {
    if (![...view.members.values()].some((m) => m.target.cube === cube.name)) {
      views.set(name, view);
      continue;
    }
    const members = new Map<string, ViewMember>();
    for (const [key, m] of view.members) {
      const target =
        m.target.cube === cube.name
          ? m.target.kind === 'measure'
            ? measures.get(m.target.name)
            : m.target.kind === 'dimension'
              ? dimensions.get(m.target.name)
              : undefined
          : undefined;
      members.set(key, target ? Object.freeze({ ...m, target }) : m);
    }
    views.set(name, Object.freeze({ ...view, members }));
  }
  const result: Model = Object.freeze({ cubes, views });
  if (perModel.size > 100) perModel.clear();
  perModel.set(key, result);
  return result;
}
