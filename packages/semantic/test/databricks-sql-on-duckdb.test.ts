import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileQuery, type DialectName, formatRow } from '../src/index.ts';
import { duckdbEngine, type Engine, runQuery } from './engines.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The Databricks dialect's SQL for the shared query suite, run on DuckDB (no Databricks can run on
 * this machine; issue 24 "What it must show"), read as Databricks reads it: values inlined as the
 * driver inlines them (datasources/databricks-literals.ts: `\'` and `\\` in quoted text), then
 * backtick identifiers as double-quoted ones and string literals' backslash escapes resolved
 * ("STRING type"), as the server's protocol server does (test/databricks-protocol-server.ts).
 * Databricks functions DuckDB lacks are given their documented meaning: from_utc_timestamp (the
 * UTC timestamp's wall clock in the zone), timestampdiff(MILLISECOND, a, b) (whole milliseconds
 * from a to b) and timestampadd(unit, n, ts). The whole suite runs: nothing is golden SQL only.
 * DuckDB taking the text is no proof that Databricks does; the golden files are reviewed for that.
 */

function literal(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return 'NULL';
}

const inline = (sql: string, params: readonly unknown[]) =>
  sql.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));

/** Databricks text as DuckDB reads it (see the file comment). */
function duckdbText(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === '`') {
      const end = sql.indexOf('`', i + 1);
      out += `"${sql.slice(i + 1, end).replace(/"/g, '""')}"`;
      i = end;
    } else if (c === "'") {
      let text = '';
      let j = i + 1;
      for (; j < sql.length && sql[j] !== "'"; j++) {
        if (sql[j] === '\\') {
          const next = sql[++j]!;
          text += next === '%' || next === '_' ? `\\${next}` : next;
        } else text += sql[j];
      }
      out += `'${text.replace(/'/g, "''")}'`;
      i = j;
    } else out += c;
  }
  return out
    .replace(/timestampdiff\(MILLISECOND, /g, "date_diff('millisecond', ")
    .replace(/timestampadd\((MONTH|DAY|SECOND), /g, "databricks_timestampadd('$1', ");
}

const model = fixtureModel();
let duck: Engine;
beforeAll(async () => {
  duck = await duckdbEngine();
  await duck.run(
    "CREATE MACRO from_utc_timestamp(ts, tz) AS CAST(timezone(tz, timezone('UTC', CAST(ts AS TIMESTAMP))) AS TIMESTAMP)",
    [],
  );
  await duck.run(
    `CREATE MACRO databricks_timestampadd(unit, n, ts) AS CASE unit
       WHEN 'MONTH' THEN ts + to_months(CAST(n AS INTEGER))
       WHEN 'DAY' THEN ts + to_days(CAST(n AS INTEGER))
       ELSE ts + to_seconds(CAST(n AS DOUBLE)) END`,
    [],
  );
});
afterAll(async () => {
  await duck?.close();
});

const compile = (name: string, dialect: DialectName) =>
  compileQuery(model, queries[name]!, { dialect, securityContext: ADMIN, now: NOW });

describe('Databricks SQL on DuckDB gives the DuckDB dialect rows', () => {
  for (const name of Object.keys(queries)) {
    it(name, async () => {
      const databricks = compile(name, 'databricks');
      const expected = await runQuery(duck, compile(name, 'duckdb'));
      expect(expected.length).toBeGreaterThan(0);
      const rows = await duck.run(duckdbText(inline(databricks.sql, databricks.params)), []);
      expect(rows.map((r) => formatRow(r, databricks.columns))).toEqual(expected);
    });
  }
});
