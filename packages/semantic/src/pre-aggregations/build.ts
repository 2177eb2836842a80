import { DIALECTS } from '../compile-query.ts';
import type { Dialect, DialectName } from '../dialect/dialect.ts';
import { printSelect } from '../dialect/print.ts';
import { walkParts } from '../model/template.ts';
import type {
  CubeMember,
  Measure,
  Model,
  PreAggregation,
  SqlTemplate,
  TemplatePart,
} from '../model/types.ts';
import type { JoinTree } from '../planner/join-graph.ts';
import { leavesOf } from '../planner/member-sql.ts';
import { planQuery } from '../planner/plan.ts';
import { joinTree } from '../planner/query-tree.ts';
import { normalizeQuery } from '../query/normalize.ts';
import { formatLocal } from '../query/time.ts';
import type { CubeQuery, ResolvedQuery } from '../query/types.ts';
import type { AccessResolution } from '../security/access.ts';

/** A built rollup: the SQL that reads it (a table, or partitions' UNION ALL) and its range. */
export interface RollupSource {
  readonly preAggregation: PreAggregation;
  /** A FROM item: `schema.table`, or `(SELECT * FROM a UNION ALL SELECT * FROM b)`. */
  readonly from: string;
  /** Wall-clock bounds (ms, in the build's zone) of the built time range, both inclusive; null: all rows. */
  readonly range: { readonly from: number; readonly to: number } | null;
  /** Zone the time buckets were cut in (rollupBuildSql); UTC when absent. */
  readonly timezone?: string;
}

/** Measure types whose rollup values add up into coarser groups (count as the sum of counts). */
const ADDITIVE = new Set<string>(['count', 'sum', 'min', 'max']);

/**
 * Whether a measure's values per group re-aggregate exactly into coarser groups: an additive type
 * (any other, known or added later, is not), over rows, not a rolling window, a multi-stage
 * measure or a formula over other measures.
 */
export function isAdditive(model: Model, m: Measure): boolean {
  if (!ADDITIVE.has(m.type) || m.rollingWindow !== null || m.multiStage) return false;
  const leaves = leavesOf(model, m);
  return leaves.length === 1 && leaves[0] === m;
}

/** Column of each member path in a rollup table: the build query's alias for it (planner/columns.ts). */
export function rollupColumns(p: PreAggregation): Record<string, string> {
  const alias = (key: string) => key.replace(/\./g, '__').toLowerCase();
  const out: Record<string, string> = {};
  for (const m of [...p.measures, ...p.dimensions]) out[m] = alias(m);
  if (p.timeDimension !== null) out[p.timeDimension] = alias(`${p.timeDimension}_${p.granularity}`);
  return out;
}

const open: AccessResolution = { hiddenMembers: new Set(), rowFilters: new Map() };

/** The Cube query a rollup stores, time bucketed in `timezone` (within `range`, for a partition). */
function rollupQuery(
  model: Model,
  p: PreAggregation,
  timezone: string,
  range: { readonly from: number; readonly to: number } | null,
): ResolvedQuery {
  const query: CubeQuery = {
    measures: [...p.measures],
    dimensions: [...p.dimensions],
    timeDimensions:
      p.timeDimension === null
        ? []
        : [
            {
              dimension: p.timeDimension,
              granularity: p.granularity!,
              ...(range ? { dateRange: [formatLocal(range.from), formatLocal(range.to)] } : {}),
            },
          ],
    timezone,
  };
  return normalizeQuery(model, query, { access: open, now: Date.now() });
}

/** The joins the build query makes, as the planner picks them for the rollup's members. */
export function rollupJoinTree(model: Model, p: PreAggregation): JoinTree {
  let tree = trees.get(p);
  if (!tree) {
    tree = joinTree(model, rollupQuery(model, p, 'UTC', null), () => null).tree;
    trees.set(p, tree);
  }
  return tree;
}

// a pre-aggregation belongs to one compiled model: what depends on the model only is kept with it
const trees = new WeakMap<PreAggregation, JoinTree>();
const buildable = new WeakMap<PreAggregation, boolean>();

/**
 * Whether a rollup can be built without a query: the SQL of every cube and join it reads, and of
 * its members and the members they refer to, use no `FILTER_PARAMS` or `SECURITY_CONTEXT` (a
 * rollup is built once for everyone), and no member is a sub_query dimension.
 */
export function rollupBuildable(model: Model, p: PreAggregation): boolean {
  let hit = buildable.get(p);
  if (hit === undefined) {
    hit = checkBuildable(model, p);
    buildable.set(p, hit);
  }
  return hit;
}

function checkBuildable(model: Model, p: PreAggregation): boolean {
  let tree: JoinTree;
  try {
    tree = rollupJoinTree(model, p);
  } catch {
    return false;
  }
  const templates: SqlTemplate[] = [];
  for (const name of [tree.root, ...tree.edges.map((e) => e.to)]) {
    const sql = model.cubes.get(name)?.sql;
    if (sql) templates.push(sql);
  }
  for (const e of tree.edges) templates.push(e.join.sql);
  const seen = new Set<CubeMember>();
  const visit = (m: CubeMember | undefined): boolean => {
    if (!m) return false;
    if (seen.has(m)) return true;
    seen.add(m);
    if (m.kind === 'dimension' && m.subQuery) return false;
    const own =
      m.kind === 'measure'
        ? [m.sql ?? [], ...m.filters]
        : m.kind === 'dimension'
          ? [m.sql, ...(m.case?.when.map((w) => w.sql) ?? [])]
          : [m.sql];
    templates.push(...own);
    for (const t of own) {
      for (const part of walkParts(t)) {
        if (part.ref !== 'member') continue;
        const cube = model.cubes.get(part.cube);
        const next = cube?.measures.get(part.member) ?? cube?.dimensions.get(part.member);
        if (next && !visit(next)) return false;
      }
    }
    return true;
  };
  for (const path of [...p.measures, ...p.dimensions, ...(p.timeDimension ? [p.timeDimension] : [])]) {
    const [c, name] = path.split('.');
    const cube = model.cubes.get(c);
    if (!visit(cube?.measures.get(name) ?? cube?.dimensions.get(name))) return false;
  }
  return templates.every((t) => t.every(contextFree));
}

function contextFree(p: TemplatePart): boolean {
  if (typeof p !== 'string' && (p.ref === 'castText' || p.ref === 'timeShift'))
    return p.sql.every(contextFree);
  return typeof p === 'string' || p.ref === 'cube' || p.ref === 'member' || p.ref === 'cubeSql';
}

export interface RollupBuild {
  /** SELECT producing the rollup's rows; parameters inlined (CREATE TABLE AS takes none). */
  readonly sql: string;
}

/**
 * The SELECT that builds a rollup (or one partition, for `range`): the planner's SQL for the
 * rollup's members as a query, so joins and fan-out are handled as for /v1/load. Without
 * row-level security: a rollup holds every row, and a query reads it only with its policies'
 * filters on top. Time is bucketed in `timezone` (UTC unless a test builds for another zone,
 * as Cube builds per time zone). The build runs with the engine's own dialect.
 */
export function rollupBuildSql(
  model: Model,
  p: PreAggregation,
  dialect: DialectName,
  range: { readonly from: number; readonly to: number } | null,
  timezone = 'UTC',
): RollupBuild {
  const resolved = rollupQuery(model, p, timezone, range);
  // every group, in no particular order: LIMIT and ORDER BY are the reading query's business
  const plan = planQuery(model, { ...resolved, order: [], limit: null as unknown as number }, () => null, {
    now: Date.now(),
    securityContext: {},
  });
  const printed = printSelect(plan.select, DIALECTS[dialect]);
  return { sql: inlineParams(printed.sql, printed.params, DIALECTS[dialect]) };
}

/**
 * The dialect's placeholders (`$n`, BigQuery's `@pn`) as literals; where `\` escapes in a literal
 * (MySQL), a label `C:\temp` keeps its backslash; a dialect's own `stringLiteral` where `''` is
 * not its quote escape.
 */
function inlineParams(sql: string, params: readonly unknown[], dialect: Dialect): string {
  const backslashEscapes = dialect.backslashEscapes === true;
  const prefix = dialect.placeholder(1).slice(0, -1).replace(/[$]/g, '\\$');
  return sql.replace(new RegExp(`${prefix}(\\d+)\\b`, 'g'), (whole, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) return whole;
    const v = params[i];
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    if (dialect.stringLiteral) return dialect.stringLiteral(String(v));
    const text = backslashEscapes ? String(v).replace(/\\/g, '\\\\') : String(v);
    return `'${text.replace(/'/g, "''")}'`;
  });
}
