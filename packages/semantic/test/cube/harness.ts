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
  UserError,
} from '../../src/index.ts';
import {
  clickhouseEngine,
  duckdbEngine,
  type Engine,
  ensureMariadbZoneTables,
  mariadbAvailable,
  mariadbEngine,
  postgresAvailable,
  postgresEngine,
  runQuery,
} from '../engines.ts';
import type { Tables } from '../fixtures/data.ts';

/**
 * Cases ported from Cube's schema-compiler integration tests
 * (packages/cubejs-schema-compiler/test/integration/postgres in cube-js/cube): the same data and
 * model, re-created here, and the rows Cube's tests expect, written as Tessera's data API returns
 * them (member names as keys, time values without zone). Each case runs on DuckDB, PostgreSQL,
 * MariaDB and ClickHouse (chdb): the same rows, or, where the dialect cannot do it, its refusal in
 * words (`refusals`), never other rows (issue 24).
 */
export interface CubeCase {
  readonly name: string;
  readonly query: CubeQuery;
  /** Expected rows in order; only the keys written here are compared. Or Cube's error message. */
  readonly expected: readonly Record<string, unknown>[] | { readonly error: string };
  /** The token's security context (Cube's `contextSymbols.securityContext`). */
  readonly securityContext?: SecurityContext;
  /** Engines the case's model SQL (Cube's, written for PostgreSQL) is not SQL of, and why. */
  readonly notOn?: NotOn;
}

/** Engine -> why the model SQL, as Cube's tests write it, is not that engine's SQL. */
export type NotOn = Partial<Record<Exclude<DialectName, 'duckdb' | 'postgres'>, string>>;

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
  /** As a case's `notOn`, for every case of the suite. */
  readonly notOn?: NotOn;
  readonly now?: number;
}

const pgUp = await postgresAvailable();
const mariadbUp = await mariadbAvailable();
if (mariadbUp) await ensureMariadbZoneTables();

/** The engines every case runs on: the embedded ones always, the servers when they answer (issue 24). */
const dialects = ['duckdb', 'postgres', 'mysql', 'clickhouse'] as const;
const reachable: Record<(typeof dialects)[number], boolean> = {
  duckdb: true,
  postgres: pgUp,
  mysql: mariadbUp,
  clickhouse: true,
};

/**
 * What a dialect refuses, in its own words (dialect/mysql.ts): a case needing it must be refused
 * so, with the feature and the engine named. Any other error, or other rows, fails.
 */
const refusals: Partial<Record<DialectName, RegExp>> = {
  mysql:
    /^(Multi-stage measures that combine stages by their dimensions|Median measures) are not supported on MySQL\/MariaDB: /,
};

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
      if (mariadbUp) engines.mysql = await mariadbEngine(suite.tables);
      engines.clickhouse = await clickhouseEngine(suite.tables);
    });
    afterAll(async () => {
      for (const engine of Object.values(engines)) await engine?.close();
    });
    for (const c of suite.cases) {
      for (const dialect of dialects) {
        const notOn =
          dialect === 'duckdb' || dialect === 'postgres' ? undefined : (c.notOn ?? suite.notOn)?.[dialect];
        if (notOn) {
          it.skip(`${c.name} (${dialect}: ${notOn})`, () => {});
          continue;
        }
        it.skipIf(!reachable[dialect])(`${c.name} (${dialect})`, async () => {
          if ('error' in c.expected) {
            expect(() => compile(c.query, dialect, c.securityContext)).toThrow(c.expected.error);
            return;
          }
          let compiled: CompiledQuery;
          try {
            compiled = compile(c.query, dialect, c.securityContext);
          } catch (error) {
            const refused = refusals[dialect];
            if (!refused || !(error instanceof UserError)) throw error;
            expect(error.message).toMatch(refused);
            return;
          }
          const rows = await runQuery(engines[dialect]!, compiled);
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
