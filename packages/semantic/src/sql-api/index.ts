/** Cube-compatible SQL API: PostgreSQL SELECTs over cubes and views -> plans for the engine. */
export { SqlApiError } from './ast.ts';
export { type RollupHook, type SemanticPart, SQL_API_ROW_LIMIT } from './context.ts';
export { columnType, inferColumnType, sqlApiValue } from './format.ts';
export { loadSqlParser } from './parse.ts';
export {
  planSqlQuery,
  planSqlQueryAsync,
  type SqlApiColumn,
  type SqlApiOptions,
  type SqlApiPlan,
} from './plan.ts';
