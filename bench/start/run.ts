/**
 * bench/start: how soon `tessera start` answers and how much memory it holds once idle, against
 * a bare Fastify process (one route) spawned and measured the same way in the same run (issue 20,
 * item 6: first answer under 2 s, idle memory on the embedded store under 300 MiB).
 *
 *   node --import tsx bench/start/run.ts                  # the compiled start (bin/tessera.js)
 *   BENCH_START=tsx node --import tsx bench/start/run.ts  # the TypeScript start, for comparison
 *   BENCH_RUNS=5 BENCH_SETTLE_SECONDS=10 node --import tsx bench/start/run.ts
 *
 * Each case spawns the process on a free port (PORT=0; the address is read from what it prints),
 * sends `GET /api/v1/deployments` with the admin key (read from the data directory) until it
 * answers 200 (the time from spawn to that answer is the first figure, with the CPU time the
 * process used until then: on a machine busy with other work, the wall time grows with the load
 * and the CPU time much less), waits BENCH_SETTLE_SECONDS (default 5) and reads VmRSS (idle
 * memory) and VmHWM (peak) of the process from /proc. Cases, on the embedded store (PGlite in the data directory) and then on PostgreSQL
 * (a fresh database on TESSERA_TEST_POSTGRES_URL's server, default
 * postgres://postgres@127.0.0.1:5432/test, dropped afterwards) when reachable:
 * - first start on an empty data directory, sample database at TESSERA_SAMPLE_SCALE 0.01 (what is
 *   left when generating the sample does not dominate);
 * - first start with the default sample (1,000,000 orders), what `npm start` does on a fresh clone;
 * - second start on that directory, what every later `npm start` does.
 * Each case runs BENCH_RUNS times (default 3) and prints its median, with the bare process's
 * median and the ratios Tessera / bare. The compiled build is made (when stale) before measuring.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureServerBuild } from '../../packages/server/scripts/ensure-build.js';
import { median } from '../lib/stats.ts';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const settleMs = Number(process.env.BENCH_SETTLE_SECONDS ?? 5) * 1000;
const mode = process.env.BENCH_START === 'tsx' ? 'tsx' : 'compiled';
const repo = path.resolve(import.meta.dirname, '../..');
const startArgs =
  mode === 'tsx'
    ? ['--import', 'tsx', 'packages/server/src/cli/main.ts', 'start']
    : ['packages/server/bin/tessera.js', 'start'];
/** The baseline: Fastify with one route, as plain JavaScript (no loader), printing its address. */
const bareSource = `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
app.get('/api/v1/deployments', async () => ({ items: [], pageInfo: { hasNextPage: false } }));
console.log('listening ' + (await app.listen({ host: '127.0.0.1', port: 0 })));
`;

interface Sample {
  /** Spawn to the first 200 answer. */
  firstAnswerMs: number;
  /** CPU time (user and system, all threads, and finished child processes) used until then. */
  cpuMs: number;
  idleRssMiB: number;
  peakRssMiB: number;
}

interface Launch {
  args: string[];
  env: NodeJS.ProcessEnv;
  /** The admin key, once the process printed its address. */
  key: () => string | null;
}

/**
 * utime + stime, and those of its finished children (the first start's initdb), from
 * /proc/PID/stat, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
 */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 10;
}

function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Resolves with the base URL the process prints (`http://127.0.0.1:PORT`). */
function address(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(?:Management API:\s+|listening )(http:\/\/[\d.]+:\d+)/.exec(output);
      if (found) resolve(found[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before answering:\n${output}`)));
  });
}

async function firstAnswer(base: string, key: string | null): Promise<void> {
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  for (;;) {
    const status = await fetch(`${base}/api/v1/deployments`, { headers }).then(
      (res) => res.arrayBuffer().then(() => res.status),
      () => 0,
    );
    if (status === 200) return;
    if (status !== 0 && status !== 503) throw new Error(`GET /api/v1/deployments answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function measure({ args, env, key }: Launch): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await firstAnswer(await address(child), key());
    const firstAnswerMs = performance.now() - started;
    const cpu = cpuMs(child.pid!);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const { rss, peak } = memory(child.pid!);
    return { firstAnswerMs, cpuMs: cpu, idleRssMiB: rss, peakRssMiB: peak };
  } finally {
    await stop(child);
  }
}

function bare(): Launch {
  return { args: ['--input-type=module', '-e', bareSource], env: process.env, key: () => null };
}

function tessera(dataDir: string, databaseUrl: string | null, sampleScale: string | null): Launch {
  const { DATABASE_URL: _ignored, TESSERA_SAMPLE_SCALE: _scale, ...rest } = process.env;
  const env: NodeJS.ProcessEnv = { ...rest, TESSERA_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (sampleScale) env.TESSERA_SAMPLE_SCALE = sampleScale;
  return {
    args: startArgs,
    env,
    key: () => readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim(),
  };
}

/** A fresh PostgreSQL database per call, or null when the server is not reachable. */
async function postgres(): Promise<{ create(): Promise<string>; dropAll(): Promise<void> } | null> {
  const adminUrl = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const made: string[] = [];
  return {
    async create() {
      const name = `tessera_bench_start_${process.pid}_${made.length}`;
      await admin.query(`CREATE DATABASE ${name}`);
      made.push(name);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropAll() {
      for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

type Case = 'first start, sample scale 0.01' | 'first start, default sample' | 'second start';

/** One run of the three cases on a store, each beside a bare process spawned just before it. */
async function runCases(
  database: (() => Promise<string>) | null,
  record: (name: Case | 'bare Fastify', sample: Sample) => void,
) {
  const dirs: string[] = [];
  const fresh = () => {
    dirs.push(mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-start-')));
    return dirs[dirs.length - 1];
  };
  try {
    const small = fresh();
    record('bare Fastify', await measure(bare()));
    record(
      'first start, sample scale 0.01',
      await measure(tessera(small, (await database?.()) ?? null, '0.01')),
    );
    const full = fresh();
    const fullDatabase = (await database?.()) ?? null;
    record('bare Fastify', await measure(bare()));
    record('first start, default sample', await measure(tessera(full, fullDatabase, null)));
    record('bare Fastify', await measure(bare()));
    record('second start', await measure(tessera(full, fullDatabase, null)));
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

function report(engine: string, samples: Map<string, Sample[]>) {
  const med = (name: string, key: keyof Sample) => median((samples.get(name) ?? []).map((s) => s[key]));
  const base = {
    time: med('bare Fastify', 'firstAnswerMs'),
    cpu: med('bare Fastify', 'cpuMs'),
    rss: med('bare Fastify', 'idleRssMiB'),
  };
  const width = 32;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `${engine.padEnd(11)}${'bare Fastify:'.padEnd(width)} first answer ${s(base.time)} (CPU ${s(base.cpu)}), idle RSS ${base.rss.toFixed(0)} MiB`,
  );
  for (const name of ['first start, sample scale 0.01', 'first start, default sample', 'second start']) {
    const time = med(name, 'firstAnswerMs');
    const cpu = med(name, 'cpuMs');
    const rss = med(name, 'idleRssMiB');
    console.log(
      `${''.padEnd(11)}${`${name}:`.padEnd(width)} first answer ${s(time)} (${(time / base.time).toFixed(1)}x; ` +
        `CPU ${s(cpu)}, ${(cpu / base.cpu).toFixed(1)}x), idle RSS ${rss.toFixed(0)} MiB (${(rss / base.rss).toFixed(1)}x), ` +
        `peak ${med(name, 'peakRssMiB').toFixed(0)} MiB`,
    );
  }
}

async function main() {
  if (mode === 'compiled') await ensureServerBuild((line) => console.log(line));
  console.log(
    `bench/start: ${mode === 'tsx' ? 'node --import tsx src/cli/main.ts start' : 'node bin/tessera.js start (compiled)'}, ` +
      `median of ${runs}, idle RSS ${settleMs / 1000} s after the first answer, node ${process.version}, ${os.cpus().length} CPUs`,
  );
  const embedded = new Map<string, Sample[]>();
  const add = (into: Map<string, Sample[]>) => (name: string, sample: Sample) =>
    into.set(name, [...(into.get(name) ?? []), sample]);
  for (let run = 0; run < runs; run++) await runCases(null, add(embedded));
  report('PGlite', embedded);
  const server = await postgres();
  if (!server) {
    console.log('PostgreSQL not reachable: skipped (CI runs it)');
    return;
  }
  const onPostgres = new Map<string, Sample[]>();
  try {
    for (let run = 0; run < runs; run++) await runCases(() => server.create(), add(onPostgres));
  } finally {
    await server.dropAll();
  }
  report('PostgreSQL', onPostgres);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
