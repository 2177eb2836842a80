import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClientBuild } from '../scripts/ensure-build.ts';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(packageDir, '../..');

/**
 * What `npm publish` would ship: built with tsup, packed with `npm pack` into a temporary
 * directory, unpacked and read from there.
 */
describe('the packed package', () => {
  let workDir: string;
  let unpacked: string;
  let files: string[];

  beforeAll(() => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-client-pack-'));
    // Built once: CI's `npm run client:build` made it from the same inputs, or this builds it.
    ensureClientBuild();
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', workDir], {
        cwd: packageDir,
        encoding: 'utf8',
      }),
    ) as { filename: string }[];
    // Installed as a consumer would have it: node_modules/@tessera/client, its dependency beside it.
    unpacked = path.join(workDir, 'node_modules/@tessera/client');
    mkdirSync(unpacked, { recursive: true });
    execFileSync('tar', [
      '-xzf',
      path.join(workDir, packed[0].filename),
      '-C',
      unpacked,
      '--strip-components=1',
    ]);
    symlinkSync(
      path.join(repoDir, 'node_modules/openapi-fetch'),
      path.join(workDir, 'node_modules/openapi-fetch'),
    );
    files = listFiles(unpacked);
  }, 300_000);
  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('holds only the build, README, CHANGELOG and package.json', () => {
    const outside = files.filter((f) => !/^dist\/[^/]+\.(c?js|d\.c?ts)$/.test(f));
    expect(outside.sort()).toEqual(['CHANGELOG.md', 'README.md', 'package.json']);
    for (const entry of [
      'index.js',
      'index.cjs',
      'index.d.ts',
      'index.d.cts',
      'react.js',
      'react.cjs',
      'react.d.ts',
    ]) {
      expect(files).toContain(`dist/${entry}`);
    }
  });

  it('carries no server code and imports nothing but its dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toBe('0.1.4');
    const allowed = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const file of files.filter((f) => f.startsWith('dist/'))) {
      const text = readFileSync(path.join(unpacked, file), 'utf8');
      expect(text, file).not.toMatch(/packages\/server|@tessera\/server|@tessera\/semantic/);
      for (const specifier of importedSpecifiers(text)) {
        if (specifier.startsWith('.')) continue;
        expect(
          allowed.has(specifier) || allowed.has(specifier.split('/').slice(0, 2).join('/')),
          `${file}: ${specifier}`,
        ).toBe(true);
      }
    }
  });

  it('has no Node built-ins in what a browser loads', () => {
    for (const file of files.filter((f) => /^dist\/.*\.c?js$/.test(f))) {
      const text = readFileSync(path.join(unpacked, file), 'utf8');
      expect(
        importedSpecifiers(text).filter((s) => s.startsWith('node:')),
        file,
      ).toEqual([]);
      expect(text, file).not.toMatch(/\bprocess\.(env|versions)|\bBuffer\.|__dirname/);
    }
  });

  it('loads as ESM and as CommonJS through the exports map, with the same names', () => {
    const script = `
      const esm = await import('@tessera/client');
      const esmReact = await import('@tessera/client/react');
      const { createRequire } = await import('node:module');
      const require = createRequire(process.cwd() + '/');
      const cjs = require('@tessera/client');
      console.log(JSON.stringify({
        esm: typeof esm.createClient, alias: esm.createTesseraClient === esm.createClient,
        cjs: typeof cjs.createClient, cjsAlias: cjs.createTesseraClient === cjs.createClient,
        hooks: Object.keys(esmReact).filter((k) => k.startsWith('use')).length,
        sameApiError: esm.ApiError === (await import('@tessera/client')).ApiError,
      }));`;
    // React and TanStack Query are peers: the /react entry resolves them from the repository.
    symlinkSync(path.join(repoDir, 'node_modules/react'), path.join(workDir, 'node_modules/react'));
    mkdirSync(path.join(workDir, 'node_modules/@tanstack'));
    for (const name of ['react-query', 'query-core']) {
      symlinkSync(
        path.join(repoDir, 'node_modules/@tanstack', name),
        path.join(workDir, 'node_modules/@tanstack', name),
      );
    }
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: workDir,
      encoding: 'utf8',
    });
    const result = JSON.parse(output);
    expect(result).toMatchObject({
      esm: 'function',
      alias: true,
      cjs: 'function',
      cjsAlias: true,
      sameApiError: true,
    });
    expect(result.hooks).toBeGreaterThan(50);
  });
});

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** The module specifiers a built file imports or requires. */
function importedSpecifiers(text: string): string[] {
  const found = [
    ...text.matchAll(/\bfrom\s*["']([^"']+)["']/g),
    ...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g),
    ...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
  ];
  return found.map((m) => m[1]);
}
