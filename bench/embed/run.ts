/**
 * bench/embed: embed sessions created and redeemed per second over HTTP on loopback. One round
 * is `POST /api/v1/embed/generate-session` (admin API key, a new embed user in an embed tenant,
 * global groups and a user attribute) followed by `POST /api/v1/embed/session/token`. Measured
 * against a bare Fastify server answering the same two calls with same-sized bodies and no work,
 * driven by the same client in the same run, so the ratio is what Tessera's checks, transaction
 * and signing cost on this machine. A bounded number of rounds (no time limit), after a warm-up.
 *
 *   node --import tsx bench/embed/run.ts          # PGlite, and PostgreSQL when reachable
 *   BENCH_ROUNDS=2000 BENCH_CONCURRENCY=16 node --import tsx bench/embed/run.ts
 *
 * The browser side (navigation until every chart of the embed page has drawn) is bench/embed/draw.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import pg from 'pg';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { InvalidationBus } from '../../packages/server/src/cache/invalidation-bus.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { SecretBox } from '../../packages/server/src/crypto/secrets.ts';
import { openStore, type Store } from '../../packages/server/src/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/db/migrate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import { median } from '../lib/stats.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const warmup = Math.min(100, rounds);

interface Result {
  roundsPerSecond: number;
  medianMs: number;
  failures: number;
}

type Round = (i: number) => Promise<boolean>;

/** Runs `count` rounds, `concurrency` at a time; a round is one session created and redeemed. */
async function drive(round: Round, count: number): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        if (!(await round(i))) failures++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { roundsPerSecond: count / seconds, medianMs: median(latencies), failures };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { ok: res.status === 200, body: (await res.json()) as Record<string, string> };
}

function sessionBody(deploymentId: number, i: number) {
  return {
    deploymentId,
    externalId: `bench-user-${i}`,
    embedTenantName: `bench-${i % 10}`,
    groups: ['bench'],
    userAttributeDefinitions: [{ name: 'country' }],
    userAttributes: [{ name: 'country', value: 'DE' }],
  };
}

async function measure(base: string, headers: Record<string, string>, deploymentId: number): Promise<Result> {
  const round: Round = async (i) => {
    const session = await post(
      `${base}/api/v1/embed/generate-session`,
      sessionBody(deploymentId, i),
      headers,
    );
    if (!session.ok) return false;
    return (await post(`${base}/api/v1/embed/session/token`, { sessionId: session.body.sessionId })).ok;
  };
  await drive(round, warmup);
  return drive((i) => round(i + warmup), rounds);
}

/** The same two calls on a bare Fastify server: no store, no checks, a canned token of the same size. */
async function bare(tokenLength: number): Promise<Result> {
  const app = Fastify({ logger: false });
  app.post('/api/v1/embed/generate-session', async () => ({ sessionId: randomBytes(16).toString('hex') }));
  app.post('/api/v1/embed/session/token', async () => ({ token: 'x'.repeat(tokenLength) }));
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    return await measure(base, { authorization: 'Bearer bench' }, 1);
  } finally {
    await app.close();
  }
}

async function tessera(store: Store): Promise<{ result: Result; tokenLength: number }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-embed-'));
  const secrets = new SecretBox('bench');
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const config = { ...loadConfig({}), dataDir, rateLimitPerMinute: 0 };
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app } = await buildApp({ config, db: store.db, secrets, bus, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const headers = { authorization: `Bearer ${seeded.createdAdminKey}` };
  const deploymentId = seeded.demoDeploymentId as number;
  try {
    await post(`${base}/api/v1/groups`, { name: 'bench' }, headers);
    const probe = await post(`${base}/api/v1/embed/generate-session`, sessionBody(deploymentId, -1), headers);
    const token = await post(`${base}/api/v1/embed/session/token`, { sessionId: probe.body.sessionId });
    if (!token.ok) throw new Error(`embed token failed: ${JSON.stringify(token.body)}`);
    return { result: await measure(base, headers, deploymentId), tokenLength: token.body.token.length };
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
  const name = `tessera_bench_embed_${process.pid}`;
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
  const f = (r: Result) =>
    `${r.roundsPerSecond.toFixed(0)} sessions/s (median round ${r.medianMs.toFixed(1)} ms, failures ${r.failures})`;
  console.log(`${engine.padEnd(10)} bare Fastify: ${f(base)}`);
  console.log(`${''.padEnd(10)} Tessera:      ${f(ours)}`);
  console.log(
    `${''.padEnd(10)} ratio Tessera / bare = ${(ours.roundsPerSecond / base.roundsPerSecond).toFixed(3)}`,
  );
}

async function main() {
  console.log(
    `bench/embed: generate-session + session/token, ${rounds} rounds after ${warmup} warm-up, ${concurrency} at a time, node ${process.version}`,
  );
  const pglite = await openStore({ databaseUrl: null });
  await migrateToLatest(pglite.db as never);
  const p = await tessera(pglite);
  await pglite.close();
  report('PGlite', await bare(p.tokenLength), p.result);

  const pgStore = await postgresStore();
  if (!pgStore) {
    console.log('PostgreSQL not reachable: skipped (CI runs it)');
    return;
  }
  try {
    const q = await tessera(pgStore.store);
    report('PostgreSQL', await bare(q.tokenLength), q.result);
  } finally {
    await pgStore.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
