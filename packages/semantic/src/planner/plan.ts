import { UserError } from '../errors.ts';
import type { Measure, Model } from '../model/types.ts';
import { isMeasureFilter } from '../query/filters.ts';
import { formatLocal, toUtc } from '../query/time.ts';
import type { FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { dimensionColumnExpr, type PlannedColumn, planColumns, rollingTimeDimension } from './columns.ts';
import { fanoutSubquery, leafAlias } from './fanout.ts';
import { filterExpr } from './filters.ts';
import { buildJoinTree, multipliedCubes } from './join-graph.ts';
import {
  aggregate,
  dimensionExpr,
  leavesOf,
  measureValue,
  renderTemplate,
  ungroupedValue,
} from './member-sql.ts';
import {
  and,
  type Expr,
  freeze,
  ident,
  integer,
  type JoinNode,
  raw,
  type Select,
  type SelectItem,
  select,
} from './nodes.ts';
import { cubesOfMember, filterMembers } from './required.ts';
import { rollingSubquery } from './rolling.ts';
import { joinedSources } from './sources.ts';

export interface Plan {
  readonly select: Select;
  /** `SELECT count(*)` over the query without order and limit, for `total: true`. */
  readonly total: Select | null;
  readonly columns: readonly PlannedColumn[];
}

/** Row-level filter of a cube joined without being named by the query (null: none). */
export type CubeSecurity = (cube: string) => FilterNode | null;

/**
 * Resolved query -> frozen SQL tree. One flat SELECT when no measure is multiplied by a join;
 * otherwise one aggregate subquery per kind of measure (regular, per multiplied cube, per rolling
 * window) full-joined on the dimensions, as Cube's "full key" aggregate query does.
 */
export function planQuery(model: Model, q: ResolvedQuery, cubeSecurity: CubeSecurity): Plan {
  const columns = planColumns(q);
  const { tree, security } = joinTree(model, q, cubeSecurity);
  const { from, joins } = joinedSources(model, tree);
  const rowValue = (m: QueryMember): Expr =>
    m.member.kind === 'dimension'
      ? dimensionExpr(model, m.member)
      : m.member.kind === 'segment'
        ? renderTemplate(model, m.member.sql)
        : measureValue(model, m.member, (leaf) =>
            q.ungrouped ? ungroupedValue(model, leaf) : mainAggregate(leaf),
          );
  const multiplied = multipliedCubes(tree);
  const mainAggregate = (leaf: Measure): Expr =>
    countDistinctPk(model, leaf, multiplied) ?? aggregate(model, leaf);

  const whereFilters = q.filters.filter((f) => !isMeasureFilter(f));
  const havingFilters = [...q.filters, ...security].filter(isMeasureFilter);
  const rangeExprs = new Map<string, Expr>();
  for (const td of q.timeDimensions) {
    if (!td.dateRange) continue;
    const range: FilterNode = {
      kind: 'member',
      member: td.member,
      operator: 'inDateRange',
      values: [
        { instant: utcOf(td.dateRange.from, q.timezone) },
        { instant: utcOf(td.dateRange.to, q.timezone) },
      ],
    };
    rangeExprs.set(`${td.member.path}.${td.granularity}`, filterExpr(model, range, rowValue));
  }
  const baseWhere = [
    ...q.segments.map(rowValue),
    ...[...whereFilters, ...security.filter((f) => !isMeasureFilter(f))].map((f) =>
      filterExpr(model, f, rowValue),
    ),
  ];
  const dimCols = columns.filter((c) => c.kind !== 'measure');
  const dimItems: SelectItem[] = dimCols.map((c) => ({
    expr: dimensionColumnExpr(model, c, q.timezone),
    alias: c.alias,
  }));
  const ordinal = (id: string) => integer(columns.findIndex((c) => c.key === id) + 1);
  const orderBy = q.order.map((o) => ({ expr: ordinal(o.id), desc: o.desc }));

  const leaves: Measure[] = [];
  const queryMeasures = [
    ...columns.filter((c) => c.kind === 'measure').map((c) => c.member),
    ...filterMembers(havingFilters),
  ];
  for (const m of queryMeasures) if (m.member.kind === 'measure') leavesOf(model, m.member, leaves);
  const rollingTd = q.ungrouped ? null : rollingTimeDimension(q);
  const buckets = new Map<string, Measure[]>();
  for (const leaf of leaves) {
    const b = bucketOf(leaf, rollingTd !== null, multiplied, model);
    buckets.set(b, [...(buckets.get(b) ?? []), leaf]);
  }

  let result: Select;
  let total: Select | null = null;
  const where = and([...baseWhere, ...rangeExprs.values()]);
  if (q.ungrouped || [...buckets.keys()].every((b) => b === 'main')) {
    const items = columns.map((c, i) => ({
      expr: c.kind === 'measure' ? rowValue(c.member) : dimItems[i].expr,
      alias: c.alias,
    }));
    const having = and(havingFilters.map((f) => filterExpr(model, f, rowValue)));
    const core = {
      items,
      from,
      joins,
      where: q.ungrouped ? and([...(where ? [where] : []), ...(having ? [having] : [])]) : where,
      groupBy: q.ungrouped ? [] : dimItems.map((_, i) => integer(i + 1)),
      having: q.ungrouped ? null : having,
    };
    result = select({ ...core, orderBy, limit: q.limit, offset: q.offset || null });
    if (q.total) total = countOf(select(core));
  } else {
    const subqueries: { alias: string; select: Select; leaves: Measure[] }[] = [];
    const ordered = [...buckets].sort(
      ([a], [b]) => Number(b.startsWith('roll:')) - Number(a.startsWith('roll:')),
    );
    for (const [bucket, bucketLeaves] of ordered) {
      const alias = `q_${subqueries.length}`;
      let sub: Select;
      if (bucket === 'main') {
        sub = select({
          items: [...dimItems, ...bucketLeaves.map((l) => ({ expr: mainAggregate(l), alias: leafAlias(l) }))],
          from,
          joins,
          where,
          groupBy: dimItems.map((_, i) => integer(i + 1)),
        });
      } else if (bucket.startsWith('mult:')) {
        const cube = model.cubes.get(bucket.slice(5))!;
        sub = fanoutSubquery(model, cube, bucketLeaves, dimItems, from, joins, where);
      } else {
        const td = rollingTd!;
        const otherRanges = [...rangeExprs]
          .filter(([k]) => k !== `${td.member.path}.${td.granularity}`)
          .map(([, e]) => e);
        const rollWhere = and([...baseWhere, ...otherRanges]);
        sub = rollingSubquery(
          model,
          bucketLeaves[0],
          td,
          dimCols,
          dimItems,
          from,
          joins,
          rollWhere,
          q.timezone,
        );
      }
      subqueries.push({ alias, select: sub, leaves: bucketLeaves });
    }
    const leafRef = (leaf: Measure): Expr =>
      ident(subqueries.find((s) => s.leaves.includes(leaf))!.alias, leafAlias(leaf));
    const outerValue = (m: QueryMember): Expr => {
      if (m.member.kind !== 'measure') throw new UserError(`${m.path} cannot be used after aggregation`);
      return measureValue(model, m.member, leafRef);
    };
    // Every subquery groups the same joined, filtered rows, so they hold the same dimension
    // keys; a rolling window's series may hold more, so it goes first and the others are
    // LEFT JOINed to it (Cube joins its aggregate subqueries the same way, NULL-safe).
    const outerJoins: JoinNode[] = subqueries.slice(1).map((s) => ({
      type: 'left',
      source: { kind: 'subquery', select: s.select, alias: s.alias },
      on:
        and(
          dimItems.map((d) => ({
            kind: 'binary',
            op: 'IS NOT DISTINCT FROM',
            left: ident(subqueries[0].alias, d.alias),
            right: ident(s.alias, d.alias),
          })),
        ) ?? raw('1 = 1'),
    }));
    const core = {
      items: columns.map((c) => ({
        expr: c.kind === 'measure' ? outerValue(c.member) : ident(subqueries[0].alias, c.alias),
        alias: c.alias,
      })),
      from: { kind: 'subquery' as const, select: subqueries[0].select, alias: subqueries[0].alias },
      joins: outerJoins,
      where: and(havingFilters.map((f) => filterExpr(model, f, outerValue))),
    };
    result = select({ ...core, orderBy, limit: q.limit, offset: q.offset || null });
    if (q.total) total = countOf(select(core));
  }
  return freeze({ select: result, total, columns });
}

function countOf(inner: Select): Select {
  return select({
    items: [{ expr: { kind: 'agg', fn: 'count', distinct: false, arg: null }, alias: 'total_count' }],
    from: { kind: 'subquery', select: inner, alias: 'original_query' },
  });
}

function utcOf(local: number, tz: string): string {
  return formatLocal(toUtc(local, tz));
}

/** Which aggregate subquery computes a leaf measure. */
function bucketOf(leaf: Measure, rolling: boolean, multiplied: ReadonlySet<string>, model: Model): string {
  if (leaf.rollingWindow && rolling) return `roll:${leaf.path}`;
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
  if (leaf.type === 'count' && leaf.sql === null && cube.primaryKeys.length === 1) return 'main';
  if (cube.primaryKeys.length === 0) {
    throw new UserError(
      `cube ${cube.name}: primary key for '${cube.name}' is required when join is defined in order to make aggregates work properly`,
    );
  }
  return `mult:${cube.name}`;
}

/** `count` of a multiplied cube with one primary key: count(DISTINCT pk), as Cube does. */
function countDistinctPk(model: Model, leaf: Measure, multiplied: ReadonlySet<string>): Expr | null {
  if (leaf.type !== 'count' || leaf.sql !== null || !multiplied.has(leaf.cube)) return null;
  const cube = model.cubes.get(leaf.cube)!;
  if (cube.primaryKeys.length !== 1) return null;
  const pk = dimensionExpr(model, cube.primaryKeys[0]);
  const filters = leaf.filters.map((f) => renderTemplate(model, f));
  const arg: Expr =
    filters.length === 0 ? pk : { kind: 'case', whens: [{ when: and(filters)!, result: pk }], else: null };
  return { kind: 'agg', fn: 'count', distinct: true, arg };
}

/**
 * The join tree of every cube the query needs, plus the row-level filters of every joined cube
 * whose policy the query does not carry yet (normalizeQuery adds those of the cubes and views it
 * names). A join must not widen what the context can read, and neither may a view: reading
 * through a view still reads its cubes, so their filters apply under the view's own (Cube's
 * "Policies on views" and "Policies on cubes", https://cube.dev/docs/product/auth/data-access-policies).
 * A cube's filter may reach further cubes through member SQL; those are joined too.
 */
function joinTree(model: Model, q: ResolvedQuery, cubeSecurity: CubeSecurity) {
  const members = [
    ...q.measures,
    ...q.dimensions,
    ...q.timeDimensions.map((t) => t.member),
    ...q.segments,
    ...filterMembers(q.filters),
    ...filterMembers(q.security),
  ];
  const required: string[] = [];
  const hints = new Map<string, readonly string[]>();
  const need = (list: readonly QueryMember[]) => {
    for (const m of list) {
      for (const c of cubesOfMember(model, m.member)) if (!required.includes(c)) required.push(c);
      if (m.viewMember) hints.set(m.viewMember.joinPath.join('.'), m.viewMember.joinPath);
    }
  };
  need(members);
  // cubes named directly: their filters are in q.security already
  const governed = new Set(members.filter((m) => m.view === null).map((m) => m.owner));
  const filters = new Map<string, FilterNode>();
  for (;;) {
    const tree = buildJoinTree(model, required, [...hints.values()]);
    const size = required.length;
    for (const cube of [tree.root, ...tree.edges.map((e) => e.to)]) {
      if (governed.has(cube) || filters.has(cube)) continue;
      const f = cubeSecurity(cube);
      if (!f) continue;
      filters.set(cube, f);
      need(filterMembers([f]));
    }
    if (required.length === size) return { tree, security: [...q.security, ...filters.values()] };
  }
}
