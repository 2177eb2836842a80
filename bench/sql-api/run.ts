/**
 * SQL-API benchmark: the same question asked three ways in one run, on the sample data at the
 * default scale (1,000,000 orders): `/v1/cubesql` over HTTP, `/v1/load` over HTTP (cache bypassed
 * with `renewQuery`), and hand-written SQL run directly on DuckDB.
 *
 *   node --import tsx bench/sql-api/run.ts
 *
 * Env: TESSERA_BENCH_DIR (data directory, default $TMPDIR/tessera-bench-data, shared with
 * bench/data-api), TESSERA_BENCH_ITERATIONS (default 15). The result cache is disabled for the
 * run (TESSERA_REFRESH_INTERVAL_MS=1) so that every request reaches the engine.
 */
import { performance } from 'node:perf_hooks';
import type { CubeQuery } from '@tessera/semantic';
import { iterations, median, startSampleServer } from '../lib/sample-server.ts';

process.env.TESSERA_REFRESH_INTERVAL_MS = '1';

const cases: Record<string, { sql: string; load: CubeQuery; direct: string }> = {
  count_by_status: {
    sql: 'SELECT status, MEASURE(count), SUM(total_amount) FROM orders GROUP BY 1 ORDER BY 1',
    load: {
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    },
    direct: 'SELECT status, count(*), sum(amount) FROM orders GROUP BY 1 ORDER BY 1',
  },
  monthly_filtered: {
    sql: "SELECT DATE_TRUNC('month', created_at), MEASURE(count) FROM orders WHERE completed AND created_at >= '2024-01-01' GROUP BY 1 ORDER BY 1",
    load: {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      segments: ['orders.completed'],
      filters: [{ member: 'orders.created_at', operator: 'gte', values: ['2024-01-01'] }],
      order: { 'orders.created_at': 'asc' },
    },
    direct:
      "SELECT date_trunc('month', created_at), count(*) FROM orders WHERE status = 'completed' AND created_at >= '2024-01-01' GROUP BY 1 ORDER BY 1",
  },
  country_join: {
    sql: 'SELECT customers.country, MEASURE(orders.count) FROM orders CROSS JOIN customers GROUP BY 1 ORDER BY 1',
    load: {
      measures: ['orders.count'],
      dimensions: ['customers.country'],
      order: { 'customers.country': 'asc' },
    },
    direct:
      'SELECT c.country, count(*) FROM orders o LEFT JOIN customers c ON o.customer_id = c.id GROUP BY 1 ORDER BY 1',
  },
  window_over_cte: {
    sql: `WITH s AS (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1)
          SELECT status, n, n * 100.0 / SUM(n) OVER () AS share FROM s ORDER BY n DESC`,
    load: { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.count': 'desc' } },
    direct: `WITH s AS (SELECT status, count(*) AS n FROM orders GROUP BY 1)
             SELECT status, n, n * 100.0 / SUM(n) OVER () FROM s ORDER BY n DESC`,
  },
};

async function main() {
  const server = await startSampleServer();
  const { file, direct, post } = server;
  const timed = async (f: () => Promise<unknown>) => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };

  console.log(`sample: ${file}; ${iterations} iterations per query, result cache off\n`);
  console.log(
    ['query', 'cubesql ms', 'load ms', 'direct ms', 'sql/load', 'sql/direct']
      .map((h, i) => (i ? h.padStart(12) : h.padEnd(20)))
      .join(''),
  );
  for (const [name, c] of Object.entries(cases)) {
    const runs = {
      sql: () => post('cubesql', { query: c.sql }),
      load: () => post('load', { query: { ...c.load, renewQuery: true } }),
      direct: () => direct.query(c.direct, []),
    };
    for (const f of Object.values(runs)) await f(); // warm up
    const times = { sql: [] as number[], load: [] as number[], direct: [] as number[] };
    // alternate so that the three paths see the same machine state
    for (let i = 0; i < iterations; i++)
      for (const k of ['sql', 'load', 'direct'] as const) times[k].push(await timed(runs[k]));
    const [s, l, d] = [median(times.sql), median(times.load), median(times.direct)];
    console.log(
      [name.padEnd(20), s.toFixed(1), l.toFixed(1), d.toFixed(1), (s / l).toFixed(2), (s / d).toFixed(2)]
        .map((v, i) => (i ? String(v).padStart(12) : v))
        .join(''),
    );
  }
  await server.close();
}

await main();
