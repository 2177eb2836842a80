/**
 * bench/chat's client, in a process of its own (forked by run.ts): it reads the streams as they
 * arrive, whatever the server's event loop is busy with, as a real client does. It runs the one
 * batch of turns it is sent (`parallel` at a time) and sends back the figures.
 */
import { performance } from 'node:perf_hooks';
import { median } from '../lib/stats.ts';

export interface Batch {
  url: string;
  headers: Record<string, string>;
  bodies: unknown[];
  parallel: number;
}

interface Timing {
  firstLineMs: number;
  finalMs: number;
  lastLineMs: number;
  lines: number;
  ok: boolean;
  /** Why a turn failed: its status, its error line, or how it ended. */
  problem?: string;
}

export interface Result {
  turns: number;
  seconds: number;
  linesPerSecond: number;
  firstLine: { median: number; p95: number };
  final: { median: number; p95: number };
  lastLine: { median: number; p95: number };
  failures: number;
  problems: string[];
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)];
}

/** One streamed request, read line by line as it arrives. */
async function turn(url: string, headers: Record<string, string>, body: unknown): Promise<Timing> {
  const start = performance.now();
  const failed = {
    firstLineMs: Number.NaN,
    finalMs: Number.NaN,
    lastLineMs: Number.NaN,
    lines: 0,
    ok: false,
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => '');
    return { ...failed, problem: `${res.status} ${text.slice(0, 200)}` };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  const t: Timing = { ...failed };
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
      const now = performance.now() - start;
      if (t.lines === 0) t.firstLineMs = now;
      if ((line.graphPath as string[] | undefined)?.[0] === 'final') t.finalMs = now;
      if ('error' in line && line.id === undefined) {
        errored = true;
        t.problem = String(line.error);
      }
      t.lines++;
      t.lastLineMs = now;
      last = line;
    }
  }
  t.ok = !errored && last?.id === '__usage__' && !Number.isNaN(t.finalMs);
  if (!t.ok) t.problem ??= `ended with ${JSON.stringify(last).slice(0, 200)}`;
  return t;
}

/** The batch's turns, `parallel` streaming at once (all at once when it is their count). */
async function drive({ url, headers, bodies, parallel }: Batch): Promise<Result> {
  const count = bodies.length;
  const one = (i: number) => turn(url, headers, bodies[i]);
  const timings: Timing[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) timings.push(await one(next++));
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const ok = timings.filter((t) => t.ok);
  const stat = (pick: (t: Timing) => number) => ({
    median: median(ok.map(pick)),
    p95: p95(ok.map(pick)),
  });
  return {
    turns: count,
    seconds,
    linesPerSecond: timings.reduce((n, t) => n + t.lines, 0) / seconds,
    firstLine: stat((t) => t.firstLineMs),
    final: stat((t) => t.finalMs),
    lastLine: stat((t) => t.lastLineMs),
    failures: timings.length - ok.length,
    problems: [...new Set(timings.flatMap((t) => (t.problem ? [t.problem] : [])))].slice(0, 5),
  };
}

process.once('message', async (batch: Batch) => process.send?.(await drive(batch)));
