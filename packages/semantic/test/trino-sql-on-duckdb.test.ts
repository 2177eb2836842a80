import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileQuery, type DialectName, formatRow } from '../src/index.ts';
import { duckdbEngine, type Engine, runQuery } from './engines.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The Trino dialect's SQL for the shared query suite, run on DuckDB where it is valid DuckDB SQL
 * (no Trino can run on this machine; issue 24 "What it must show"). Values are inlined as the
 * Trino driver inlines them (datasources/trino-literals.ts: text quoted with '' doubled, integers
 * as written, fractions as DOUBLE). Every other query is checked only as golden SQL
 * (golden/*.trino.golden.sql), each for the reason given, and its SQL must name the Trino function
 * that keeps it off DuckDB, so that this list cannot go stale.
 */
const goldenOnly: Record<string, RegExp> = {
  // named zones through Trino's with_timezone/at_timezone, which DuckDB lacks
  month_in_new_york: /with_timezone\(/,
  week_in_new_york: /with_timezone\(/,
  // approx_distinct is Trino's HyperLogLog (DuckDB names it approx_count_distinct)
  distinct_counts: /approx_distinct\(/,
};
/**
 * Valid on both, but Trino's answer differs from DuckDB's by the engines' own semantics: the
 * model's `1.0 * a / b` is a DECIMAL(…,1) division on Trino, which rounds to one decimal place.
 */
const differsOnTrino: Record<string, RegExp> = {
  calculated_ratio: /1\.0 \* /,
};

function inline(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const v = params[Number(n) - 1];
    if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toExponential().replace('e', 'E');
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    return 'NULL';
  });
}

const model = fixtureModel();
let duck: Engine;
beforeAll(async () => {
  duck = await duckdbEngine();
});
afterAll(async () => {
  await duck?.close();
});

const compile = (name: string, dialect: DialectName) =>
  compileQuery(model, queries[name]!, { dialect, securityContext: ADMIN, now: NOW });

describe('Trino SQL on DuckDB gives the DuckDB dialect rows', () => {
  for (const name of Object.keys(queries)) {
    if (name in goldenOnly || name in differsOnTrino) continue;
    it(name, async () => {
      const trino = compile(name, 'trino');
      const expected = await runQuery(duck, compile(name, 'duckdb'));
      expect(expected.length).toBeGreaterThan(0);
      const rows = await duck.run(inline(trino.sql, trino.params), []);
      expect(rows.map((r) => formatRow(r, trino.columns))).toEqual(expected);
    });
  }
});

describe('checked only as golden SQL', () => {
  for (const [name, feature] of Object.entries({ ...goldenOnly, ...differsOnTrino })) {
    it(`${name}: its Trino SQL uses ${feature.source}`, () => {
      expect(compile(name, 'trino').sql).toMatch(feature);
    });
  }
});
