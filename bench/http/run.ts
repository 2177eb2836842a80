/**
 * bench/http: requests per second of `GET /api/v1/deployments` with an API key, against a bare
 * Fastify route answering a same-sized JSON body, measured in the same run with the same load
 * generator (autocannon in a separate process, so that it does not share the server's thread).
 *
 *   npm run bench:http                 # PGlite, and PostgreSQL when reachable
 *   BENCH_SECONDS=10 npm run bench:http
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import pg from 'pg';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { InvalidationBus } from '../../packages/server/src/cache/invalidation-bus.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { SecretBox } from '../../packages/server/src/crypto/secrets.ts';
import { openStore, type Store } from '../../packages/server/src/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/db/migrate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';

const run = promisify(execFile);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const autocannon = path.resolve('node_modules/autocannon/autocannon.js');

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string> = {}): Promise<Result> {
  const args = (duration: number) => {
    const list = [autocannon, '-j', '-c', String(connections), '-d', String(duration)];
    for (const [k, v] of Object.entries(headers)) list.push('-H', `${k}=${v}`);
    return [...list, url];
  };
  // Warm-up run (JIT, connection pools, caches), then the measured run.
  await run(process.execPath, args(1), { maxBuffer: 1 << 24 });
  const { stdout } = await run(process.execPath, args(seconds), { maxBuffer: 1 << 24 });
  const r = JSON.parse(stdout);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function bare(body: unknown): Promise<Result> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => body);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await load(`${address}/bare`);
  } finally {
    await app.close();
  }
}

async function tessera(store: Store): Promise<{ result: Result; body: unknown }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'));
  const secrets = new SecretBox('bench');
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const config = { ...loadConfig({}), dataDir, rateLimitPerMinute: 0 };
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app } = await buildApp({ config, db: store.db, secrets, bus, logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const headers = { authorization: `Bearer ${seeded.createdAdminKey}` };
  try {
    const body = await (await fetch(`${address}/api/v1/deployments`, { headers })).json();
    return { result: await load(`${address}/api/v1/deployments`, headers), body };
  } finally {
    await app.close();
    await bus.close();
  }
}

async function postgresStore(): Promise<{ store: Store; drop: () => Promise<void> } | null> {
  const adminUrl = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `tessera_bench_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = await openStore({ databaseUrl: url.toString(), poolSize: 10 });
  await migrateToLatest(store.db as never);
  return {
    store,
    drop: async () => {
      await store.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function report(engine: string, base: Result, ours: Result) {
  const f = (r: Result) => `${r.rps.toFixed(0)} req/s (p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors})`;
  console.log(`${engine.padEnd(10)} bare Fastify: ${f(base)}`);
  console.log(`${''.padEnd(10)} Tessera:      ${f(ours)}`);
  console.log(`${''.padEnd(10)} ratio Tessera / bare = ${(ours.rps / base.rps).toFixed(2)}`);
}

async function main() {
  console.log(
    `bench/http: GET /api/v1/deployments, ${connections} connections, ${seconds}s per run, node ${process.version}`,
  );
  const pglite = await openStore({ databaseUrl: null });
  await migrateToLatest(pglite.db as never);
  const p = await tessera(pglite);
  await pglite.close();
  report('PGlite', await bare(p.body), p.result);

  const pgStore = await postgresStore();
  if (!pgStore) {
    console.log('PostgreSQL not reachable: skipped (CI runs it)');
    return;
  }
  try {
    const q = await tessera(pgStore.store);
    report('PostgreSQL', await bare(q.body), q.result);
  } finally {
    await pgStore.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
