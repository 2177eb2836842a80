import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompiledQuery,
  type CubeQuery,
  compileModelAsync,
  compileModelOrThrow,
  compileQuery,
  type DialectName,
  type Model,
  ModelValidationError,
  type SecurityContext,
} from '../../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from '../engines.ts';
import type { Tables } from '../fixtures/data.ts';

/**
 * Cases ported from Cube's schema-compiler integration tests
 * (packages/cubejs-schema-compiler/test/integration/postgres in cube-js/cube): the same data and
 * model, re-created here, and the rows Cube's tests expect, written as Tessera's data API returns
 * them (member names as keys, time values without zone). Each case runs on DuckDB and PostgreSQL.
 */
export interface CubeCase {
  readonly name: string;
  readonly query: CubeQuery;
  /** Expected rows in order; only the keys written here are compared. Or Cube's error message. */
  readonly expected: readonly Record<string, unknown>[] | { readonly error: string };
  /** The token's security context (Cube's `contextSymbols.securityContext`). */
  readonly securityContext?: SecurityContext;
}

export interface CubeSuite {
  /** The Cube test file the cases come from. */
  readonly source: string;
  readonly tables: Tables;
  readonly model: string;
  /** The model is a JavaScript file, as Cube's own tests write theirs (evaluated in the sandbox). */
  readonly javascript?: boolean;
  readonly cases: readonly CubeCase[];
  /** Cube cases not ported, each with the reason. */
  readonly left?: readonly string[];
  readonly now?: number;
}

const pgUp = await postgresAvailable();

export function cubeSuite(suite: CubeSuite): void {
  let model: Model = suite.javascript
    ? ({} as Model)
    : compileModelOrThrow([{ path: 'model/cube.yml', content: suite.model }]);
  const engines: Partial<Record<DialectName, Engine>> = {};
  const compile = (
    query: CubeQuery,
    dialect: DialectName,
    securityContext: SecurityContext = {},
  ): CompiledQuery =>
    compileQuery(model, query, { dialect, securityContext, now: suite.now ?? Date.UTC(2025, 5, 1) });

  describe(suite.source, () => {
    beforeAll(async () => {
      if (suite.javascript) {
        const { model: m, errors } = await compileModelAsync([
          { path: 'model/cube.js', content: suite.model },
        ]);
        if (errors.length > 0) throw new ModelValidationError(errors);
        model = m;
      }
      engines.duckdb = await duckdbEngine(suite.tables);
      if (pgUp) engines.postgres = await postgresEngine(suite.tables);
    });
    afterAll(async () => {
      await engines.duckdb?.close();
      await engines.postgres?.close();
    });
    for (const c of suite.cases) {
      for (const dialect of ['duckdb', 'postgres'] as const) {
        it.skipIf(dialect === 'postgres' && !pgUp)(`${c.name} (${dialect})`, async () => {
          if ('error' in c.expected) {
            expect(() => compile(c.query, dialect, c.securityContext)).toThrow(c.expected.error);
            return;
          }
          const rows = await runQuery(engines[dialect]!, compile(c.query, dialect, c.securityContext));
          const keys = Object.keys(c.expected[0] ?? {});
          expect(rows.map((r) => normalize(project(r, keys)))).toEqual(c.expected.map((r) => normalize(r)));
        });
      }
    }
    for (const reason of suite.left ?? []) it.todo(`not ported: ${reason}`);
  });
}

function project(row: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return keys.length === 0 ? row : Object.fromEntries(keys.map((k) => [k, row[k]]));
}

/** Numbers as text differ in digits between engines (numeric vs double): compare their values. */
function normalize(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === 'string' && /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v) ? String(Number(Number(v).toFixed(6))) : v,
    ]),
  );
}
