/**
 * The Explore page's state, all of it in the address so that a question can be bookmarked and
 * shared: `?q=` the Cube query in Rison (rison.ts), `&chart=` the chart kind when one was picked.
 */
import type { ChartKind } from '../results/chart-kinds.ts';
import { chartKinds } from '../results/chart-kinds.ts';
import { decodeRison, risonParam } from './rison.ts';

export type Granularity = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
export const granularities: readonly Granularity[] = [
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
  'minute',
  'second',
];

export interface MemberFilter {
  member: string;
  operator: string;
  values?: string[];
}
export interface TimeDimension {
  dimension: string;
  granularity?: string;
  dateRange?: string | string[];
}
export type Order = [string, 'asc' | 'desc'][];

/** The Cube query Explore builds (the parts it edits; the rest of a shared query is kept). */
export interface ExploreQuery {
  measures?: string[];
  dimensions?: string[];
  segments?: string[];
  timeDimensions?: TimeDimension[];
  filters?: (MemberFilter | { and: unknown[] } | { or: unknown[] })[];
  order?: Order;
  limit?: number;
  [key: string]: unknown;
}

export interface ExploreState {
  query: ExploreQuery;
  chart: ChartKind | null;
  /** A Vega-Lite spec edited by hand (`&spec=`, Rison), drawn instead of the chart kind's. */
  spec: Record<string, unknown> | null;
  /** Set when `q` could not be read: the page says so and starts empty. */
  problem: string | null;
}

/** The state in `search` (`location.search`). */
export function readState(search: string): ExploreState {
  const params = new URLSearchParams(search);
  const chartParam = params.get('chart');
  const chart = chartKinds.includes(chartParam as ChartKind) ? (chartParam as ChartKind) : null;
  let spec: Record<string, unknown> | null = null;
  const specParam = params.get('spec');
  if (specParam) {
    try {
      const value = decodeRison(specParam);
      if (value && typeof value === 'object' && !Array.isArray(value))
        spec = value as Record<string, unknown>;
    } catch {
      // An unreadable spec is dropped: the chart kind's is drawn.
    }
  }
  const q = params.get('q');
  if (!q) return { query: {}, chart, spec, problem: null };
  try {
    const value = decodeRison(q);
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { query: {}, chart, spec, problem: 'The address does not hold a query object.' };
    return { query: normalise(value as ExploreQuery), chart, spec, problem: null };
  } catch (e) {
    return {
      query: {},
      chart,
      spec,
      problem: `The query in the address could not be read: ${(e as Error).message}.`,
    };
  }
}

/** The search string for a state: `?q=(...)&chart=line`, or empty for an empty query. */
export function writeState(
  query: ExploreQuery,
  chart: ChartKind | null,
  spec: Record<string, unknown> | null = null,
): string {
  const parts: string[] = [];
  const clean = compact(query);
  if (Object.keys(clean).length > 0) parts.push(`q=${risonParam(clean)}`);
  if (chart) parts.push(`chart=${chart}`);
  if (spec) parts.push(`spec=${risonParam(spec)}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** Empty lists and unset fields left out, in a fixed order (one question, one address). */
export function compact(query: ExploreQuery): ExploreQuery {
  const out: ExploreQuery = {};
  const { measures, dimensions, segments, timeDimensions, filters, order, limit, ...rest } = query;
  if (measures?.length) out.measures = measures;
  if (dimensions?.length) out.dimensions = dimensions;
  if (segments?.length) out.segments = segments;
  if (timeDimensions?.length) out.timeDimensions = timeDimensions.map(compactTime);
  if (filters?.length) out.filters = filters;
  if (order?.length) out.order = order;
  if (typeof limit === 'number') out.limit = limit;
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  return out;
}

function compactTime(t: TimeDimension): TimeDimension {
  const out: TimeDimension = { dimension: t.dimension };
  if (t.granularity) out.granularity = t.granularity;
  if (
    t.dateRange !== undefined &&
    t.dateRange !== '' &&
    !(Array.isArray(t.dateRange) && t.dateRange.length === 0)
  )
    out.dateRange = t.dateRange;
  return out;
}

/** Accepts Cube's other spellings: `order` as an object, filters' `dimension`. */
function normalise(query: ExploreQuery): ExploreQuery {
  const out: ExploreQuery = { ...query };
  const order = query.order as unknown;
  if (order && typeof order === 'object' && !Array.isArray(order))
    out.order = Object.entries(order as Record<string, string>).map(([m, d]) => [
      m,
      d === 'desc' ? 'desc' : 'asc',
    ]);
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
  out.measures = strings(query.measures);
  out.dimensions = strings(query.dimensions);
  out.segments = strings(query.segments);
  if (Array.isArray(query.filters))
    out.filters = query.filters.map((f) => {
      const filter = f as MemberFilter & { dimension?: string };
      if (filter.dimension && !filter.member) {
        const { dimension, ...others } = filter;
        return { ...others, member: dimension };
      }
      return f;
    });
  if (typeof query.limit === 'string') out.limit = Number(query.limit) || undefined;
  return compact(out);
}

/** A query the data API can run: at least one measure, dimension or time dimension. */
export function runnable(query: ExploreQuery): boolean {
  return Boolean(query.measures?.length || query.dimensions?.length || query.timeDimensions?.length);
}

const noValues = new Set(['set', 'notSet', 'measureFilter']);

/** A member filter still being written: its operator takes values and it has none yet. */
export function incomplete(filter: unknown): boolean {
  const f = filter as Partial<MemberFilter>;
  if (typeof f.member !== 'string') return false;
  return !noValues.has(f.operator ?? '') && (f.values ?? []).length === 0;
}

/**
 * The query as the data API takes it (`order` as pairs is Cube's own array form), without the
 * filters still being written (an operator with no value yet), which the data API would refuse.
 */
export function toCubeQuery(query: ExploreQuery): Record<string, unknown> {
  return compact({ ...query, filters: query.filters?.filter((f) => !incomplete(f)) });
}
