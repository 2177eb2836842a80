/**
 * Builds the web app when its bundle is missing or was built from other inputs, so that the
 * README's two commands (`npm ci`, `npm start`) serve it on a fresh clone with no third command,
 * and a start after an edit serves the edit. Run by the root `prestart` script and the tests' setup.
 *
 * The bundle carries a SHA-256 of what it was built from (`dist/.inputs.sha256`): the app's
 * sources, its build settings, the client it bundles and the lockfile (a dependency upgrade
 * changes the bundle too). A start hashes the same inputs and rebuilds only when the hashes
 * differ. Content rather than modification times: a checkout, a copy or a touch changes times
 * without changing what would be built, and an edit undone leaves a newer time but the same bundle.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const defaultWebRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const hashFile = '.inputs.sha256';

/** What the bundle is made from: the app, its build settings, the client and dashboard model it bundles, the lockfile. */
export function buildInputs(webRoot: string): string[] {
  return [
    join(webRoot, 'src'),
    join(webRoot, 'index.html'),
    join(webRoot, 'vite.config.ts'),
    join(webRoot, 'package.json'),
    join(webRoot, '..', 'client', 'src'),
    join(webRoot, '..', 'dashboard', 'src'),
    join(webRoot, '..', '..', 'package-lock.json'),
  ];
}

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

/** The SHA-256 of every input file's path (relative to the repository) and content, in path order. */
export function inputsHash(webRoot: string = defaultWebRoot): string {
  const repo = join(webRoot, '..', '..');
  const hash = createHash('sha256');
  const all = buildInputs(webRoot)
    .flatMap(files)
    .map((file) => ({ file, name: relative(repo, file).split(sep).join('/') }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const { file, name } of all) {
    hash.update(name).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The hash the current bundle was built from, or null when there is no complete bundle. */
export function builtHash(webRoot: string = defaultWebRoot): string | null {
  const dist = join(webRoot, 'dist');
  if (!existsSync(join(dist, 'index.html')) || !existsSync(join(dist, hashFile))) return null;
  return readFileSync(join(dist, hashFile), 'utf8').trim();
}

export interface WebBuildOptions {
  webRoot?: string;
  /** The build itself; Vite's production build unless given (tests stand in a cheaper one). */
  build?: (webRoot: string) => Promise<void>;
}

/** Builds when needed; answers whether it built. */
export async function ensureWebBuild(
  log: (line: string) => void = console.log,
  options: WebBuildOptions = {},
): Promise<boolean> {
  const webRoot = options.webRoot ?? defaultWebRoot;
  // Hashed before building: an edit made while the build runs leaves a stale hash, so the next
  // start builds again rather than serving a bundle that misses it.
  const hash = inputsHash(webRoot);
  if (builtHash(webRoot) === hash) return false;
  log('Building the web app (packages/web), once after install or an edit...');
  await (options.build ?? viteBuild)(webRoot);
  // Written after the build, which empties dist/: a build that fails leaves no hash behind.
  writeFileSync(join(webRoot, 'dist', hashFile), `${hash}\n`);
  return true;
}

async function viteBuild(webRoot: string): Promise<void> {
  const { build } = await import('vite');
  // Always the production bundle (minified, React's production build), whoever asks: vitest sets
  // NODE_ENV=test, which Vite would otherwise carry into the bundle that `npm start` then serves.
  const callersNodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: webRoot,
      configFile: join(webRoot, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
    });
  } finally {
    if (callersNodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = callersNodeEnv;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureWebBuild();
}
