/**
 * Counts the expensive things a test file sets up (servers, stores, sample databases, browsers),
 * for `scripts/test-profile.ts`. Kept on `globalThis` so that helpers loaded twice (a worker
 * running several files) share one tally; `profile-setup.ts` resets it per file and hands it to
 * the reporter through the file task's meta.
 */
export type SetupKind = 'servers' | 'stores' | 'samples' | 'browsers' | 'processes';

export type SetupCounts = Record<SetupKind, number>;

const key = Symbol.for('tessera.test.setupCounts');
type WithCounts = typeof globalThis & { [key]?: SetupCounts };

export function setupCounts(): SetupCounts {
  const holder = globalThis as WithCounts;
  holder[key] ??= { servers: 0, stores: 0, samples: 0, browsers: 0, processes: 0 };
  return holder[key];
}

export function countSetup(kind: SetupKind, n = 1): void {
  setupCounts()[kind] += n;
}

export function resetSetupCounts(): void {
  const counts = setupCounts();
  for (const kind of Object.keys(counts) as SetupKind[]) counts[kind] = 0;
}
