/**
 * The reporter behind `scripts/test-profile.ts`: per test file, its phases as Vitest measured
 * them (prepare, setup-file import, collect, tests and hooks), the CPU its hooks and tests used
 * and what it set up (packages/server/test/profile-setup.ts), written as JSON to
 * TESSERA_TEST_PROFILE_OUT when the run ends.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileProfile {
  file: string;
  project: string;
  state: string;
  tests: { passed: number; failed: number; skipped: number };
  prepareMs: number;
  setupMs: number;
  collectMs: number;
  runMs: number;
  cpuMs: number | null;
  maxRssMb: number | null;
  setups: Record<string, number> | null;
}

export interface RunProfile {
  startedAt: number;
  firstFileAt: number | null;
  endedAt: number;
  files: FileProfile[];
}

export default class ProfileReporter implements Reporter {
  private startedAt = Date.now();
  private firstFileAt: number | null = null;

  onTestModuleStart() {
    this.firstFileAt ??= Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const out = process.env.TESSERA_TEST_PROFILE_OUT;
    if (!out) return;
    const root = process.cwd();
    const files = modules.map((module): FileProfile => {
      const diagnostic = module.diagnostic();
      const profile = module.meta().profile;
      const tests = { passed: 0, failed: 0, skipped: 0 };
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') tests.passed++;
        else if (state === 'failed') tests.failed++;
        else tests.skipped++;
      }
      return {
        file: path.relative(root, module.moduleId),
        project: module.project.name || 'default',
        state: module.state(),
        tests,
        prepareMs: Math.round(diagnostic.prepareDuration),
        setupMs: Math.round(diagnostic.setupDuration),
        collectMs: Math.round(diagnostic.collectDuration),
        runMs: Math.round(diagnostic.duration),
        cpuMs: profile?.cpuMs ?? null,
        maxRssMb: profile?.maxRssMb ?? null,
        setups: profile?.setups ?? null,
      };
    });
    const run: RunProfile = {
      startedAt: this.startedAt,
      firstFileAt: this.firstFileAt,
      endedAt: Date.now(),
      files,
    };
    writeFileSync(out, JSON.stringify(run, null, 2));
  }
}
