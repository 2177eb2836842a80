import { type CompiledQuery, compileQuery } from '../compile-query.ts';
import type { Dialect } from '../dialect/dialect.ts';
import type { CubeQuery } from '../query/types.ts';
import type { PlanContext } from './context.ts';

/**
 * Compiles one Cube query through compileQuery, the same path as /v1/load, so that the caller's
 * member-level and row-level policies apply whatever the SQL said. Its placeholders are numbered
 * after those of the queries compiled before it, so that all of them share one statement. A
 * rollup that can answer it is read instead when the caller gave a hook (context.ts RollupHook).
 */
export function compileSemantic(ctx: PlanContext, query: CubeQuery): CompiledQuery {
  const offset = ctx.params.length;
  const dialect: Dialect = { ...ctx.dialect, placeholder: (i) => ctx.dialect.placeholder(i + offset) };
  const options = { dialect, securityContext: ctx.securityContext, now: ctx.now };
  const raw = compileQuery(ctx.model, query, options);
  // a rollup answers with the raw query's columns and aliases: only its SQL and params differ
  const compiled = ctx.rollup?.(query, raw, options) ?? raw;
  if (compiled.totalSql) throw new Error('total is never requested by the SQL API');
  ctx.params.push(...compiled.params);
  ctx.semantic.push({ query: compiled.normalizedQuery, sql: compiled.sql, params: compiled.params });
  return compiled;
}
