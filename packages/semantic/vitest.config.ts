import { defineConfig } from 'vitest/config';

// Standalone config for this package: the root config runs the server's global setup, which the
// semantic layer does not need. Run with `npx vitest run --config packages/semantic/vitest.config.ts`.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
