import {
  type CompiledQuery,
  type CubeQuery,
  compileQueries,
  type DialectName,
  loadSqlParser,
  type Model,
  planSqlQuery,
  type RollupHook,
  type SecurityContext,
  type SqlApiPlan,
  UserError,
} from '@tessera/semantic';
import { userError } from './errors.ts';
import type { RollupUse } from './pre-aggregations/use.ts';
import { refreshKeyMs } from './refresh.ts';

export const queryTypes = {
  regular: 'regularQuery',
  compare: 'compareDateRangeQuery',
  blending: 'blendingQuery',
} as const;
export type QueryType = (typeof queryTypes)[keyof typeof queryTypes];

/** One SQL statement of a Cube query (a compare query has one per date range). */
export interface CompiledPart {
  query: CubeQuery;
  compiled: CompiledQuery;
  /** The cubes' shortest `refresh_key.every`; null: the deployment's default freshness. */
  refreshKeyMs: number | null;
  /** Set when a built rollup answers this part (pre-aggregations/matcher.ts). */
  rollup?: RollupUse;
}

/** A Cube query (or several: data blending), compiled for one caller; nothing has run. */
export interface CompiledLoad {
  kind: 'load';
  queryType: QueryType;
  parts: CompiledPart[];
  dialect: DialectName;
  /** The model it was compiled from (ModelCache.version): part of the result key (run.ts). */
  modelVersion?: string;
}

/** SQL-API text planned for one caller: one statement whose inner selects over cubes are compiled. */
export interface CompiledSqlApi {
  kind: 'sql';
  plan: SqlApiPlan;
  dialect: DialectName;
  /** The model it was compiled from (ModelCache.version): part of the result key (run.ts). */
  modelVersion?: string;
}

interface CompileContext {
  dialect: DialectName;
  securityContext: SecurityContext;
}

/**
 * Compiles Cube queries with @tessera/semantic under the caller's security context; a query the
 * caller got wrong is a UserError (400). Several queries are data blending and must share one
 * granularity; a query with `compareDateRange` compiles to one part per range (Cube's rules).
 */
export function compileLoad(model: Model, query: CubeQuery | CubeQuery[], ctx: CompileContext): CompiledLoad {
  const queries = Array.isArray(query) ? query : [query];
  let queryType: QueryType = queries.length > 1 ? queryTypes.blending : queryTypes.regular;
  const parts: CompiledPart[] = [];
  try {
    for (const q of queries) {
      const list = compileQueries(model, q, { ...ctx, now: Date.now() });
      if (list.length > 1 || q.timeDimensions?.some((t) => t.compareDateRange !== undefined)) {
        queryType = queryTypes.compare;
      }
      for (const compiled of list)
        parts.push({ query: q, compiled, refreshKeyMs: refreshKeyMs(model, compiled.resolved) });
    }
  } catch (error) {
    // The semantic error stays the cause: a caller in-process may tell a join path from the rest.
    if (error instanceof UserError) throw Object.assign(userError(error.message), { cause: error });
    throw error;
  }
  if (queryType === queryTypes.blending) {
    const grains = new Set(parts.map((p) => p.compiled.normalizedQuery.timeDimensions?.[0]?.granularity));
    if (grains.size > 1) throw userError('Data blending query granularities must match');
    if (grains.has(undefined)) throw userError('Data blending query without granularity is not supported');
  }
  return { kind: 'load', queryType, parts, dialect: ctx.dialect };
}

/**
 * Plans `/v1/cubesql` text with @tessera/semantic's SQL API translator, whose innermost SELECTs
 * over cubes are compiled by compileQuery under the caller's security context (the same policy
 * path as /v1/load). Unsupported SQL is a UserError (400) before anything runs.
 */
export async function compileSqlApi(
  model: Model,
  sql: string,
  ctx: CompileContext & { timezone?: string; rollup?: RollupHook },
): Promise<CompiledSqlApi> {
  await loadSqlParser();
  try {
    return { kind: 'sql', plan: planSqlQuery(model, sql, { ...ctx, now: Date.now() }), dialect: ctx.dialect };
  } catch (error) {
    if (error instanceof UserError) throw userError(error.message);
    throw error;
  }
}
