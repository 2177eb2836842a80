/**
 * Builds the client (tsup: ESM, CommonJS and declarations) unless `dist/` was built from the same
 * inputs: CI builds it once and the package test reuses that build (issue 20; the declaration
 * build alone takes tens of seconds). Like the web bundle (packages/web/scripts/ensure-build.ts),
 * the build carries a SHA-256 of what it was made from (`dist/.inputs.sha256`, left out of the
 * published files), by content rather than modification times.
 * `node --import tsx packages/client/scripts/ensure-build.ts` (`npm run client:build`).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(clientRoot, '..', '..');
const stampFile = join(clientRoot, 'dist', '.inputs.sha256');

const inputs = ['src', 'package.json', 'tsconfig.build.json', 'tsup.config.ts'].map((p) =>
  join(clientRoot, p),
);

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

/** The SHA-256 of every input's path and content, with the lockfile (a tsup upgrade changes the build). */
export function clientInputsHash(): string {
  const hash = createHash('sha256');
  const all = [...inputs.flatMap(files), join(repoRoot, 'package-lock.json')]
    .map((file) => ({ file, name: relative(repoRoot, file).split(sep).join('/') }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { file, name } of all) hash.update(name).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Builds when the inputs changed since the last build; answers whether it built. */
export function ensureClientBuild(log: (line: string) => void = () => undefined): boolean {
  const hash = clientInputsHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === hash) return false;
  log('Building @tessera/client (tsup)...');
  execFileSync('npm', ['run', 'build', '-w', '@tessera/client'], { cwd: repoRoot, stdio: 'pipe' });
  // Written after the build, which empties dist/: a failed build leaves no stamp behind.
  writeFileSync(stampFile, `${hash}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = ensureClientBuild(console.log);
  if (!built) console.log('@tessera/client: dist/ is up to date with its inputs.');
}
