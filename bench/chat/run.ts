/**
 * bench/chat: chat turns of the built-in brain on the demo deployment, over HTTP on loopback
 * (spec 4.6, DESIGN.md "Chat agent"). Per turn: the time to the first line (`__cutoff__`), to the
 * final answer (`graphPath: ["final"]`) and to the last line (`__usage__`); per run: lines per
 * second. First one turn at a time, then N turns streaming at once on one process (200 by
 * default). Each turn must end with `__usage__` and carry no `{"error"}` line, or it counts as a
 * failure (and the run exits non-zero).
 *
 * Baseline, measured in the same run by the same client: a bare Fastify route that streams the
 * same lines (those of a real turn, same count and sizes) as NDJSON, one write per line, with no
 * store, no brain and no query. The ratio is what the turn itself costs on this machine: checks,
 * session, the run's log in the store, the model read and the queries the brain runs.
 *
 * Bounded by the number of turns, not by time. PGlite store, then PostgreSQL when reachable.
 *
 *   node --import tsx bench/chat/run.ts
 *   BENCH_CONCURRENCY=200 BENCH_SERIAL=10 node --import tsx bench/chat/run.ts
 */

import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Store } from '../../packages/server/src/db/database.ts';
import { withBareFastify } from '../lib/bare-fastify.ts';
import { onEachStore } from '../lib/each-store.ts';
import { startTessera } from '../lib/tessera-server.ts';
import type { Batch, Result } from './client.ts';

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 200);
const serialTurns = Number(process.env.BENCH_SERIAL ?? 10);
const questions = [
  'How many orders are there?',
  'Average order amount by status',
  'Top 5 countries by revenue',
  'Show orders by month in 2024',
];

/** One batch of turns, driven by a client in a process of its own (client.ts). */
function drive(batch: Batch): Promise<Result> {
  return new Promise((resolve, reject) => {
    const client = fork(fileURLToPath(new URL('./client.ts', import.meta.url)), {
      execArgv: ['--import', 'tsx'],
    });
    client.once('message', (result) => {
      resolve(result as Result);
      client.disconnect();
    });
    client.once('error', reject);
    client.once('exit', (code) => code !== 0 && reject(new Error(`bench client exited with ${code}`)));
    client.send(batch);
  });
}

/**
 * The baseline: the same lines streamed by a bare Fastify route, one write per line, as the
 * chat route writes them (hijacked reply, NDJSON), with nothing computed.
 */
function bare(lines: string[], serial: number, parallel: number) {
  return withBareFastify(
    (app) =>
      app.post('/stream', async (_request, reply) => {
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          'content-type': 'application/x-ndjson; charset=utf-8',
          'cache-control': 'no-cache',
        });
        for (const line of lines) {
          raw.write(`${line}\n`);
          // a turn's lines come one at a time, each after an await: so do these
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        raw.end();
      }),
    async (base) => {
      const batch = (count: number, parallel: number): Batch => ({
        url: `${base}/stream`,
        headers: {},
        bodies: Array.from({ length: count }, () => ({ input: 'x' })),
        parallel,
      });
      await drive(batch(20, 20));
      return { serial: await drive(batch(serial, 1)), parallel: await drive(batch(parallel, parallel)) };
    },
  );
}

async function tessera(store: Store) {
  const server = await startTessera(store, 'chat');
  const { base, seeded } = server;
  const url = `${base}/api/v1/public/${seeded.tenantName}/agents/${seeded.demoAgentId}/chat/stream-chat-state`;
  const headers = { authorization: `Api-Key ${seeded.createdAdminKey}` };
  const body = (i: number) => ({
    input: questions[i % questions.length],
    sessionSettings: { externalId: `bench-${i}`, groups: ['admin'] },
  });
  const batch = (from: number, count: number, parallel: number): Batch => ({
    url,
    headers,
    bodies: Array.from({ length: count }, (_, i) => body(from + i)),
    parallel,
  });
  try {
    // warm-up: model compile, sample data, query plans of every question
    const warm = await drive(batch(100_000, questions.length, 1));
    if (warm.failures > 0) throw new Error(`warm-up turns failed: ${warm.problems.join('; ')}`);
    // the lines of one real turn, for the baseline to stream
    const sample = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body(200_000)),
    });
    const lines = (await sample.text()).split('\n').filter((l) => l.trim() !== '');
    const serial = await drive(batch(0, serialTurns, 1));
    const parallel = await drive(batch(serialTurns, concurrency, concurrency));
    return { lines, serial, parallel };
  } finally {
    await server.close();
  }
}

function report(
  engine: string,
  lineCount: number,
  base: Awaited<ReturnType<typeof bare>>,
  ours: Awaited<ReturnType<typeof tessera>>,
) {
  const ms = (s: { median: number; p95: number }) => `${s.median.toFixed(1)} / ${s.p95.toFixed(1)} ms`;
  const row = (label: string, r: Result) =>
    `    ${label.padEnd(13)} first line ${ms(r.firstLine)}, final answer ${Number.isNaN(r.final.median) ? '-' : ms(r.final)}, last line ${ms(r.lastLine)} (median / p95); ${r.linesPerSecond.toFixed(0)} lines/s; ${r.turns} turns in ${r.seconds.toFixed(2)} s; failures ${r.failures}`;
  const ratio = (a: number, b: number) => (a / b).toFixed(1);
  console.log(`${engine} (${lineCount} lines per turn)`);
  for (const [label, b, o] of [
    ['one at a time', base.serial, ours.serial],
    [`${concurrency} at once`, base.parallel, ours.parallel],
  ] as const) {
    console.log(`  ${label}`);
    console.log(row('bare Fastify', b));
    console.log(row('Tessera', o));
    for (const problem of o.problems) console.log(`    failure: ${problem}`);
    console.log(
      `    ratio Tessera / bare: first line ${ratio(o.firstLine.median, b.firstLine.median)}x, last line ${ratio(o.lastLine.median, b.lastLine.median)}x (medians), lines/s ${(o.linesPerSecond / b.linesPerSecond).toFixed(3)}`,
    );
  }
}

async function main() {
  process.env.TESSERA_SAMPLE_SCALE ??= '0.01';
  console.log(
    `bench/chat: built-in brain, demo deployment (sample scale ${process.env.TESSERA_SAMPLE_SCALE}), ${serialTurns} turns one at a time, then ${concurrency} at once; node ${process.version}, ${os.cpus().length} CPUs`,
  );
  let failures = 0;
  await onEachStore({ name: 'chat', poolSize: 20 }, async (engine, store) => {
    const ours = await tessera(store);
    report(engine, ours.lines.length, await bare(ours.lines, serialTurns, concurrency), ours);
    failures += ours.serial.failures + ours.parallel.failures;
  });
  if (failures > 0) {
    console.log(`${failures} turns failed`);
    process.exitCode = 1;
  }
}

await main();
