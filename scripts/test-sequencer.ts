/**
 * The order test files start in: the longest first, so that the last file to finish does not
 * start late beside idle workers. vitest orders by the durations it kept from earlier runs on
 * this machine; a fresh clone (CI) has none, so the files known to take longest (as the profile,
 * `scripts/test-profile.ts`, measured them) lead, then vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const knownSlow = [
  'packages/web/test/dashboard.test.ts',
  'packages/web/test/embed-creator.test.ts',
  'packages/server/src/modules/notifications/scheduler.test.ts',
  'packages/web/test/embed.test.ts',
  'packages/web/test/dashboard-editor.test.ts',
  'packages/server/test/authorization-matrix.test.ts',
  'packages/server/test/fuzz/',
  'packages/server/test/bad-input.test.ts',
  'packages/server/src/modules/data/shared-cache.test.ts',
  'packages/server/src/modules/sign-in/sign-in.test.ts',
  'packages/server/src/cli/content-cli.test.ts',
  'packages/web/test/settings-admin.test.ts',
  'packages/web/test/settings-users.test.ts',
  'packages/server/src/modules/notifications/claim.test.ts',
  'packages/server/src/cli/cli.test.ts',
  'packages/server/src/modules/notifications/delivery.test.ts',
  'packages/client/test/package.test.ts',
  'packages/server/src/modules/notifications/crash.test.ts',
];

const rank = (spec: TestSpecification) => {
  const file = spec.moduleId.replaceAll('\\', '/');
  const at = knownSlow.findIndex((known) => file.includes(`/${known}`));
  return at < 0 ? knownSlow.length : at;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
