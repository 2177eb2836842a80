/**
 * bench/http: requests per second of `GET /api/v1/deployments` with an API key, against a bare
 * Fastify route answering a same-sized JSON body, measured in the same run with the same load
 * generator (autocannon in a separate process, so that it does not share the server's thread).
 *
 *   npm run bench:http                 # PGlite, and PostgreSQL when reachable
 *   BENCH_SECONDS=10 npm run bench:http
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Store } from '../../packages/server/src/db/database.ts';
import { withBareFastify } from '../lib/bare-fastify.ts';
import { onEachStore } from '../lib/each-store.ts';
import { printRatio } from '../lib/ratio-report.ts';
import { startTessera } from '../lib/tessera-server.ts';

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

function bare(body: unknown): Promise<Result> {
  return withBareFastify(
    (app) => app.get('/bare', async () => body),
    (base) => load(`${base}/bare`),
  );
}

async function tessera(store: Store): Promise<{ result: Result; body: unknown }> {
  const server = await startTessera(store, 'http');
  const url = `${server.base}/api/v1/deployments`;
  const headers = { authorization: `Bearer ${server.seeded.createdAdminKey}` };
  try {
    const body = await (await fetch(url, { headers })).json();
    return { result: await load(url, headers), body };
  } finally {
    await server.close();
  }
}

async function main() {
  console.log(
    `bench/http: GET /api/v1/deployments, ${connections} connections, ${seconds}s per run, node ${process.version}`,
  );
  await onEachStore({ name: 'http', poolSize: 10 }, async (engine, store) => {
    const ours = await tessera(store);
    printRatio(engine, await bare(ours.body), ours.result, {
      describe: (r) => `${r.rps.toFixed(0)} req/s (p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors})`,
      rate: (r) => r.rps,
      digits: 2,
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
