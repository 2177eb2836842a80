import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileQuery, type DialectName, formatRow } from '../src/index.ts';
import { duckdbEngine, type Engine, runQuery } from './engines.ts';
import { extraTables, labelRows, modelWithExtras } from './fixtures/engine-extras.ts';
import { ADMIN, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The BigQuery dialect's SQL for the shared query suite, run on DuckDB (no BigQuery can run on
 * this machine; issue 24 "What it must show"), as the server's BigQuery protocol server runs it
 * (packages/server/test/bigquery-protocol-server.ts): backtick identifiers double-quoted, `@pN`
 * replaced by the value as the driver types it (datasources/bigquery-values.ts: STRING, INT64,
 * FLOAT64), a date part after a comma quoted, and GoogleSQL's DATETIME functions defined as DuckDB
 * macros of the same meaning (DATETIME(ts, zone) the wall clock in the zone, DATETIME_TRUNC with
 * ISOWEEK from Monday, DATETIME_DIFF counting boundaries, DATETIME_ADD). DuckDB's own INT64,
 * STRING, DATETIME, `INTERVAL n DAY`, APPROX_COUNT_DISTINCT and NULLS FIRST/LAST are BigQuery's
 * spellings; LIKE reads `\` as its escape, as BigQuery's does (operators#like_operator), where
 * DuckDB's has no escape unless told. Every query of the suite runs, and what it lacks: hours
 * across New York's DST changes, `contains` with a literal `%` and `_`, a multi-stage time_shift.
 */
const macros = [
  "CREATE MACRO DATETIME(x) AS CAST(x AS TIMESTAMP), (x, tz) AS timezone(tz, timezone('UTC', CAST(x AS TIMESTAMP)))",
  "CREATE MACRO DATETIME_TRUNC(x, part) AS date_trunc(CASE part WHEN 'ISOWEEK' THEN 'week' ELSE lower(part) END, x)",
  'CREATE MACRO DATETIME_DIFF(a, b, part) AS date_diff(lower(part), b, a)',
  'CREATE MACRO DATETIME_ADD(x, i) AS x + i',
];

/** `LIKE LOWER(...)` with ` ESCAPE '\'` after its pattern: BigQuery's LIKE escapes with `\` unasked. */
function likeEscapes(sql: string): string {
  let out = sql;
  for (let at = out.indexOf('LIKE LOWER('); at >= 0; at = out.indexOf('LIKE LOWER(', at + 1)) {
    let depth = 0;
    let i = at + 'LIKE LOWER'.length;
    for (; i < out.length; i++) {
      if (out[i] === "'") i = out.indexOf("'", i + 1);
      else if (out[i] === '(') depth++;
      else if (out[i] === ')' && --depth === 0) break;
    }
    out = `${out.slice(0, i + 1)} ESCAPE '\\'${out.slice(i + 1)}`;
  }
  return out;
}

/** GoogleSQL as DuckDB reads it (string literals, which the dialect prints without escapes, kept). */
function toDuckDb(sql: string, params: readonly unknown[]): string {
  const value = (v: unknown) => {
    if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
    if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : `CAST(${v} AS DOUBLE)`;
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    return 'NULL';
  };
  const translated = sql
    .replace(/'[^']*'|`((?:[^`\\]|\\.)*)`|@p(\d+)/g, (whole, name?: string, n?: string) => {
      if (name !== undefined) return `"${name.replace(/\\(.)/g, '$1').replace(/"/g, '""')}"`;
      if (n !== undefined) return value(params[Number(n) - 1]);
      return whole;
    })
    .replace(/,\s*(MILLISECOND|SECOND|MINUTE|HOUR|DAY|ISOWEEK|MONTH|QUARTER|YEAR)\s*\)/g, ", '$1')");
  return likeEscapes(translated);
}

const model = modelWithExtras();

let duck: Engine;
beforeAll(async () => {
  duck = await duckdbEngine();
  for (const m of macros) await duck.run(m, []);
  for (const statement of extraTables('TIMESTAMP')) await duck.run(statement, []);
});
afterAll(async () => {
  await duck?.close();
});

const compileCube = (query: CubeQuery, dialect: DialectName) =>
  compileQuery(model, query, { dialect, securityContext: ADMIN, now: NOW });
const compile = (name: string, dialect: DialectName) => compileCube(queries[name]!, dialect);

/** The query's rows as BigQuery's SQL gives them on DuckDB, and as the DuckDB dialect's. */
async function both(query: CubeQuery) {
  const bigquery = compileCube(query, 'bigquery');
  const rows = await duck.run(toDuckDb(bigquery.sql, bigquery.params), []);
  return {
    mine: rows.map((r) => formatRow(r, bigquery.columns)),
    theirs: await runQuery(duck, compileCube(query, 'duckdb')),
    sql: bigquery.sql,
  };
}

describe('BigQuery SQL on DuckDB gives the DuckDB dialect rows', () => {
  for (const name of Object.keys(queries)) {
    it(name, async () => {
      const bigquery = compile(name, 'bigquery');
      const expected = await runQuery(duck, compile(name, 'duckdb'));
      expect(expected.length).toBeGreaterThan(0);
      const rows = await duck.run(toDuckDb(bigquery.sql, bigquery.params), []);
      expect(rows.map((r) => formatRow(r, bigquery.columns))).toEqual(expected);
    });
  }
});

describe('BigQuery SQL on DuckDB: what the suite lacks', () => {
  for (const day of ['2024-03-10', '2024-11-03'])
    it(`hours across New York's DST change on ${day}`, async () => {
      const { mine, theirs } = await both({
        measures: ['dst_events.count'],
        timeDimensions: [{ dimension: 'dst_events.at', granularity: 'hour', dateRange: [day, day] }],
        timezone: 'America/New_York',
      });
      expect(theirs.length).toBeGreaterThan(2);
      expect(mine).toEqual(theirs);
    });

  for (const [operator, value] of [
    ['contains', '50%'],
    ['contains', 'e_c'],
    ['notContains', 'e_c'],
    ['startsWith', 'sale 50%'],
    ['endsWith', '_case'],
  ] as const)
    it(`${operator} ${value}: % and _ match themselves`, async () => {
      const { mine, theirs } = await both({
        measures: ['labels.count'],
        dimensions: ['labels.name'],
        filters: [{ member: 'labels.name', operator, values: [value] }],
        order: { 'labels.name': 'asc' },
      });
      expect(theirs.length).toBeGreaterThan(0);
      expect(theirs.length).toBeLessThan(labelRows.length);
      expect(mine).toEqual(theirs);
    });

  it('multi-stage measures shifted a month back and a week forward (DATETIME arithmetic, back to TIMESTAMP)', async () => {
    const { mine, theirs, sql } = await both({
      measures: ['staged.amount', 'staged.amount_prior_month', 'staged.amount_next_week'],
      dimensions: ['staged.status'],
      timeDimensions: [
        { dimension: 'staged.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
      // a month's statuses in one order on both: the default order is by month only
      order: [
        ['staged.created_at', 'asc'],
        ['staged.status', 'asc'],
      ],
    });
    expect(sql).toContain('CAST(DATETIME(`staged`.created_at) + INTERVAL 1 MONTH AS TIMESTAMP)');
    expect(sql).toContain('CAST(DATETIME(`staged`.created_at) - INTERVAL 7 DAY AS TIMESTAMP)');
    expect(theirs.length).toBeGreaterThan(1);
    expect(mine).toEqual(theirs);
  });
});
