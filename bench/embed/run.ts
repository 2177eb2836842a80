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
import { performance } from 'node:perf_hooks';
import type { Store } from '../../packages/server/src/db/database.ts';
import { withBareFastify } from '../lib/bare-fastify.ts';
import { onEachStore } from '../lib/each-store.ts';
import { printRatio } from '../lib/ratio-report.ts';
import { median } from '../lib/stats.ts';
import { startTessera } from '../lib/tessera-server.ts';

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
function bare(tokenLength: number): Promise<Result> {
  return withBareFastify(
    (app) => {
      app.post('/api/v1/embed/generate-session', async () => ({
        sessionId: randomBytes(16).toString('hex'),
      }));
      app.post('/api/v1/embed/session/token', async () => ({ token: 'x'.repeat(tokenLength) }));
    },
    (base) => measure(base, { authorization: 'Bearer bench' }, 1),
  );
}

async function tessera(store: Store): Promise<{ result: Result; tokenLength: number }> {
  const server = await startTessera(store, 'embed');
  const { base } = server;
  const headers = { authorization: `Bearer ${server.seeded.createdAdminKey}` };
  const deploymentId = server.seeded.demoDeploymentId as number;
  try {
    await post(`${base}/api/v1/groups`, { name: 'bench' }, headers);
    const probe = await post(`${base}/api/v1/embed/generate-session`, sessionBody(deploymentId, -1), headers);
    const token = await post(`${base}/api/v1/embed/session/token`, { sessionId: probe.body.sessionId });
    if (!token.ok) throw new Error(`embed token failed: ${JSON.stringify(token.body)}`);
    return { result: await measure(base, headers, deploymentId), tokenLength: token.body.token.length };
  } finally {
    await server.close();
  }
}

async function main() {
  console.log(
    `bench/embed: generate-session + session/token, ${rounds} rounds after ${warmup} warm-up, ${concurrency} at a time, node ${process.version}`,
  );
  await onEachStore({ name: 'embed', poolSize: 10 }, async (engine, store) => {
    const ours = await tessera(store);
    printRatio(engine, await bare(ours.tokenLength), ours.result, {
      describe: (r) =>
        `${r.roundsPerSecond.toFixed(0)} sessions/s (median round ${r.medianMs.toFixed(1)} ms, failures ${r.failures})`,
      rate: (r) => r.roundsPerSecond,
      digits: 3,
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
