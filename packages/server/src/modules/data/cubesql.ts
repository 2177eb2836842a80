import {
  inferColumnType,
  loadSqlParser,
  type Model,
  planSqlQuery,
  type SqlApiPlan,
  sqlApiValue,
  UserError,
} from '@tessera/semantic';
import type { DriverRegistry } from '../../datasources/registry.ts';
import type { DataCaller } from './caller.ts';
import { DataApiError, userError } from './errors.ts';
import { CONTINUE_WAIT, type QueryExecutor, type QueryResult } from './executor.ts';
import type { DataSettings } from './settings.ts';
import { contextKey } from './token.ts';

export interface SqlApiDeps {
  model(caller: DataCaller): Promise<Model>;
  drivers: DriverRegistry;
  executor: QueryExecutor;
  settings: DataSettings;
}

/** What `/v1/cubesql` streams: the schema line, then the rows as arrays of text values. */
export interface SqlApiAnswer {
  schema: { name: string; column_type: string }[];
  rows: (string | null)[][];
  lastRefreshTime: string;
}

/** Body `{query, timezone}` (POST) or `?query=` (GET), as Cube's `/v1/cubesql`. */
export function readSqlRequest(
  querystring: Record<string, unknown>,
  body: unknown,
): { sql: string; timezone?: string } {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : querystring;
  if (typeof source.query !== 'string' || source.query.trim() === '')
    throw userError('query must be a SQL string');
  if (source.timezone !== undefined && typeof source.timezone !== 'string')
    throw userError('timezone must be a string');
  return { sql: source.query, timezone: source.timezone as string | undefined };
}

/**
 * `/v1/cubesql`: plans the SQL with @tessera/semantic's SQL API translator, whose innermost
 * SELECTs over cubes are compiled by compileQuery under the caller's security context (the
 * same policy path as /v1/load), then runs the one statement through the data API's executor
 * (cache, in-flight sharing, timeout). Unsupported SQL is a 400 before anything runs.
 */
export async function runSqlApi(
  deps: SqlApiDeps,
  caller: DataCaller,
  sql: string,
  timezone?: string,
): Promise<SqlApiAnswer> {
  const model = await deps.model(caller);
  const driver = await deps.drivers.get(caller.deployment);
  await loadSqlParser();
  let plan: SqlApiPlan;
  try {
    plan = planSqlQuery(model, sql, {
      dialect: driver.dialect,
      securityContext: caller.securityContext,
      timezone,
      now: Date.now(),
    });
  } catch (error) {
    if (error instanceof UserError) throw userError(error.message);
    throw error;
  }
  const key = JSON.stringify([
    'cubesql',
    caller.deployment.id,
    caller.deployment.data_source,
    plan.sql,
    plan.params,
    contextKey(caller.securityContext),
  ]);
  const options = { renew: false, freshMs: deps.settings.defaultRefreshMs };
  const start = async (signal: AbortSignal) => {
    try {
      return { rows: await driver.query(plan.sql, plan.params, { signal }), total: null };
    } catch (error) {
      throw engineError(error);
    }
  };
  // Cube's SQL API over HTTP has no long polling: keep joining the same execution until it ends.
  let outcome = await deps.executor.run(key, options, start);
  while (outcome === CONTINUE_WAIT) outcome = await deps.executor.run(key, options, start);
  return answer(plan, outcome as QueryResult);
}

function answer(plan: SqlApiPlan, result: QueryResult): SqlApiAnswer {
  const schema = plan.columns.map((c) => ({
    name: c.name,
    column_type: c.columnType ?? inferColumnType(result.rows.map((r) => r[c.alias])),
  }));
  const rows = result.rows.map((r) =>
    plan.columns.map((c, i) => sqlApiValue(r[c.alias], schema[i].column_type)),
  );
  return { schema, rows, lastRefreshTime: result.refreshedAt.toISOString() };
}

/**
 * The engine refusing validated outer SQL (a type mismatch, division by zero, a column that is
 * not there) is the caller's problem: 400 with the engine's words. Anything else stays a 5xx.
 */
function engineError(error: unknown): unknown {
  if (error instanceof DataApiError) return error;
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : '';
  const pgUserError = typeof e?.code === 'string' && /^(22|42)/.test(e.code);
  const duckUserError =
    /^(Binder|Conversion|Parser|Catalog|Invalid Input|Out of Range|Not implemented|Invalid Error|Constraint) Error/.test(
      message,
    );
  return pgUserError || duckUserError ? userError(`Query failed: ${message.split('\n')[0]}`) : error;
}
