import type { CompiledQuery, CubeQuery } from '@tessera/semantic';
import type { QueryResult } from './executor.ts';

export const queryTypes = {
  regular: 'regularQuery',
  compare: 'compareDateRangeQuery',
  blending: 'blendingQuery',
} as const;
export type QueryType = (typeof queryTypes)[keyof typeof queryTypes];

/**
 * One entry of `results[]` (or the whole body of a single-query `/v1/load`), field for field as
 * Cube's gateway builds it (packages/cubejs-api-gateway/src/gateway.ts, getResultInternal).
 * Tessera has no pre-aggregations or external store, hence the constant fields.
 */
export function loadResult(
  compiled: CompiledQuery,
  queryType: QueryType,
  result: QueryResult,
  dbType: string,
) {
  const query = { ...compiled.normalizedQuery, queryType };
  return {
    query,
    lastRefreshTime: result.refreshedAt.toISOString(),
    refreshKeyValues: [],
    usedPreAggregations: {},
    transformedQuery: null,
    annotation: compiled.annotation,
    dataSource: 'default',
    dbType,
    extDbType: 'cubestore',
    external: false,
    slowQuery: false,
    ...(compiled.normalizedQuery.total ? { total: result.total } : {}),
    data: shapeData(result.rows, compiled, query.responseFormat),
  };
}

/** `responseFormat`: rows of objects (default), `compact` `{members, dataset}`, `columnar`. */
function shapeData(rows: Record<string, unknown>[], compiled: CompiledQuery, format: unknown) {
  if (format !== 'compact' && format !== 'columnar') return rows;
  const members = compiled.columns.flatMap((c) => c.keys);
  if (format === 'compact') return { members, dataset: rows.map((r) => members.map((m) => r[m])) };
  return { members, columns: members.map((m) => rows.map((r) => r[m])) };
}

/**
 * Cube's getPivotQuery: the first query, or for data blending the union of the measures and
 * dimensions under one `time` dimension at the common granularity.
 */
export function pivotQuery(queryType: QueryType, normalized: CubeQuery[]): Record<string, unknown> {
  if (queryType !== queryTypes.blending) return { ...normalized[0], queryType };
  const first = normalized[0].timeDimensions?.[0];
  const uniq = (key: 'measures' | 'dimensions') => [...new Set(normalized.flatMap((q) => q[key] ?? []))];
  return {
    measures: uniq('measures'),
    dimensions: uniq('dimensions'),
    timeDimensions: first
      ? [{ dimension: 'time', granularity: first.granularity, dateRange: first.dateRange }]
      : [],
    queryType,
  };
}

/** Blending charts read every result's time values under the shared `time` member. */
export function addBlendingTime(rows: Record<string, unknown>[], compiled: CompiledQuery) {
  const td = compiled.normalizedQuery.timeDimensions?.[0];
  if (!td?.granularity) return rows;
  const source = `${td.dimension}.${td.granularity}`;
  return rows.map((r) => ({ ...r, [`time.${td.granularity}`]: r[source], time: r[source] }));
}
