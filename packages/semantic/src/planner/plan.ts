import { UserError } from '../errors.ts';
import type { Dimension, Measure, Model } from '../model/types.ts';
import { isMeasureFilter } from '../query/filters.ts';
import { formatLocal, toUtc } from '../query/time.ts';
import type { FilterNode, QueryMember, ResolvedQuery, TimeDimensionSpec } from '../query/types.ts';
import type { SecurityContext } from '../security/context.ts';
import { joinSubqueries, type Subquery } from './assemble.ts';
import { dimensionColumnExpr, type PlannedColumn, planColumns } from './columns.ts';
import { bindContext, type QueryContext } from './context.ts';
import { fanoutSubquery, leafAlias } from './fanout.ts';
import { filterExpr } from './filters.ts';
import { grainPlan } from './grain.ts';
import { granularitySpec } from './granularity.ts';
import { type JoinTree, multipliedCubes } from './join-graph.ts';
import {
  aggregate,
  countValue,
  dimensionExpr,
  leavesOf,
  measureValue,
  renderTemplate,
  ungroupedValue,
} from './member-sql.ts';
import { planMultiStage, usesMultiStage } from './multi-stage.ts';
import { and, type Expr, freeze, integer, type Select, type SelectItem, select } from './nodes.ts';
import { type CubeSecurity, joinTree } from './query-tree.ts';
import { filterMembers } from './required.ts';
import { rollingSubquery } from './rolling.ts';
import { joinedSources } from './sources.ts';
import { attachSubQueries, subQueryQuery } from './sub-query.ts';

export type { CubeSecurity };

export interface Plan {
  readonly select: Select;
  /** `SELECT count(*)` over the query without order and limit, for `total: true`. */
  readonly total: Select | null;
  readonly columns: readonly PlannedColumn[];
}

export interface PlanOptions {
  /** Current time: custom granularities without an origin count from the start of its year. */
  readonly now?: number;
  /** Cube's option of the same name: ungrouped queries without every joined cube's primary key. */
  readonly allowUngroupedWithoutPrimaryKey?: boolean;
  /**
   * Plan every multiplied measure over distinct keys, as Cube does, never at its own grain: the
   * reference the grain plan must agree with (tests and benchmarks compare the two).
   */
  readonly distinctKeysOnly?: boolean;
  /** For SECURITY_CONTEXT in model SQL (context.ts); `{}` when absent. */
  readonly securityContext?: SecurityContext;
  /** The query carries no row-level filters of its own: apply every joined cube's (sub-query.ts). */
  readonly applyEveryPolicy?: boolean;
}

/**
 * Resolved query -> frozen SQL tree. One flat SELECT when no measure is multiplied by a join and
 * none rolls over a time series; otherwise aggregate subqueries joined on the dimensions
 * (assemble.ts): measures at their own grain where that is exact (grain.ts), else over distinct
 * keys (fanout.ts), and one per rolling window (rolling.ts).
 */
export function planQuery(
  model: Model,
  q: ResolvedQuery,
  cubeSecurity: CubeSecurity,
  options: PlanOptions = {},
): Plan {
  if (usesMultiStage(model, q)) return planMultiStage(model, q, cubeSecurity, options, planQuery);
  const now = options.now ?? Date.now();
  const columns = planColumns(q);
  const context: QueryContext = {
    model,
    filters: [
      ...q.filters,
      ...q.timeDimensions.filter((t) => t.dateRange).map((t) => rangeFilter(t, q.timezone)),
    ],
    securityContext: options.securityContext ?? {},
    timezone: q.timezone,
    now,
  };
  const subQueries = new Map<Dimension, Select>();
  const planSub = (dim: Dimension): Select => {
    let sub = subQueries.get(dim);
    if (!sub) {
      const sq = subQueryQuery(model, dim, q, context.filters);
      const plan = planQuery(model, sq, cubeSecurity, { ...options, applyEveryPolicy: true });
      const names = new Map(
        plan.columns.map((c, i) => [c.alias, c.kind === 'measure' ? 'value' : `pk_${i}`]),
      );
      sub = select({
        ...plan.select,
        items: plan.select.items.map((it) => ({ ...it, alias: names.get(it.alias) ?? it.alias })),
        orderBy: [],
        limit: null,
        offset: null,
      });
      subQueries.set(dim, sub);
    }
    return sub;
  };
  const attach = (s: Select) => attachSubQueries(model, s, planSub);
  const { tree, security } = joinTree(model, q, cubeSecurity, options.applyEveryPolicy === true);
  if (q.ungrouped) checkUngrouped(model, q, tree, options);
  const full = joinedSources(model, tree);
  const multiplied = multipliedCubes(tree);
  const mainAggregate = (leaf: Measure): Expr =>
    countDistinctPk(model, leaf, multiplied) ?? rootCount(leaf, tree.root) ?? aggregate(model, leaf);
  const rowValue = (m: QueryMember): Expr =>
    m.member.kind === 'dimension'
      ? dimensionExpr(model, m.member)
      : m.member.kind === 'segment'
        ? renderTemplate(model, m.member.sql)
        : measureValue(model, m.member, (leaf) =>
            q.ungrouped ? ungroupedValue(model, leaf) : mainAggregate(leaf),
          );

  const whereFilters = [...q.filters, ...security].filter((f) => !isMeasureFilter(f));
  const havingFilters = [...q.filters, ...security].filter(isMeasureFilter);
  const ranges = new Map<TimeDimensionSpec, Expr>();
  for (const td of q.timeDimensions) {
    if (td.dateRange) ranges.set(td, filterExpr(model, rangeFilter(td, q.timezone), rowValue));
  }
  const baseWhere = [...q.segments.map(rowValue), ...whereFilters.map((f) => filterExpr(model, f, rowValue))];
  const where = and([...baseWhere, ...ranges.values()]);
  const dimCols = columns.filter((c) => c.kind !== 'measure');
  const dimItems: SelectItem[] = dimCols.map((c) => ({
    expr: dimensionColumnExpr(model, c, q.timezone, now),
    alias: c.alias,
  }));
  const groupBy = dimItems.map((_, i) => integer(i + 1));
  const ordinal = (id: string) => integer(columns.findIndex((c) => c.key === id) + 1);
  const orderBy = q.order.map((o) => ({ expr: ordinal(o.id), desc: o.desc }));

  const leaves: Measure[] = [];
  const queryMeasures = [
    ...columns.filter((c) => c.kind === 'measure').map((c) => c.member),
    ...filterMembers(havingFilters),
  ];
  for (const m of queryMeasures) if (m.member.kind === 'measure') leavesOf(model, m.member, leaves);
  const anchor = q.ungrouped ? null : rollingAnchor(q);
  const mainLeaves: Measure[] = [];
  const keyed = new Map<string, Measure[]>();
  const rolling: Measure[] = [];
  for (const leaf of leaves) {
    const b = bucketOf(model, leaf, anchor !== null, multiplied);
    if (b === 'main') mainLeaves.push(leaf);
    else if (b === 'rolling') rolling.push(leaf);
    else keyed.set(leaf.cube, [...(keyed.get(leaf.cube) ?? []), leaf]);
  }

  const grouping = [
    ...q.dimensions,
    ...q.timeDimensions.map((t) => t.member),
    ...q.segments,
    ...filterMembers(whereFilters),
  ];
  const grain =
    q.ungrouped || options.distinctKeysOnly
      ? null
      : grainPlan(model, tree, grouping, mainLeaves, keyed, multiplied);
  if (q.ungrouped || (keyed.size === 0 && rolling.length === 0 && grain === null)) {
    const having = and(havingFilters.map((f) => filterExpr(model, f, rowValue)));
    const flat = select({
      items: columns.map((c, i) => ({
        expr: c.kind === 'measure' ? rowValue(c.member) : dimItems[i].expr,
        alias: c.alias,
      })),
      ...full,
      // ungrouped rows: only row-level policies can filter on measures here (checkUngrouped)
      where: q.ungrouped ? and([...(where ? [where] : []), ...(having ? [having] : [])]) : where,
      groupBy: q.ungrouped ? [] : groupBy,
      having: q.ungrouped ? null : having,
    });
    return finish(flat, columns, orderBy, q, context, attach);
  }
  const aggregateOver = (
    list: readonly Measure[],
    sources: ReturnType<typeof joinedSources>,
    agg: (leaf: Measure) => Expr,
  ): Select =>
    select({
      items: [...dimItems, ...list.map((l) => ({ expr: agg(l), alias: leafAlias(l) }))],
      ...sources,
      where,
      groupBy,
    });
  const keysOver = (cube: string, list: readonly Measure[], sources: ReturnType<typeof joinedSources>) =>
    fanoutSubquery(model, model.cubes.get(cube)!, list, dimItems, sources.from, sources.joins, where);

  const subqueries: Subquery[] = [];
  if (grain) {
    const coreSources = joinedSources(model, tree, grain.core);
    if (grain.coreLeaves.length > 0) {
      const agg = (l: Measure) =>
        grain.repeated.has(l.cube) ? mainAggregate(l) : (rootCount(l, tree.root) ?? aggregate(model, l));
      subqueries.push({
        select: aggregateOver(grain.coreLeaves, coreSources, agg),
        leaves: grain.coreLeaves,
        partial: false,
      });
    }
    for (const [cube, list] of grain.coreKeys) {
      subqueries.push({ select: keysOver(cube, list, coreSources), leaves: list, partial: false });
    }
    if (grain.branchLeaves.length > 0) {
      const sources = joinedSources(model, tree, null, grain.innerPath);
      subqueries.push({
        select: aggregateOver(grain.branchLeaves, sources, mainAggregate),
        leaves: grain.branchLeaves,
        partial: grain.innerPath.size > 0,
      });
    }
    for (const [cube, list] of grain.fullKeys) {
      subqueries.push({ select: keysOver(cube, list, full), leaves: list, partial: false });
    }
  } else {
    if (mainLeaves.length > 0) {
      subqueries.push({
        select: aggregateOver(mainLeaves, full, mainAggregate),
        leaves: mainLeaves,
        partial: false,
      });
    }
    for (const [cube, list] of keyed) {
      subqueries.push({ select: keysOver(cube, list, full), leaves: list, partial: false });
    }
  }
  for (const leaf of rolling) {
    const td = anchor!;
    const other = [...ranges].filter(([t]) => t !== td).map(([, e]) => e);
    const sub = rollingSubquery(model, leaf, {
      td,
      spec: td.granularity
        ? granularitySpec(td.member.member as Dimension, td.granularity, q.timezone, now)
        : null,
      dimCols,
      dimItems,
      ...full,
      where: and([...baseWhere, ...other]),
      timezone: q.timezone,
      multiplied: multiplied.has(leaf.cube) ? model.cubes.get(leaf.cube)! : null,
    });
    subqueries.push({ select: sub, leaves: [leaf], partial: false });
  }
  return finish(
    select(joinSubqueries(model, subqueries, columns, havingFilters)),
    columns,
    orderBy,
    q,
    context,
    attach,
  );
}

/**
 * Joins sub_query dimensions' subqueries, fills in context variables, adds order, limit and
 * offset, and the row count without them for `total`.
 */
function finish(
  unbound: Select,
  columns: readonly PlannedColumn[],
  orderBy: Select['orderBy'],
  q: ResolvedQuery,
  context: QueryContext,
  attach: (s: Select) => Select,
): Plan {
  const body = bindContext(attach(unbound), context);
  const result = select({ ...body, orderBy, limit: q.limit, offset: q.offset || null });
  const total = q.total
    ? select({
        items: [{ expr: { kind: 'agg', fn: 'count', distinct: false, arg: null }, alias: 'total_count' }],
        from: { kind: 'subquery', select: body, alias: 'original_query' },
      })
    : null;
  return freeze({ select: result, total, columns });
}

function rangeFilter(td: TimeDimensionSpec, tz: string): FilterNode {
  const utc = (local: number) => ({ instant: formatLocal(toUtc(local, tz)) });
  return {
    kind: 'member',
    member: td.member,
    operator: 'inDateRange',
    values: [utc(td.dateRange!.from), utc(td.dateRange!.to)],
  };
}

/**
 * The time dimension rolling windows run over: the first with a granularity and a date range,
 * else the first with a date range only (the whole range is then one window, as Cube does).
 * Without one, rolling measures aggregate like plain ones.
 */
function rollingAnchor(q: ResolvedQuery): TimeDimensionSpec | null {
  return (
    q.timeDimensions.find((t) => t.granularity !== null && t.dateRange !== null) ??
    q.timeDimensions.find((t) => t.granularity === null && t.dateRange !== null) ??
    null
  );
}

/** Which kind of aggregate subquery computes a leaf measure. */
function bucketOf(
  model: Model,
  leaf: Measure,
  anchored: boolean,
  multiplied: ReadonlySet<string>,
): 'main' | 'keyed' | 'rolling' {
  if (leaf.rollingWindow && anchored) return 'rolling';
  if (!multiplied.has(leaf.cube)) return 'main';
  // duplicates do not change these aggregates
  if (
    leaf.type === 'count_distinct' ||
    leaf.type === 'count_distinct_approx' ||
    leaf.type === 'min' ||
    leaf.type === 'max'
  ) {
    return 'main';
  }
  const cube = model.cubes.get(leaf.cube)!;
  if (leaf.type === 'count' && leaf.sql === null && cube.primaryKeys.length > 0) return 'main';
  if (cube.primaryKeys.length === 0) {
    throw new UserError(
      `cube ${cube.name}: primary key for '${cube.name}' is required when join is defined in order to make aggregates work properly`,
    );
  }
  return 'keyed';
}

/**
 * A plain `count` of the root cube, which no LEFT JOIN extends with NULL rows: every row has its
 * primary key, so count(*) counts what count(pk) counts, without reading the key column.
 */
function rootCount(leaf: Measure, root: string): Expr | null {
  if (leaf.type !== 'count' || leaf.sql !== null || leaf.filters.length > 0 || leaf.cube !== root)
    return null;
  return { kind: 'agg', fn: 'count', distinct: false, arg: null };
}

/** `count` of a multiplied cube with a primary key: count(DISTINCT key), as Cube does. */
function countDistinctPk(model: Model, leaf: Measure, multiplied: ReadonlySet<string>): Expr | null {
  if (leaf.type !== 'count' || leaf.sql !== null || !multiplied.has(leaf.cube)) return null;
  const key = countValue(model, leaf);
  if (key === null) return null;
  const filters = leaf.filters.map((f) => renderTemplate(model, f));
  const arg: Expr =
    filters.length === 0 ? key : { kind: 'case', whens: [{ when: and(filters)!, result: key }], else: null };
  return { kind: 'agg', fn: 'count', distinct: true, arg };
}

/**
 * Cube's BaseQuery.initUngrouped: an ungrouped query returns rows of the joined cubes, so it must
 * name each one's primary keys (unless allowed without), and cannot filter on measures.
 */
function checkUngrouped(model: Model, q: ResolvedQuery, tree: JoinTree, options: PlanOptions): void {
  if (!options.allowUngroupedWithoutPrimaryKey) {
    const cubes = [...new Set([tree.root, ...tree.edges.map((e) => e.to)])];
    const named = new Set(q.dimensions.map((d) => d.member.path));
    const missing = cubes
      .flatMap((c) => model.cubes.get(c)!.primaryKeys.map((pk) => pk.path))
      .filter((key) => !named.has(key));
    if (missing.length > 0) {
      throw new UserError(
        `Ungrouped query requires primary keys to be present in dimensions: ${missing.map((k) => `'${k}'`).join(', ')}. Pass allowUngroupedWithoutPrimaryKey option to disable this check.`,
      );
    }
  }
  if (q.filters.some(isMeasureFilter))
    throw new UserError("Measure filters aren't allowed in ungrouped query");
}
