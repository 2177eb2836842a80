import { servesGranularity } from '../model/pre-aggregations.ts';
import type { Measure, Model, PreAggregation } from '../model/types.ts';
import { type JoinTree, multipliedCubes } from '../planner/join-graph.ts';
import { type CubeSecurity, joinTree } from '../planner/query-tree.ts';
import { normalizeFilter } from '../query/filters.ts';
import { endOf, startOf, type TimeUnit } from '../query/time.ts';
import type { FilterNode, QueryMember, ResolvedQuery } from '../query/types.ts';
import { resolveAccess } from '../security/access.ts';
import type { SecurityContext } from '../security/context.ts';
import { isAdditive, type RollupSource, rollupBuildable, rollupJoinTree } from './build.ts';

/** `cube.member` of the cube member a query member reads (through a view or not). */
export function memberKey(m: QueryMember): string {
  return `${m.member.cube}.${m.member.name}`;
}

/**
 * Whether the rollup could answer the query, before looking at what is built
 * (https://cube.dev/docs/product/caching/matching-pre-aggregations): every member in the rollup,
 * measures additive, time at its granularity or coarser (a date range on whole buckets, in the
 * zone the rollup was built in), user and row-level filters on its dimensions only, and the same
 * joins: the query's join tree starts at the rollup's root and each of its joins is one the
 * rollup's build made. Anything else runs raw: a wrong answer from a rollup is worse than a slow one.
 *
 * A measure of a cube the rollup's joins repeat (a visitor's revenue beside its check-ins) was
 * computed per group over distinct rows; adding groups up would count a row once per group, so
 * such a `count` or `sum` is read only at the rollup's own grouping (every dimension, the same
 * granularity). Row-level filters are those the planner applies: the query's own plus those of
 * every cube it joins (query-tree.ts), resolved from `securityContext`; without one, a query
 * joining a cube it does not name never matches.
 */
export function rollupCanAnswer(
  model: Model,
  p: PreAggregation,
  q: ResolvedQuery,
  securityContext?: SecurityContext,
  buildTimezone = 'UTC',
): boolean {
  if (!rollupBuildable(model, p)) return false;
  if (q.ungrouped || q.segments.length > 0) return false;
  const dims = new Set(p.dimensions);
  const measures = new Map<string, Measure>();
  for (const m of q.measures) {
    const measure = m.member as Measure;
    if (measure.kind !== 'measure' || !p.measures.includes(memberKey(m)) || !isAdditive(model, measure))
      return false;
    measures.set(memberKey(m), measure);
  }
  for (const d of q.dimensions) if (!dims.has(memberKey(d))) return false;
  for (const td of q.timeDimensions) {
    if (memberKey(td.member) !== p.timeDimension || p.granularity === null) return false;
    if (td.granularity !== null && !servesGranularity(p.granularity, td.granularity)) return false;
    const r = td.dateRange;
    const unit = p.granularity as TimeUnit;
    if (r && (startOf(r.from, unit) !== r.from || endOf(r.to, unit) !== r.to)) return false;
  }
  if (p.timeDimension !== null && q.timeDimensions.length > 0 && q.timezone !== buildTimezone) return false;
  // another zone's build holds wall-clock times of that zone only
  if (buildTimezone !== 'UTC' && q.timezone !== buildTimezone) return false;

  const tree = rollupJoinTree(model, p);
  const repeated = multipliedCubes(tree);
  const ownGrouping =
    new Set(q.dimensions.map(memberKey)).size === dims.size &&
    (p.timeDimension === null ||
      q.timeDimensions.some(
        (t) => memberKey(t.member) === p.timeDimension && t.granularity === p.granularity,
      ));
  for (const m of measures.values()) {
    if (repeated.has(m.cube) && (m.type === 'count' || m.type === 'sum') && !ownGrouping) return false;
  }

  let unknownPolicy = false;
  const cubeSecurity: CubeSecurity =
    securityContext === undefined
      ? () => {
          unknownPolicy = true;
          return null;
        }
      : (cube) => cubePolicy(model, cube, securityContext);
  const joined = joinTree(model, q, cubeSecurity);
  if (unknownPolicy || !sameJoins(joined.tree, tree)) return false;

  const onRollup = (n: FilterNode): boolean => {
    if (n.kind === 'deny') return true;
    if (n.kind !== 'member') return n.items.every(onRollup);
    const key = memberKey(n.member);
    const member = n.member.member;
    if (member.kind === 'measure') return p.measures.includes(key) && isAdditive(model, member);
    // a time dimension column holds wall-clock values of the build's zone; filters compare instants
    if (member.kind === 'dimension' && member.type === 'time' && buildTimezone !== 'UTC') return false;
    return dims.has(key);
  };
  // row-level security: the rollup holds every row, so every policy's filters apply on top
  return q.filters.every(onRollup) && joined.security.every(onRollup);
}

/** The query's joins are the rollup's: same root, and each join one the rollup's build made. */
function sameJoins(query: JoinTree, rollup: JoinTree): boolean {
  return (
    query.root === rollup.root &&
    query.edges.every((e) => rollup.edges.some((r) => r.from === e.from && r.to === e.to))
  );
}

/** A cube's row-level filter for this context (null: none), as compileQuery resolves it. */
export function cubePolicy(
  model: Model,
  cube: string,
  securityContext: SecurityContext,
  timezone = 'UTC',
  now = Date.now(),
): FilterNode | null {
  const access = resolveAccess(model, securityContext);
  const f = access.rowFilters.get(cube);
  if (f === undefined) return null;
  if (f === false) return { kind: 'deny' };
  return normalizeFilter(f, { model, access, timezone, now, trusted: true });
}

/** The query's date range, when the rollup has a built range it must lie within. */
export function rollupCovers(source: RollupSource, q: ResolvedQuery): boolean {
  if (source.range === null) return true;
  const td = q.timeDimensions.find((t) => memberKey(t.member) === source.preAggregation.timeDimension);
  const r = td?.dateRange;
  return r !== undefined && r !== null && r.from >= source.range.from && r.to <= source.range.to;
}
