/**
 * Data-API benchmark: `/v1/load` over HTTP on loopback against the same SQL run directly on
 * DuckDB, on the sample data at the default scale (1,000,000 orders).
 *
 *   node --import tsx bench/data-api/run.ts
 *
 * Env: TESSERA_BENCH_DIR (data directory, default $TMPDIR/tessera-bench-data, reused between
 * runs), TESSERA_BENCH_ITERATIONS (default 15). Prints, per query: median ms of /v1/load with the
 * cache bypassed (`renewQuery: true`), median ms of the SQL run directly, their ratio (target
 * <= 1.2 for queries of 20 ms or more), compile time (µs) and the cached response latency.
 */
import { performance } from 'node:perf_hooks';
import { type CubeQuery, compileModelOrThrow, compileQuery } from '@tessera/semantic';
import { sampleModelFiles } from '../../packages/server/src/datasources/sample/model-files.ts';
import { iterations, median, startSampleServer } from '../lib/sample-server.ts';

const queries: Record<string, CubeQuery> = {
  count_by_status: { measures: ['orders.count', 'orders.total_amount'], dimensions: ['orders.status'] },
  monthly: {
    measures: ['orders.count', 'orders.avg_amount'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
  },
  distinct_customers_by_country: {
    measures: ['orders.unique_customers', 'orders.count'],
    dimensions: ['customers.country'],
  },
  fanout_line_items: {
    measures: ['orders.count', 'orders.total_amount', 'line_items.count', 'line_items.revenue'],
    dimensions: ['orders.status'],
  },
  by_category: {
    measures: ['line_items.revenue', 'line_items.quantity_total'],
    dimensions: ['products.category'],
  },
  filtered_week: {
    measures: ['orders.count'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-01', '2024-03-07'] },
    ],
    filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
  },
};

async function main() {
  const server = await startSampleServer();
  const { file, direct } = server;
  const load = (query: CubeQuery) => server.post('load', { query });

  const model = compileModelOrThrow(sampleModelFiles());
  console.log(`sample: ${file}; ${iterations} iterations per query\n`);
  console.log(
    ['query', 'load ms', 'direct ms', 'ratio', 'compile µs', 'cached ms']
      .map((h, i) => (i ? h.padStart(11) : h.padEnd(30)))
      .join(''),
  );
  for (const [name, query] of Object.entries(queries)) {
    const compileTimes: number[] = [];
    let compiled = compileQuery(model, query, { dialect: 'duckdb', securityContext: {} });
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      compiled = compileQuery(model, query, { dialect: 'duckdb', securityContext: {} });
      compileTimes.push((performance.now() - t) * 1000);
    }
    // Warm both paths once, then alternate so that both see the same machine state.
    await load({ ...query, renewQuery: true });
    await direct.query(compiled.sql, compiled.params);
    const http: number[] = [];
    const sql: number[] = [];
    for (let i = 0; i < iterations; i++) {
      let t = performance.now();
      await load({ ...query, renewQuery: true });
      http.push(performance.now() - t);
      t = performance.now();
      await direct.query(compiled.sql, compiled.params);
      sql.push(performance.now() - t);
    }
    const cached: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      await load(query);
      cached.push(performance.now() - t);
    }
    const [h, d] = [median(http), median(sql)];
    console.log(
      [
        name.padEnd(30),
        h.toFixed(1),
        d.toFixed(1),
        (h / d).toFixed(2),
        median(compileTimes).toFixed(0),
        median(cached).toFixed(2),
      ]
        .map((v, i) => (i ? String(v).padStart(11) : v))
        .join(''),
    );
  }
  await server.close();
}

await main();
