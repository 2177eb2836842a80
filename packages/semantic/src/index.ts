/**
 * @tessera/semantic: Cube-compatible data model -> validated model -> query plan -> SQL.
 * A pure library: no HTTP, no database connections.
 */
export {
  type CompiledQuery,
  type CompileQueryOptions,
  compileQueries,
  compileQuery,
  DIALECTS,
  expandCompareDateRange,
} from './compile-query.ts';
export { CLICKHOUSE_SETTINGS } from './dialect/clickhouse.ts';
export { DIALECT_NAMES, type Dialect, type DialectName } from './dialect/dialect.ts';
export { duckdb } from './dialect/duckdb.ts';
export { postgres } from './dialect/postgres.ts';
export { type CompiledSql, printSelect } from './dialect/print.ts';
export {
  formatModelError,
  JoinPathError,
  type ModelError,
  ModelValidationError,
  UserError,
} from './errors.ts';
export { getMeta, type MetaCube, type MetaMember, type MetaOptions } from './meta/meta.ts';
export {
  type CompileModelAsyncOptions,
  type CompileModelOptions,
  type CompileModelResult,
  compileModel,
  compileModelAsync,
  compileModelOrThrow,
  isJavaScript,
  isJinja,
  type ModelFile,
} from './model/compile.ts';
export {
  type DisablingError,
  type Isolation,
  isolateModel,
  type UnavailableCube,
} from './model/isolate.ts';
export {
  evaluateJsFiles,
  type JinjaRendering,
  type JsDefinition,
  type JsEvaluation,
  type JsSandboxOptions,
  renderJinjaFiles,
} from './model/sandbox/run.ts';
export type * from './model/types.ts';
export type { PlannedColumn } from './planner/columns.ts';
export * as sqlTree from './planner/nodes.ts';
export { type CubeSecurity, type Plan, type PlanOptions, planQuery } from './planner/plan.ts';
export {
  compileFromRollup,
  type RollupSource,
  rollupBuildable,
  rollupBuildSql,
  rollupCanAnswer,
  rollupColumns,
  rollupCovers,
} from './pre-aggregations/rollup.ts';
export { DEFAULT_LIMIT, MAX_LIMIT, normalizeQuery } from './query/normalize.ts';
export { add as addTime, formatLocal, startOf as startOfPeriod, type TimeUnit } from './query/time.ts';
export type * from './query/types.ts';
export { FILTER_OPERATORS } from './query/types.ts';
export type { Annotation, MemberAnnotation } from './result/annotation.ts';
export { formatRow, formatTime, formatValue, type OutputColumn } from './result/format.ts';
export { type AccessResolution, resolveAccess } from './security/access.ts';
export type { SecurityContext } from './security/context.ts';
export {
  columnType,
  inferColumnType,
  loadSqlParser,
  planSqlQuery,
  planSqlQueryAsync,
  type RollupHook,
  type SemanticPart,
  SQL_API_ROW_LIMIT,
  type SqlApiColumn,
  SqlApiError,
  type SqlApiOptions,
  type SqlApiPlan,
  sqlApiValue,
} from './sql-api/index.ts';
