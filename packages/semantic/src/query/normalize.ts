import { UserError } from '../errors.ts';
import { isBuiltInGranularity } from '../model/interval.ts';
import type { Model } from '../model/types.ts';
import type { AccessResolution } from '../security/access.ts';
import { parseDateRange } from './date-range.ts';
import { type FilterContext, normalizeFilter } from './filters.ts';
import { resolveMember } from './members.ts';
import { defaultOrder, normalizeOrder } from './order.ts';
import { assertTimeZone } from './time.ts';
import type { CubeQuery, FilterNode, QueryMember, ResolvedQuery, TimeDimensionSpec } from './types.ts';

/** Cube's defaults: https://cube.dev/docs/product/apis-integrations/rest-api/query-format */
export const DEFAULT_LIMIT = 10_000;
export const MAX_LIMIT = 50_000;

export interface NormalizeOptions {
  readonly access: AccessResolution;
  /** Milliseconds since the epoch; relative date ranges are computed from it. */
  readonly now: number;
}

export function normalizeQuery(model: Model, query: CubeQuery, options: NormalizeOptions): ResolvedQuery {
  if (typeof query !== 'object' || query === null || Array.isArray(query))
    throw new UserError('Query must be an object');
  const timezone = query.timezone ?? 'UTC';
  if (typeof timezone !== 'string') throw new UserError('timezone must be a string');
  assertTimeZone(timezone);
  const { access, now } = options;
  const list = (key: 'measures' | 'dimensions' | 'segments'): readonly unknown[] => {
    const v = query[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new UserError(`${key} must be an array of member names`);
    return v;
  };
  const measures = list('measures').map((m) => resolveMember(model, access, m, 'measure', 'measures'));
  const segments = list('segments').map((m) => resolveMember(model, access, m, 'segment', 'segments'));
  const dimensions: QueryMember[] = [];
  const timeDimensions: TimeDimensionSpec[] = [];
  for (const d of list('dimensions')) {
    // `cube.time_dim.granularity` in dimensions is Cube's shorthand for a time dimension
    const parts = typeof d === 'string' ? d.split('.') : [];
    if (parts.length === 3) {
      const member = resolveMember(model, access, `${parts[0]}.${parts[1]}`, 'dimension', 'dimensions');
      timeDimensions.push({ member, granularity: granularityOf(member, parts[2]), dateRange: null });
    } else dimensions.push(resolveMember(model, access, d, 'dimension', 'dimensions'));
  }
  const tds = query.timeDimensions ?? [];
  if (!Array.isArray(tds)) throw new UserError('timeDimensions must be an array');
  for (const td of tds) {
    if (td.compareDateRange !== undefined) {
      throw new UserError(
        'compareDateRange queries must be split with expandCompareDateRange before compiling',
      );
    }
    const member = resolveMember(model, access, td.dimension, 'dimension', 'timeDimensions');
    if (member.member.kind !== 'dimension' || member.member.type !== 'time') {
      throw new UserError(`${member.path} is not a time dimension and cannot be used in timeDimensions`);
    }
    const granularity =
      td.granularity === undefined || td.granularity === null ? null : granularityOf(member, td.granularity);
    const dateRange =
      td.dateRange === undefined || td.dateRange === null
        ? null
        : parseDateRange(td.dateRange, timezone, now);
    timeDimensions.push({ member, granularity, dateRange });
  }
  const filterCtx: FilterContext = { model, access, timezone, now, trusted: false };
  const rawFilters = query.filters ?? [];
  if (!Array.isArray(rawFilters)) throw new UserError('filters must be an array');
  const filters = rawFilters.map((f) => normalizeFilter(f, filterCtx));
  const limit = checkLimit(query.limit ?? query.rowLimit);
  const offset = query.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new UserError(`Invalid offset: ${JSON.stringify(query.offset)}`);
  const ungrouped = query.ungrouped === true;
  const columns = { measures, dimensions, timeDimensions };
  const order =
    query.order === undefined ? defaultOrder(columns, ungrouped) : normalizeOrder(query.order, columns);
  const resolved: ResolvedQuery = {
    measures,
    dimensions,
    timeDimensions,
    segments,
    filters,
    security: securityFilters(model, access, { ...filterCtx, trusted: true }, [
      ...measures,
      ...dimensions,
      ...segments,
      ...timeDimensions.map((t) => t.member),
      ...filterMembers(filters),
    ]),
    order,
    limit,
    offset,
    total: query.total === true,
    timezone,
    ungrouped,
  };
  return resolved;
}

function granularityOf(member: QueryMember, g: unknown): string {
  const m = member.member;
  if (m.kind !== 'dimension' || m.type !== 'time')
    throw new UserError(`${member.path} is not a time dimension`);
  if (typeof g === 'string' && (isBuiltInGranularity(g) || m.granularities.has(g))) return g;
  throw new UserError(`Unknown granularity '${String(g)}' for ${member.path}`);
}

function checkLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)
    throw new UserError(`Invalid limit: ${JSON.stringify(limit)}`);
  if (limit > MAX_LIMIT) throw new UserError(`Limit ${limit} exceeds maximum row limit of ${MAX_LIMIT}`);
  return limit;
}

function filterMembers(nodes: readonly FilterNode[]): QueryMember[] {
  const out: QueryMember[] = [];
  const walk = (n: FilterNode) => {
    if (n.kind === 'member') out.push(n.member);
    else if (n.kind !== 'deny') n.items.forEach(walk);
  };
  nodes.forEach(walk);
  return out;
}

/**
 * Row-level filters of every cube or view the query names. A member reached through a view is
 * governed by the view's policy here; the planner adds the policies of every other cube it
 * joins, the view's cubes included, so a view never reads more than its cubes allow.
 */
function securityFilters(
  model: Model,
  access: AccessResolution,
  ctx: FilterContext,
  members: QueryMember[],
): FilterNode[] {
  const owners = new Set(members.map((m) => m.owner));
  const out: FilterNode[] = [];
  for (const owner of owners) {
    const f = access.rowFilters.get(owner);
    if (f === undefined) continue;
    out.push(f === false ? { kind: 'deny' } : normalizeFilter(f, ctx));
  }
  void model;
  return out;
}
