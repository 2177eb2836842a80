import { DIALECTS } from '../compile-query.ts';
import type { Dialect, DialectName } from '../dialect/dialect.ts';
import type { Model } from '../model/types.ts';
import { assertTimeZone } from '../query/time.ts';
import type { SecurityContext } from '../security/context.ts';
import { SqlApiError } from './ast.ts';
import type { PlanContext, RollupHook, SemanticPart } from './context.ts';
import { columnType } from './format.ts';
import { printQuery } from './outer.ts';
import { loadSqlParser, parseSelect } from './parse.ts';

export interface SqlApiOptions {
  readonly dialect: DialectName | Dialect;
  /** Required, as for compileQuery: every semantic subquery is compiled under it. */
  readonly securityContext: SecurityContext;
  readonly timezone?: string;
  readonly now?: number;
  /** Reads built rollups for the subqueries they can answer (context.ts RollupHook). */
  readonly rollup?: RollupHook;
}

export interface SqlApiColumn {
  /** The name the caller sees (`status`, `measure`, an alias). */
  readonly name: string;
  /** The engine's column name in `sql` (`__c0`, `__c1`, ...): names may repeat, these do not. */
  readonly alias: string;
  /** Cube's SQL API column type (`Utf8`, `Int64`, `Float64`, `Timestamp`, `Boolean`); null = from the values. */
  readonly columnType: string | null;
  /** Member type when the column is a member as is; guides value formatting. */
  readonly memberType: string | null;
}

export interface SqlApiPlan {
  /** One statement for the engine: the semantic queries inlined as subqueries of the outer SQL. */
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly columns: readonly SqlApiColumn[];
  /** The innermost SELECTs over cubes, as the Cube queries they were planned as. */
  readonly semantic: readonly SemanticPart[];
}

/**
 * Cube's SQL API (https://cube.dev/docs/product/apis-integrations/sql-api/query-format): one
 * PostgreSQL SELECT where cubes and views are tables -> one statement for the engine. The parser
 * must be loaded first (`loadSqlParser`, or use `planSqlQueryAsync`).
 */
export function planSqlQuery(model: Model, sql: string, options: SqlApiOptions): SqlApiPlan {
  if (typeof options?.securityContext !== 'object' || options.securityContext === null)
    throw new TypeError('planSqlQuery needs a securityContext (use {} for an anonymous context)');
  const dialect = typeof options.dialect === 'string' ? DIALECTS[options.dialect] : options.dialect;
  if (dialect.sqlApi?.refused) throw new SqlApiError(dialect.sqlApi.refused);
  const timezone = options.timezone ?? 'UTC';
  assertTimeZone(timezone);
  const ctx: PlanContext = {
    model,
    dialect,
    securityContext: options.securityContext,
    timezone,
    now: options.now ?? Date.now(),
    params: [],
    semantic: [],
    ...(options.rollup ? { rollup: options.rollup } : {}),
  };
  const printed = printQuery(parseSelect(sql), ctx, null, true);
  return {
    sql: printed.sql,
    params: ctx.params,
    columns: printed.columns.map((name, i) => ({
      name,
      alias: `__c${i}`,
      columnType: printed.types[i] === null ? null : columnType(printed.types[i]!),
      memberType: printed.types[i],
    })),
    semantic: ctx.semantic,
  };
}

export async function planSqlQueryAsync(
  model: Model,
  sql: string,
  options: SqlApiOptions,
): Promise<SqlApiPlan> {
  await loadSqlParser();
  return planSqlQuery(model, sql, options);
}
