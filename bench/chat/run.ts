/**
 * bench/chat: the built-in brain's chat turns over HTTP on loopback (spec 4.6, DESIGN.md "Chat
 * agent"). Measures, per turn, the time to the first line (`__cutoff__`) and to the final answer
 * (`graphPath: ["final"]`), first one turn at a time, then N turns streaming at once on one
 * process, each checked to end with `__usage__` and no `{"error"}` line. Bounded by the number
 * of turns, not by time. PGlite store, generated sample data.
 *
 *   node --import tsx bench/chat/run.ts
 *   BENCH_TURNS=40 BENCH_CONCURRENCY=20 node --import tsx bench/chat/run.ts
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { InvalidationBus } from '../../packages/server/src/cache/invalidation-bus.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { SecretBox } from '../../packages/server/src/crypto/secrets.ts';
import { openStore } from '../../packages/server/src/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/db/migrate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import { median } from '../lib/stats.ts';

const turns = Number(process.env.BENCH_TURNS ?? 20);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 10);
const questions = [
  'How many orders are there?',
  'Average order amount by status',
  'Top 5 countries by revenue',
  'Show orders by month in 2024',
];

interface Timing {
  firstLineMs: number;
  finalMs: number;
  ok: boolean;
}

async function turn(url: string, key: string, i: number): Promise<Timing> {
  const start = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      input: questions[i % questions.length],
      sessionSettings: { externalId: `bench-${i}`, groups: ['admin'] },
    }),
  });
  if (!res.ok || !res.body) return { firstLineMs: Number.NaN, finalMs: Number.NaN, ok: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let firstLineMs = Number.NaN;
  let finalMs = Number.NaN;
  let last: Record<string, unknown> | undefined;
  let errored = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      if (part.trim() === '') continue;
      const line = JSON.parse(part) as Record<string, unknown>;
      if (Number.isNaN(firstLineMs)) firstLineMs = performance.now() - start;
      if ((line.graphPath as string[] | undefined)?.[0] === 'final') finalMs = performance.now() - start;
      if ('error' in line && line.id === undefined) errored = true;
      last = line;
    }
  }
  return { firstLineMs, finalMs, ok: !errored && last?.id === '__usage__' && !Number.isNaN(finalMs) };
}

async function drive(url: string, key: string, count: number, parallel: number) {
  const timings: Timing[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) timings.push(await turn(url, key, next++));
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return {
    turnsPerSecond: count / seconds,
    medianFirstLineMs: median(timings.map((t) => t.firstLineMs)),
    medianFinalMs: median(timings.map((t) => t.finalMs)),
    failures: timings.filter((t) => !t.ok).length,
  };
}

async function main() {
  process.env.TESSERA_SAMPLE_SCALE ??= '0.01';
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-chat-'));
  const store = await openStore({ databaseUrl: null });
  await migrateToLatest(store.db as never);
  const secrets = new SecretBox('bench-secret');
  const seeded = await seed(store.db, secrets, {
    dataDir,
    adminApiKey: null,
    skipDemo: false,
    createAdminKey: true,
  });
  const bus = new InvalidationBus();
  await bus.connect(store);
  const config = { ...loadConfig({}), dataDir, rateLimitPerMinute: 0 };
  const { app } = await buildApp({ config, db: store.db, secrets, bus, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `${base}/api/v1/public/${seeded.tenantName}/agents/${seeded.demoAgentId}/chat/stream-chat-state`;
  const key = seeded.createdAdminKey as string;
  try {
    await turn(url, key, 0); // warm-up: model compile, sample data, query plans
    const serial = await drive(url, key, Math.min(turns, 10), 1);
    const parallel = await drive(url, key, turns, concurrency);
    console.log('chat (built-in brain, PGlite, loopback HTTP)');
    console.log(
      `  one at a time: first line ${serial.medianFirstLineMs.toFixed(1)} ms, final answer ${serial.medianFinalMs.toFixed(1)} ms (median), failures ${serial.failures}`,
    );
    console.log(
      `  ${concurrency} at once: ${parallel.turnsPerSecond.toFixed(1)} turns/s, first line ${parallel.medianFirstLineMs.toFixed(1)} ms, final answer ${parallel.medianFinalMs.toFixed(1)} ms (median), failures ${parallel.failures}`,
    );
    if (serial.failures + parallel.failures > 0) process.exitCode = 1;
  } finally {
    await app.close();
    await bus.close();
    await store.close();
  }
}

await main();
