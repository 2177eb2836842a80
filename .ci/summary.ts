/**
 * CI's closing lines: per test project (vitest.config.ts), how many tests passed, failed and were
 * skipped, from the profile the suite wrote (scripts/test-profile-reporter.ts); exits 1 when a
 * test failed or a project ran none.
 * `node --import tsx .ci/summary.ts .ci/test-profile.json`
 */
import { readFileSync } from 'node:fs';
import type { RunProfile } from '../scripts/test-profile-reporter.ts';

const run = JSON.parse(readFileSync(process.argv[2] ?? '.ci/test-profile.json', 'utf8')) as RunProfile;
const totals = new Map<string, { passed: number; failed: number; skipped: number; files: number }>();
for (const file of run.files) {
  const t = totals.get(file.project) ?? { passed: 0, failed: 0, skipped: 0, files: 0 };
  t.passed += file.tests.passed;
  t.failed += file.tests.failed + (file.state === 'failed' && file.tests.failed === 0 ? 1 : 0);
  t.skipped += file.tests.skipped;
  t.files++;
  totals.set(file.project, t);
}
let bad = totals.size === 0;
for (const [project, t] of totals) {
  console.log(`${project}: ${t.files} files, ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  if (t.failed > 0 || t.passed === 0) bad = true;
}
process.exit(bad ? 1 : 0);
