/**
 * Pre-aggregations benchmark (issue 15 item 5): the same question asked over HTTP on loopback as a
 * `/v1/load` query answered from the raw sample table (1,000,000 orders at the default scale), and
 * from a rollup (`orders_rolled`, the orders cube extended with a daily rollup by status). Both
 * bypass the result cache (`renewQuery: true`). Before timing, the two must return the same rows,
 * and the rollup query must report its table in `usedPreAggregations`, or the run stops.
 *
 *   node --import tsx bench/data-api/pre-aggregations.ts
 *
 * On DuckDB (the sample; its rollup lives in the in-process DuckDB) and, when PostgreSQL is
 * reachable, on PostgreSQL (orders generated there with the sample's shape and size; the rollup in
 * schema tessera_pre_aggregations of the same database).
 *
 * Env: TESSERA_BENCH_PREAGG_DIR (data directory, default $TMPDIR/tessera-bench-preagg, reused),
 * TESSERA_BENCH_ITERATIONS (default 15), TESSERA_SAMPLE_SCALE (default 1), TESSERA_BENCH_POSTGRES_URL
 * (default postgres://postgres@127.0.0.1:5432/test; the database tessera_bench_preagg_{rows} is
 * created once and reused). Prints per question the median ms raw and from the rollup, raw/rollup, and the
 * rows of the raw table and of the rollup.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CubeQuery } from '@tessera/semantic';
import { SignJWT } from 'jose';
import pg from 'pg';
import { openMigratedStore, secretBoxFor } from '../../packages/server/src/bootstrap/runtime.ts';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import { ensureSampleDatabase } from '../../packages/server/src/datasources/sample/generate.ts';
import type { DeploymentRow } from '../../packages/server/src/db/schema.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import { iterations, median } from '../lib/stats.ts';

const ROLLUP_MODEL = `
cubes:
  - name: orders_rolled
    extends: orders
    pre_aggregations:
      - name: daily_by_status
        measures: [count, total_amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
`;

/** Each question asked of `orders` (raw) and of `orders_rolled` (the rollup). */
const questions: Record<string, (cube: string) => CubeQuery> = {
  count_by_status: (c) => ({ measures: [`${c}.count`, `${c}.total_amount`], dimensions: [`${c}.status`] }),
  monthly: (c) => ({
    measures: [`${c}.count`, `${c}.total_amount`],
    timeDimensions: [{ dimension: `${c}.created_at`, granularity: 'month' }],
  }),
  filtered_week: (c) => ({
    measures: [`${c}.count`],
    timeDimensions: [
      { dimension: `${c}.created_at`, granularity: 'day', dateRange: ['2024-03-01', '2024-03-07'] },
    ],
    filters: [{ member: `${c}.status`, operator: 'equals', values: ['completed'] }],
  }),
};

async function main() {
  const dataDir = process.env.TESSERA_BENCH_PREAGG_DIR ?? path.join(os.tmpdir(), 'tessera-bench-preagg');
  const config = {
    ...loadConfig({}),
    dataDir,
    port: 0,
    rateLimitPerMinute: 0,
    logLevel: 'warn',
    // the bench builds rollups itself: no background pass
    preAggregations: { refreshMs: 0 },
  };
  const scale = Number(process.env.TESSERA_SAMPLE_SCALE ?? 1);
  const file = sampleDatabaseFile(dataDir);
  await ensureSampleDatabase(file, scale, (line) => process.stderr.write(`\r${line}   `));
  process.stderr.write('\n');
  const store = await openMigratedStore(config);
  const secrets = secretBoxFor(config);
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const { app, services } = await buildApp({ config, db: store.db, secrets, logger: false });
  try {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    // the demo deployment over the sample (the seed names it only on the first start)
    const first = await store.db
      .selectFrom('deployments')
      .select('id')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const demo = await services.deployments.require(seeded.tenantId, first.id);
    const files = await store.db
      .selectFrom('model_files')
      .select(['path', 'content', 'branch'])
      .where('deployment_id', '=', demo.id)
      .where('path', '!=', 'model/bench_rollups.yml')
      .execute();
    const withRollups = async (d: DeploymentRow) => {
      await store.db.deleteFrom('model_files').where('deployment_id', '=', d.id).execute();
      await store.db
        .insertInto('model_files')
        .values([
          ...files.map((f) => ({ ...f, deployment_id: d.id })),
          { deployment_id: d.id, branch: 'main', path: 'model/bench_rollups.yml', content: ROLLUP_MODEL },
        ])
        .execute();
      return d;
    };
    const engine = async (label: string, d: DeploymentRow, rawFrom: string) => {
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(secrets.open(d.api_secret_enc)));
      await bench(label, {
        deployment: d,
        refresh: () => services.preAggregations.refresh(d),
        target: () => services.preAggregations.target(d),
        rawFrom,
        load: async (query) => {
          const res = await fetch(`${baseUrl}/data/${d.id}${d.base_path}/v1/load`, {
            method: 'POST',
            headers: { authorization: token, 'content-type': 'application/json' },
            body: JSON.stringify({ query: { ...query, renewQuery: true } }),
          });
          const body = await res.json();
          if (res.status !== 200 || body.error)
            throw new Error(`load: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
          return body;
        },
      });
    };
    console.log(`sample: ${file} (scale ${scale}); ${iterations} iterations per query, runs alternated`);
    await engine('DuckDB', await withRollups(demo), 'src.orders');
    const pgSource = await postgresOrders(Math.round(1_000_000 * scale));
    if (!pgSource) console.log('\nPostgreSQL not reachable: DuckDB only');
    else {
      let row = await store.db
        .selectFrom('deployments')
        .selectAll()
        .where('name', '=', 'bench-preagg-postgres')
        .executeTakeFirst();
      if (!row) {
        const principal = {
          tenantId: seeded.tenantId,
          userId: seeded.adminUserId,
          role: 'admin' as const,
          credentialId: 0,
          credentialKind: 'session' as const,
          deploymentIds: null,
        };
        const created = await services.deployments.create(principal, {
          name: 'bench-preagg-postgres',
          dataSource: pgSource,
        } as never);
        row = await services.deployments.require(seeded.tenantId, created.id);
      }
      await engine('PostgreSQL', await withRollups(row), 'orders');
    }
  } finally {
    await app.close();
    await store.close();
  }
}

interface BenchTarget {
  deployment: DeploymentRow;
  refresh(): Promise<{ built: string[] }>;
  target(): Promise<{
    driver: { query(sql: string, params: unknown[]): Promise<Record<string, unknown>[]> };
  }>;
  rawFrom: string;
  load(
    query: CubeQuery,
  ): Promise<{ data: Record<string, unknown>[]; usedPreAggregations: Record<string, unknown> }>;
}

async function bench(label: string, b: BenchTarget) {
  const t0 = performance.now();
  const report = await b.refresh();
  const buildMs = performance.now() - t0;
  const target = await b.target();
  const count = async (from: string) =>
    Number(Object.values((await target.driver.query(`SELECT count(*) AS n FROM ${from}`, []))[0])[0]);
  // the rollup is (re)built on the first run; later runs find it current and reuse it
  const sample = await b.load(questions.count_by_status('orders_rolled'));
  const [table] = Object.keys(sample.usedPreAggregations);
  if (!table) throw new Error(`${label}: the rollup was not built`);
  const rawRows = await count(b.rawFrom);
  const rollupRows = await count(table);
  console.log(
    `\n${label}\nrollup ${table}: ${rollupRows} rows from ${rawRows} (reduction ${(rawRows / rollupRows).toFixed(0)}x)` +
      (report.built.length > 0 ? `, built in ${buildMs.toFixed(0)} ms` : ', already current'),
  );
  console.log(
    ['question', 'raw ms', 'rollup ms', 'raw/rollup']
      .map((h, i) => (i ? h.padStart(12) : h.padEnd(20)))
      .join(''),
  );
  for (const [name, ask] of Object.entries(questions)) {
    const raw = await b.load(ask('orders'));
    const rolled = await b.load(ask('orders_rolled'));
    if (Object.keys(raw.usedPreAggregations).length > 0) throw new Error(`${name}: raw query used a rollup`);
    if (!Object.keys(rolled.usedPreAggregations).includes(table))
      throw new Error(`${name}: the rollup did not answer (${JSON.stringify(rolled.usedPreAggregations)})`);
    const values = (rows: Record<string, unknown>[]) => JSON.stringify(rows.map((r) => Object.values(r)));
    if (values(raw.data) !== values(rolled.data))
      throw new Error(`${name}: raw and rollup rows differ:\n${values(raw.data)}\n${values(rolled.data)}`);
    const rawMs: number[] = [];
    const rollupMs: number[] = [];
    for (let i = 0; i < iterations; i++) {
      let t = performance.now();
      await b.load(ask('orders'));
      rawMs.push(performance.now() - t);
      t = performance.now();
      await b.load(ask('orders_rolled'));
      rollupMs.push(performance.now() - t);
    }
    const [r, p] = [median(rawMs), median(rollupMs)];
    console.log(
      [
        name.padEnd(20),
        r.toFixed(2).padStart(12),
        p.toFixed(2).padStart(12),
        `${(r / p).toFixed(1)}x`.padStart(12),
      ].join(''),
    );
  }
}

/**
 * PostgreSQL with an `orders` table of the sample's shape and size (generated there, not copied:
 * only orders are read here), in the database tessera_bench_preagg_{rows}; null when unreachable.
 */
async function postgresOrders(rows: number): Promise<Record<string, unknown> | null> {
  const url = new URL(process.env.TESSERA_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const database = `tessera_bench_preagg_${rows}`;
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const have = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'orders'");
  if (have.rows[0].n === 0) {
    await client.query(`CREATE TABLE orders AS
      SELECT i AS id, 1 + (i::bigint * 7919 % 50000)::int AS customer_id,
        (ARRAY['completed','pending','cancelled','returned','processing','shipped','refunded','on_hold'])[1 + floor(random() * 8)::int] AS status,
        round((5 + random() * 495)::numeric, 2)::numeric(12, 2) AS amount,
        TIMESTAMP '2023-01-01' + make_interval(secs => floor(random() * 3 * 365 * 86400)) AS created_at
      FROM generate_series(1, ${rows}) i`);
    await client.query('ANALYZE orders');
  }
  await client.end();
  return {
    type: 'postgres',
    host: url.hostname,
    port: Number(url.port || 5432),
    database,
    user: decodeURIComponent(url.username) || 'postgres',
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

await main();
