/**
 * Where the test suite's time goes: `node --import tsx scripts/test-profile.ts [vitest args]`
 * runs `vitest run` with the profile reporter and prints, per test file, its wall time (tests
 * and hooks), how long importing it took (collect), the CPU its tests used, and the servers,
 * stores, sample databases, browsers and processes it started; then the whole run's phases.
 * `--json F` also keeps the raw figures; `--from F` prints a kept profile without running.
 * Arguments it does not know go to vitest (a project, a file filter, TESSERA_TEST_DB in the env).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileProfile, RunProfile } from './test-profile-reporter.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value;
}

function runSuite(vitestArgs: string[], out: string): { wallMs: number; exitCode: number } {
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--reporter=dot',
      `--reporter=${path.join(root, 'scripts/test-profile-reporter.ts')}`,
      ...vitestArgs,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, TESSERA_TEST_PROFILE_OUT: out } },
  );
  return { wallMs: Date.now() - started, exitCode: result.status ?? 1 };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const sum = (files: FileProfile[], pick: (f: FileProfile) => number | null) =>
  files.reduce((total, f) => total + (pick(f) ?? 0), 0);

function setupsText(setups: Record<string, number> | null): string {
  if (!setups) return '';
  const short: Record<string, string> = {
    servers: 'srv',
    stores: 'store',
    samples: 'sample',
    browsers: 'browser',
    processes: 'proc',
  };
  return Object.entries(setups)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${short[kind] ?? kind}`)
    .join(', ');
}

function printProfile(run: RunProfile, wallMs: number | null, limit: number) {
  const files = [...run.files].sort((a, b) => b.collectMs + b.runMs - (a.collectMs + a.runMs));
  console.log(`\n| file | project | tests | collect s | run s | run CPU s | set up |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const f of files.slice(0, limit)) {
    const tests = `${f.tests.passed}${f.tests.failed ? ` (${f.tests.failed} failed)` : ''}`;
    const cpu = f.cpuMs === null ? '' : seconds(f.cpuMs);
    console.log(
      `| \`${f.file}\` | ${f.project} | ${tests} | ${seconds(f.collectMs)} | ${seconds(f.runMs)} | ${cpu} | ${setupsText(f.setups)} |`,
    );
  }
  if (files.length > limit) console.log(`| ... ${files.length - limit} more files | | | | | | |`);

  const projects = [...new Set(files.map((f) => f.project))];
  console.log('\n| phase | ' + projects.join(' | ') + ' | all |');
  console.log('|---|' + projects.map(() => '---|').join('') + '---|');
  const row = (label: string, pick: (f: FileProfile) => number | null, format = seconds) => {
    const cells = projects.map((p) =>
      format(
        sum(
          files.filter((f) => f.project === p),
          pick,
        ),
      ),
    );
    console.log(`| ${label} | ${cells.join(' | ')} | ${format(sum(files, pick))} |`);
  };
  const count = (n: number) => String(n);
  row('files', () => 1, count);
  row('tests passed', (f) => f.tests.passed, count);
  row('tests failed', (f) => f.tests.failed, count);
  row('tests skipped or todo', (f) => f.tests.skipped, count);
  row('prepare s (summed)', (f) => f.prepareMs);
  row('setup files s (summed)', (f) => f.setupMs);
  row('collect s (summed)', (f) => f.collectMs);
  row('tests and hooks s (summed)', (f) => f.runMs);
  row('tests and hooks CPU s (summed)', (f) => f.cpuMs);
  for (const kind of ['servers', 'stores', 'samples', 'browsers', 'processes'])
    row(`${kind} started`, (f) => f.setups?.[kind] ?? 0, count);

  const beforeFirst = run.firstFileAt === null ? 0 : run.firstFileAt - run.startedAt;
  console.log(`\nrun: ${seconds(run.endedAt - run.startedAt)} s from reporter start to end`);
  console.log(`  before the first file (config, global setup): ${seconds(beforeFirst)} s`);
  if (wallMs !== null) console.log(`  whole command: ${seconds(wallMs)} s`);
}

const args = process.argv.slice(2);
const jsonOut = option(args, '--json');
const from = option(args, '--from');
const limit = Number(option(args, '--top') ?? 40);
let wallMs: number | null = null;
let exitCode = 0;
let file = from;
if (!file) {
  file = jsonOut ?? path.join(mkdtempSync(path.join(os.tmpdir(), 'tessera-profile-')), 'profile.json');
  const result = runSuite(args, path.resolve(file));
  wallMs = result.wallMs;
  exitCode = result.exitCode;
}
printProfile(JSON.parse(readFileSync(file, 'utf8')) as RunProfile, wallMs, limit);
process.exit(exitCode);
