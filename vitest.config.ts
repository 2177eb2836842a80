import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { testProjects } from './scripts/test-projects.ts';
import LongestFirst from './scripts/test-sequencer.ts';

const files = testProjects(import.meta.dirname);

/**
 * Four projects by what a test needs (scripts/test-projects.ts says which file goes where):
 * `unit` needs nothing, `pglite` a server on the embedded store, `postgres` the server's
 * store-backed files again on PostgreSQL, `browser` Chromium too. `npm test` runs them all;
 * `npx vitest run --project pglite` one of them.
 *
 * Test files share a worker (`isolate: false`): the server's modules are imported once per
 * worker instead of once per file, which cut the suite's collect time from 751 s to about 60 s
 * (issue 20). What that needs of a test file is said in packages/server/test/profile-setup.ts
 * (each file starts from the worker's environment) and in the harness (stores and servers of
 * their own, nothing left running). One worker more than the cores: a test spends more than half
 * its time waiting (on a browser, a child process, the network), and the CPU profile
 * (scripts/test-profile.ts) showed the cores idle half the run with a worker per core.
 */
const forks = Math.max(
  1,
  Number(process.env.TESSERA_TEST_WORKERS) || Math.min(os.availableParallelism() + 1, 4),
);

export default defineConfig({
  test: {
    globalSetup: ['packages/server/test/global-setup.ts'],
    setupFiles: ['packages/server/test/profile-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    isolate: false,
    poolOptions: { forks: { isolate: false, maxForks: forks, minForks: forks } },
    sequence: { sequencer: LongestFirst },
    env: {
      // The generated sample at its smallest unless a file asks for more: tests are about
      // behaviour, the benchmarks (bench/) about the engine at scale.
      TESSERA_SAMPLE_SCALE: '0.002',
      // Dates print in one zone on every machine; a test about zones sets its own.
      TZ: 'UTC',
    },
    projects: [
      { extends: true, test: { name: 'unit', include: files.unit } },
      { extends: true, test: { name: 'pglite', include: files.pglite } },
      { extends: true, test: { name: 'postgres', include: files.postgres } },
      { extends: true, test: { name: 'browser', include: files.browser } },
    ],
  },
});
