import type { CompiledQuery, CubeQuery } from '@tessera/semantic';
import { type CompiledLoad, type QueryType, queryTypes } from './compile.ts';
import { userError } from './errors.ts';
import type { RollupUse } from './pre-aggregations/use.ts';
import type { LoadResult, PartResult } from './run.ts';

/**
 * Cube's wire bodies for `/v1/load`, `/v1/sql` and `/v1/dry-run`, built from the data service's
 * typed values; only the data-API routes use them (DESIGN.md "Semantic layer and data API":
 * wire-compatible with Cube's REST API so that @cubejs-client/core works unchanged).
 */

/** Cube's long-polling answer (status 200): the client repeats the request, which joins the execution. */
export const continueWaitBody = { error: 'Continue wait' } as const;

/** Without `queryType=multi` a client understands one regular result only (Cube's gateway rule). */
export function checkQueryType(compiled: CompiledLoad, requested: string | undefined) {
  if (compiled.queryType !== queryTypes.regular && requested !== 'multi') {
    throw userError(
      `'${compiled.queryType}' query type is not supported by the client. Please update the client.`,
    );
  }
}

/** `/v1/load`: one result, or with `queryType=multi` `{queryType, results[], pivotQuery, slowQuery}`. */
export function loadBody(result: LoadResult, dialect: string, requested: string | undefined) {
  const { queryType } = result;
  const results = result.parts.map((part) => {
    const rows =
      queryType === queryTypes.blending
        ? addBlendingTime(part.rows, part.compiled)
        : queryType === queryTypes.compare
          ? addCompareDateRange(part.rows, part.compiled)
          : part.rows;
    return loadResult(part.compiled, queryType, { ...part, rows }, dialect);
  });
  if (requested !== 'multi') return results[0];
  return {
    queryType,
    results,
    pivotQuery: pivotQuery(
      queryType,
      result.parts.map((p) => p.compiled.normalizedQuery),
    ),
    slowQuery: false,
  };
}

/**
 * `/v1/sql`: the SQL each query compiles to for this caller, in Cube's `{sql: {sql: [text, params]}}`;
 * when a built rollup answers it, that SQL reads the rollup and `preAggregations` describes it.
 */
export function sqlBody(compiled: CompiledLoad) {
  const entries = compiled.parts.map(({ compiled: c, rollup }) => ({
    sql: {
      sql: [c.sql, c.params],
      aliasNameToMember: c.aliases,
      order: c.normalizedQuery.order,
      cacheKeyQueries: [],
      dataSource: 'default',
      external: false,
      preAggregations: rollup ? preAggregationDescriptions(rollup, c) : [],
      rollupMatchResults: [],
    },
  }));
  return compiled.queryType === queryTypes.regular ? entries[0] : entries;
}

/**
 * The rollup a `/v1/sql` query would read, one entry per table (a partitioned rollup: each
 * partition its range touches), with the fields of Cube's pre-aggregation description
 * (schema-compiler PreAggregations preAggregationDescriptionFor) that apply here. Its refresh
 * queries stay internal (`invalidateKeyQueries` empty), like the query's `cacheKeyQueries`.
 */
function preAggregationDescriptions(rollup: RollupUse, c: CompiledQuery) {
  const p = rollup.preAggregation;
  return Object.values(rollup.used).map((t) => ({
    preAggregationId: `${p.cube}.${p.name}`,
    type: p.type,
    tableName: t.targetTableName,
    timezone: c.normalizedQuery.timezone ?? 'UTC',
    granularity: p.granularity,
    partitionGranularity: p.partitionGranularity,
    external: rollup.external,
    dataSource: 'default',
    invalidateKeyQueries: [],
    lastUpdatedAt: t.lastUpdatedAt,
  }));
}

/** `/v1/dry-run`: the normalised queries without running them. */
export function dryRunBody(compiled: CompiledLoad) {
  const { queryType } = compiled;
  const normalizedQueries = compiled.parts.map((p) => ({ ...p.compiled.normalizedQuery, queryType }));
  return {
    queryType,
    normalizedQueries,
    queryOrder: normalizedQueries.map((q) =>
      Object.fromEntries((q.order as [string, string][] | undefined) ?? []),
    ),
    transformedQueries: normalizedQueries.map(() => null),
    pivotQuery: pivotQuery(queryType, normalizedQueries),
  };
}

/**
 * One entry of `results[]` (or the whole body of a single-query `/v1/load`), field for field as
 * Cube's gateway builds it (packages/cubejs-api-gateway/src/gateway.ts, getResultInternal).
 * `usedPreAggregations` names the rollup tables that answered (pre-aggregations/matcher.ts);
 * `external` is true when they live outside the deployment's engine (the sample's in-process DuckDB).
 */
function loadResult(compiled: CompiledQuery, queryType: QueryType, part: PartResult, dbType: string) {
  const query = { ...compiled.normalizedQuery, queryType };
  return {
    query,
    lastRefreshTime: part.refreshedAt.toISOString(),
    refreshKeyValues: [],
    usedPreAggregations: part.rollup?.used ?? {},
    transformedQuery: null,
    annotation: compiled.annotation,
    dataSource: 'default',
    dbType,
    extDbType: 'cubestore',
    external: part.rollup?.external ?? false,
    slowQuery: false,
    ...(compiled.normalizedQuery.total ? { total: part.total } : {}),
    data: shapeData(part.rows, compiled, query.responseFormat),
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
 * Cube's getPivotQuery (packages/cubejs-api-gateway/src/query.ts): the first query, with
 * `compareDateRange` as its first dimension for a compare query (the client pivots the ranges
 * into series on it), or for data blending the union of the measures and dimensions under one
 * `time` dimension at the common granularity.
 */
function pivotQuery(queryType: QueryType, normalized: CubeQuery[]): Record<string, unknown> {
  if (queryType === queryTypes.compare) {
    const [first] = normalized;
    return { ...first, dimensions: ['compareDateRange', ...(first.dimensions ?? [])], queryType };
  }
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
function addBlendingTime(rows: Record<string, unknown>[], compiled: CompiledQuery) {
  const td = compiled.normalizedQuery.timeDimensions?.[0];
  if (!td?.granularity) return rows;
  const source = `${td.dimension}.${td.granularity}`;
  return rows.map((r) => ({ ...r, [`time.${td.granularity}`]: r[source], time: r[source] }));
}

/**
 * Each row of a compare query names its range under `compareDateRange`, `from - to` as the
 * normalised query writes them (Cube's transformData), which the client's pivot reads.
 */
function addCompareDateRange(rows: Record<string, unknown>[], compiled: CompiledQuery) {
  const range = compiled.normalizedQuery.timeDimensions?.find((t) => t.dateRange)?.dateRange;
  if (!Array.isArray(range)) return rows;
  const compareDateRange = range.join(' - ');
  return rows.map((r) => ({ ...r, compareDateRange }));
}
