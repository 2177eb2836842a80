/**
 * Replicas sharing the query cache (issue 15 item 6, REDIS_URL): N identical `/v1/load` requests
 * sent at once, spread over the replicas, each round with a query no replica has seen. Three
 * set-ups on one store and the sample DuckDB database (1,000,000 orders):
 *   - one replica (the baseline: its in-flight sharing runs the query once);
 *   - two replicas without Redis (each runs it);
 *   - two replicas sharing Redis (run once between them).
 * Prints, per set-up, engine executions per round and the median time until all N are answered,
 * the ratio to the baseline, then the latency of a repeat answered from the other replica's result
 * through Redis against one answered from the local cache.
 *
 *   node --import tsx bench/cache/run.ts
 *
 * Env: REDIS_URL (default redis://127.0.0.1:6379), TESSERA_BENCH_CACHE_DIR (data directory,
 * default $TMPDIR/tessera-bench-cache, reused between runs), TESSERA_BENCH_ITERATIONS (rounds,
 * default 15), TESSERA_BENCH_CONCURRENCY (N, default 16).
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SignJWT } from 'jose';
import { openMigratedStore, secretBoxFor } from '../../packages/server/src/bootstrap/runtime.ts';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import type { Application } from '../../packages/server/src/composition.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import { ensureSampleDatabase } from '../../packages/server/src/datasources/sample/generate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import type { QueryExecutor } from '../../packages/server/src/modules/data/executor.ts';
import { printRatio } from '../lib/ratio-report.ts';
import { iterations, median } from '../lib/stats.ts';

// Every request waits for its answer: no "Continue wait" round trips in the timings.
process.env.TESSERA_CONTINUE_WAIT_MS = '600000';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const concurrency = Number(process.env.TESSERA_BENCH_CONCURRENCY ?? 16);
const dataDir = process.env.TESSERA_BENCH_CACHE_DIR ?? path.join(os.tmpdir(), 'tessera-bench-cache');

const config = { ...loadConfig({}), dataDir, port: 0, rateLimitPerMinute: 0, logLevel: 'warn' };
await ensureSampleDatabase(sampleDatabaseFile(dataDir), 1, (line) => process.stderr.write(`\r${line}   `));
process.stderr.write('\n');
const store = await openMigratedStore(config);
const secrets = secretBoxFor(config);
const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
const deployment = await store.db
  .selectFrom('deployments')
  .selectAll()
  .orderBy('id')
  .executeTakeFirstOrThrow();

interface Replica {
  url: string;
  services: Application;
  close(): Promise<void>;
}

async function replica(redis: string | null): Promise<Replica> {
  const { app, services } = await buildApp({
    config: { ...config, redisUrl: redis },
    db: store.db,
    secrets,
    logger: false,
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `${base}/data/${deployment.id}${deployment.base_path}/v1/load`,
    services,
    close: () => app.close(),
  };
}

const first = await replica(null);
const secret = secrets.open(
  (await first.services.deployments.require(seeded.tenantId, deployment.id)).api_secret_enc,
);
const token = await new SignJWT({})
  .setProtectedHeader({ alg: 'HS256' })
  .sign(new TextEncoder().encode(secret));
const executions = (r: Replica) =>
  (r.services.data as unknown as { deps: { executor: QueryExecutor } }).deps.executor.executions;

const run = Math.random().toString(36).slice(2, 8);
let round = 0;
/** A query nobody has run: the revenue per status and category, above an amount of this round's. */
function freshQuery() {
  round++;
  return {
    measures: ['line_items.revenue', 'orders.count'],
    dimensions: ['orders.status', 'products.category'],
    filters: [
      { member: 'orders.amount', operator: 'gt', values: [`0.${run}${round}`.replace(/[a-z]/g, '1')] },
    ],
  };
}

async function load(r: Replica, query: object): Promise<number> {
  const t = performance.now();
  const res = await fetch(r.url, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"error"'))
    throw new Error(`load failed: ${res.status} ${text.slice(0, 300)}`);
  return performance.now() - t;
}

interface Figures {
  ms: number;
  executions: number;
}

/** N identical requests at once, round-robin over the replicas: time until all are answered. */
async function roundOn(replicas: Replica[]): Promise<Figures> {
  const query = freshQuery();
  const before = replicas.reduce((n, r) => n + executions(r), 0);
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, (_, j) => load(replicas[j % replicas.length], query)),
  );
  return { ms: performance.now() - t, executions: replicas.reduce((n, r) => n + executions(r), 0) - before };
}

/** The set-ups' rounds interleaved, so that a noisy moment of the machine weighs on each alike. */
async function measure(setups: Replica[][]): Promise<Figures[]> {
  // warm-up: every replica's driver open (its own DuckDB instance) and model compiled
  for (const r of new Set(setups.flat())) await load(r, freshQuery());
  const rounds: Figures[][] = setups.map(() => []);
  for (let i = 0; i < iterations; i++)
    for (const [k, replicas] of setups.entries()) rounds[k].push(await roundOn(replicas));
  return rounds.map((fs) => ({
    ms: median(fs.map((f) => f.ms)),
    executions: median(fs.map((f) => f.executions)),
  }));
}

const describe = (f: Figures) =>
  `${f.ms.toFixed(1)} ms for ${concurrency} requests, ${f.executions} execution(s)`;
const rate = (f: Figures) => 1 / f.ms;

const plain = [first, await replica(null)];
const shared = [await replica(redisUrl), await replica(redisUrl)];
const [single, apart, together] = await measure([[first], plain, shared]);

console.log(
  `replicas sharing the query cache: ${concurrency} identical requests, ${iterations} rounds (median)`,
);
printRatio('no Redis', single, apart, {
  describe,
  rate,
  digits: 2,
  labels: { base: '1 replica', ours: '2 replicas', ratio: 'speed 2 replicas / 1' },
});
printRatio('Redis', single, together, {
  describe,
  rate,
  digits: 2,
  labels: { base: '1 replica', ours: '2 replicas', ratio: 'speed 2 replicas / 1' },
});

// A repeat on the other replica: the result through Redis, against the local first level.
const remote: number[] = [];
const local: number[] = [];
for (let i = 0; i < iterations; i++) {
  const query = freshQuery();
  await load(shared[0], query);
  remote.push(await load(shared[1], query));
  local.push(await load(shared[1], query));
}
printRatio(
  'repeat',
  { ms: median(local), executions: 0 },
  { ms: median(remote), executions: 0 },
  {
    describe: (f) => `${f.ms.toFixed(2)} ms`,
    rate,
    digits: 2,
    labels: { base: 'local cache', ours: 'from Redis', ratio: 'speed Redis / local' },
  },
);

for (const r of [...plain, ...shared]) await r.close();
await store.close();
