import type { CompiledQuery, CompileQueryOptions } from '../compile-query.ts';
import type { Dialect } from '../dialect/dialect.ts';
import type { Model } from '../model/types.ts';
import type { CubeQuery } from '../query/types.ts';
import type { SecurityContext } from '../security/context.ts';

/** Cube's SQL API answers at most this many rows, and each semantic subquery reads at most this many. */
export const SQL_API_ROW_LIMIT = 50_000;

/** One innermost SELECT over a cube or view, planned as a Cube query. */
export interface SemanticPart {
  readonly query: CubeQuery;
  /** The compiled SQL, policies applied, with its own parameters. */
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Serves a semantic subquery from a built rollup (the server's pre-aggregation matcher): the
 * query compiled against the rollup with `options` (its placeholders numbered after the ones
 * before it), or null to keep the raw SQL.
 */
export type RollupHook = (
  query: CubeQuery,
  raw: CompiledQuery,
  options: CompileQueryOptions,
) => CompiledQuery | null;

/** Shared state of one translation: the parameters and semantic parts gathered so far. */
export interface PlanContext {
  readonly model: Model;
  readonly dialect: Dialect;
  readonly securityContext: SecurityContext;
  readonly timezone: string;
  readonly now: number;
  readonly params: unknown[];
  readonly semantic: SemanticPart[];
  readonly rollup?: RollupHook;
}

/** What a printed (sub)query yields: its SQL and its output columns. */
export interface Printed {
  readonly sql: string;
  readonly columns: readonly string[];
  /** Member type of each column when it is a member as is (`string`, `number`, `time`, ...), else null. */
  readonly types: readonly (string | null)[];
}

/** CTEs visible to a query, with their columns, innermost first. */
export interface Scope {
  readonly ctes: ReadonlyMap<string, readonly string[]>;
  readonly parent: Scope | null;
}

export function findCte(scope: Scope | null, name: string): readonly string[] | null {
  for (let s = scope; s; s = s.parent) {
    const cte = s.ctes.get(name);
    if (cte) return cte;
  }
  return null;
}
