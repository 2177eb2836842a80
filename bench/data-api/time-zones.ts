/**
 * Time-zone benchmark (issue 24 item 4): a monthly grouping over 10,000,000 rows on the embedded
 * DuckDB, compiled by the planner in America/New_York and in UTC (the baseline, measured in the
 * same run), plus the per-row `(ts AT TIME ZONE 'UTC') AT TIME ZONE tz` SQL the DuckDB dialect
 * printed before as a reference line. Twice: with the rows in random time order, and with the
 * same rows sorted by time, as an append-only event table mostly holds them (the dialect's CASE
 * tree over the zone's changes costs most when neighbouring rows fall in different offset
 * periods; a grouping by day or longer walks it only for rows near a local midnight, see
 * localUnitStart in packages/semantic/src/dialect/duckdb.ts). Before timing, the
 * New York query must return the rows of the per-row SQL, or the run stops. Target: New York
 * within 1.5x of UTC.
 *
 *   node --import tsx bench/data-api/time-zones.ts
 *
 * Env: TESSERA_BENCH_TZ_ROWS (default 10,000,000, generated in memory: five years of orders),
 * TESSERA_BENCH_ITERATIONS (default 15; the per-row reference runs 3 times on the shuffled rows
 * only, it is slow).
 * Prints the median ms of each, New York / UTC, per-row / UTC, and the first compile in the zone
 * (which reads the zone's offset changes once per process).
 */
import { performance } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { compileModelOrThrow, compileQuery } from '@tessera/semantic';
import { printRatio } from '../lib/ratio-report.ts';
import { iterations, median } from '../lib/stats.ts';

const ROWS = Number(process.env.TESSERA_BENCH_TZ_ROWS ?? 10_000_000);
const ZONE = 'America/New_York';
const TARGET = 1.5;

const cube = (table: string) => `  - name: ${table}
    sql_table: ${table}
    measures:
      - name: count
        type: count
      - name: avg_amount
        type: avg
        sql: amount
    dimensions:
      - name: created_at
        sql: created_at
        type: time
`;
const TABLES = { shuffled: 'tz_orders', 'sorted by time': 'tz_orders_sorted' };
const model = compileModelOrThrow([
  { path: 'model/tz_orders.yml', content: `cubes:\n${Object.values(TABLES).map(cube).join('')}` },
]);
const compile = (table: string, timezone: string) =>
  compileQuery(
    model,
    {
      measures: [`${table}.count`, `${table}.avg_amount`],
      timeDimensions: [{ dimension: `${table}.created_at`, granularity: 'month' }],
      timezone,
    },
    { dialect: 'duckdb', securityContext: {} },
  );

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const run = async (sql: string, params: readonly unknown[]) =>
  (await conn.runAndReadAll(sql, params as never)).getRowsJS();

let t = performance.now();
// 2020-2024 at a pseudo-random second each, so that every DST change has rows around it
await conn.run(`CREATE TABLE tz_orders AS
  SELECT TIMESTAMP '2020-01-01' + to_seconds((hash(i) % 157766400)::BIGINT) AS created_at,
         (hash(i * 7) % 10000) / 100.0 AS amount
  FROM range(${ROWS}) r(i)`);
await conn.run('CREATE TABLE tz_orders_sorted AS SELECT * FROM tz_orders ORDER BY created_at');
console.log(
  `${ROWS.toLocaleString('en-US')} rows generated in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

t = performance.now();
compile(TABLES.shuffled, ZONE);
const firstCompileMs = performance.now() - t;

type Sql = { sql: string; params: readonly unknown[] };
const perRowSql = (table: string): Sql => ({
  sql: `SELECT date_trunc('month', (("${table}".created_at) AT TIME ZONE 'UTC') AT TIME ZONE $1) AS month,
    count(*), avg("${table}".amount) FROM ${table} AS "${table}" GROUP BY 1 ORDER BY 1 ASC`,
  params: [ZONE],
});
const text = (rows: unknown[][]) =>
  JSON.stringify(rows, (_k, v) =>
    typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v.toFixed(6) : v,
  );
const timed = async (q: Sql) => {
  const start = performance.now();
  await run(q.sql, q.params);
  return performance.now() - start;
};
const result = (xs: number[]) => ({ ms: median(xs), runs: xs.length });
const describe = (r: { ms: number; runs: number }) => `${r.ms.toFixed(0)} ms (median of ${r.runs})`;
const options = (ours: string) => ({
  describe,
  rate: (r: { ms: number }) => r.ms,
  digits: 2,
  labels: { base: 'UTC', ours, ratio: `time ${ours} / UTC` },
});

const verdicts: string[] = [];
for (const [layout, table] of Object.entries(TABLES)) {
  const [ny, utc, perRow] = [compile(table, ZONE), compile(table, 'UTC'), perRowSql(table)];
  const [nyRows, perRowRows] = [
    text(await run(ny.sql, ny.params)),
    text(await run(perRow.sql, perRow.params)),
  ];
  if (nyRows !== perRowRows) {
    throw new Error(`${layout}: New York through the dialect answers differently from the per-row SQL
 dialect: ${nyRows.slice(0, 300)}
 per-row: ${perRowRows.slice(0, 300)}`);
  }
  await timed(utc); // warm up
  const times = { utc: [] as number[], ny: [] as number[], perRow: [] as number[] };
  // alternated, so that both see the same machine state
  for (let i = 0; i < iterations; i++) {
    times.utc.push(await timed(utc));
    times.ny.push(await timed(ny));
    if (i < 3 && layout === 'shuffled') times.perRow.push(await timed(perRow));
  }
  const [utcResult, nyResult] = [result(times.utc), result(times.ny)];
  console.log(
    `\nmonthly grouping, ${ROWS.toLocaleString('en-US')} rows ${layout}, DuckDB, both through the dialect`,
  );
  console.log(`New York rows equal to the per-row SQL's (${JSON.parse(nyRows).length} months)`);
  printRatio('DuckDB', utcResult, nyResult, options(ZONE));
  if (times.perRow.length > 0)
    printRatio('reference', utcResult, result(times.perRow), options('per-row AT TIME ZONE'));
  const ratio = nyResult.ms / utcResult.ms;
  verdicts.push(`${layout}: ${ratio <= TARGET ? 'ok' : 'over'} (${ratio.toFixed(2)})`);
}
console.log(`\ntarget ${ZONE} / UTC <= ${TARGET}: ${verdicts.join(', ')}`);
console.log(`first compile in ${ZONE} (reads its offset changes): ${firstCompileMs.toFixed(1)} ms`);
conn.closeSync();
instance.closeSync();
