import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtHash, ensureWebBuild, inputsHash } from '../scripts/ensure-build.ts';

const repo = join(import.meta.dirname, '..', '..', '..');

/**
 * scripts/ensure-build.ts on a temporary copy of the web app's inputs (its sources, build settings,
 * the client's sources and the lockfile), laid out as in the repository. The build stands in for
 * Vite with one that writes the bundle's index page, counting how often it ran.
 */
describe('ensureWebBuild', () => {
  let root: string;
  let webRoot: string;
  let builds: number;
  const build = async (at: string) => {
    builds += 1;
    mkdirSync(join(at, 'dist'), { recursive: true });
    writeFileSync(join(at, 'dist', 'index.html'), `<!doctype html><p>build ${builds}</p>`);
  };
  const ensure = () => ensureWebBuild(() => {}, { webRoot, build });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tessera-ensure-build-'));
    webRoot = join(root, 'packages', 'web');
    for (const path of [
      'packages/web/src',
      'packages/web/index.html',
      'packages/web/vite.config.ts',
      'packages/web/package.json',
      'packages/client/src',
      'package-lock.json',
    ])
      cpSync(join(repo, path), join(root, path), { recursive: true });
    builds = 0;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when there is no bundle, then not again for the same inputs', async () => {
    expect(builtHash(webRoot)).toBeNull();
    expect(await ensure()).toBe(true);
    expect(builtHash(webRoot)).toBe(inputsHash(webRoot));
    expect(await ensure()).toBe(false);
    expect(builds).toBe(1);
  });

  it('does not rebuild when only modification times change', async () => {
    await ensure();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(webRoot, 'src', 'main.tsx'), later, later);
    utimesSync(join(webRoot, 'vite.config.ts'), later, later);
    expect(await ensure()).toBe(false);
    expect(builds).toBe(1);
  });

  it.each([
    ['a source file', 'packages/web/src/main.tsx'],
    ['a new source file', 'packages/web/src/dashboard/new-file.ts'],
    ['the client it bundles', 'packages/client/src/index.ts'],
    ['the lockfile', 'package-lock.json'],
    ['the Vite config', 'packages/web/vite.config.ts'],
  ])('rebuilds after a change to %s, and an undone change rebuilds to the first hash', async (_, path) => {
    await ensure();
    const first = builtHash(webRoot);
    const file = join(root, path);
    const before = existsSync(file) ? readFileSync(file) : null;
    writeFileSync(file, `${before?.toString() ?? ''}\n// changed\n`);
    expect(await ensure()).toBe(true);
    expect(builds).toBe(2);
    expect(builtHash(webRoot)).not.toBe(first);
    if (before) writeFileSync(file, before);
    else rmSync(file);
    expect(await ensure()).toBe(true);
    expect(builtHash(webRoot)).toBe(first);
  });

  it('rebuilds when the bundle is gone, and leaves no hash when the build fails', async () => {
    await ensure();
    rmSync(join(webRoot, 'dist'), { recursive: true });
    expect(await ensure()).toBe(true);
    expect(builds).toBe(2);
    writeFileSync(join(webRoot, 'src', 'main.tsx'), '// broken\n');
    const failing = async (at: string) => {
      rmSync(join(at, 'dist'), { recursive: true, force: true });
      throw new Error('build failed');
    };
    await expect(ensureWebBuild(() => {}, { webRoot, build: failing })).rejects.toThrow('build failed');
    expect(builtHash(webRoot)).toBeNull();
  });
});
