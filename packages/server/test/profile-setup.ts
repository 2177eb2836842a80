/**
 * A setup file of every test project, run before each test file. Test files share a worker
 * (vitest.config.ts, `isolate: false`), so each starts from the worker's environment variables
 * as they were before any file changed them (a file may set TESSERA_SAMPLE_SCALE or TZ for
 * itself). Then, per test file, how much CPU its hooks and tests used and what it set up
 * (setup-counters.ts), left on the file task's meta for the profile reporter
 * (`scripts/test-profile.ts`). Costs two `process.cpuUsage()` calls per file.
 */
import { afterAll, beforeAll } from 'vitest';
import { resetSetupCounts, type SetupCounts, setupCounts } from './setup-counters.ts';

declare module '@vitest/runner' {
  interface TaskMeta {
    profile?: { cpuMs: number; maxRssMb: number; setups: SetupCounts };
  }
}

const envKey = Symbol.for('tessera.test.workerEnv');
const holder = globalThis as typeof globalThis & { [envKey]?: Record<string, string | undefined> };
holder[envKey] ??= { ...process.env };
const workerEnv = holder[envKey];
for (const name of Object.keys(process.env)) if (!(name in workerEnv)) delete process.env[name];
for (const [name, value] of Object.entries(workerEnv))
  if (process.env[name] !== value) process.env[name] = value;

let cpuAtStart = process.cpuUsage();

beforeAll(() => {
  resetSetupCounts();
  cpuAtStart = process.cpuUsage();
});

afterAll((file) => {
  const cpu = process.cpuUsage(cpuAtStart);
  file.meta.profile = {
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    setups: { ...setupCounts() },
  };
});
