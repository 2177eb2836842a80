/**
 * A setup file of every test project: per test file, how much CPU its hooks and tests used and
 * what it set up (setup-counters.ts), left on the file task's meta for the profile reporter
 * (`scripts/test-profile.ts`). Costs two `process.cpuUsage()` calls per file.
 */
import { afterAll, beforeAll } from 'vitest';
import { resetSetupCounts, type SetupCounts, setupCounts } from './setup-counters.ts';

declare module '@vitest/runner' {
  interface TaskMeta {
    profile?: { cpuMs: number; maxRssMb: number; setups: SetupCounts };
  }
}

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
