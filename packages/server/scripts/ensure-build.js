/**
 * Builds the server when its bundle is missing or was built from other inputs, so that a start
 * runs compiled JavaScript rather than transpiling TypeScript every time (issue 20, item 6), with
 * the README's two commands (`npm ci`, `npm start`) and no third. `bin/tessera.js` calls it
 * before every command; the CLI test and bench/start call it before spawning processes.
 *
 * Plain JavaScript because it runs first, on every start, before anything is compiled: a
 * TypeScript loader here would cost the start what the bundle saves.
 *
 * As for the web bundle (packages/web/scripts/ensure-build.ts), content decides, not times: the
 * build writes beside the bundle the files it read and the SHA-256 of their contents
 * (`dist/.inputs.json`), and a start hashes those files again, rebuilding only when the hash
 * differs. The files are the ones esbuild actually read (no test, no unused module), plus the
 * build's own settings; a file the bundle did not contain can only change it through a file it
 * did contain, which then imports it.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serverRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.join(serverRoot, '..', '..');
const dist = path.join(serverRoot, 'dist');
const stampFile = path.join(dist, '.inputs.json');

/** Where `tessera` runs from: the bundle of `src/cli/main.ts`. */
export const bundleFile = path.join(dist, 'main.js');

/**
 * What the bundle depends on besides the sources esbuild reads: the build (this file and
 * bundle.js), the lockfile (a dependency upgrade), the manifests and the TypeScript settings
 * esbuild reads. Paths relative to the repository, with `/`.
 */
const settingsFiles = [
  'packages/server/scripts/ensure-build.js',
  'packages/server/scripts/bundle.js',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'packages/server/package.json',
  'packages/semantic/package.json',
];

/**
 * Each file as it is now, by path relative to the repository; null when missing.
 * @param {string[]} files
 * @returns {Map<string, Uint8Array | null>}
 */
function readInputs(files) {
  const file = (/** @type {string} */ name) => path.join(repo, name);
  return new Map(files.map((name) => [name, existsSync(file(name)) ? readFileSync(file(name)) : null]));
}

/**
 * The SHA-256 of each file's path and content, in path order.
 * @param {Map<string, Uint8Array | null>} contents
 */
function inputsHash(contents) {
  const hash = createHash('sha256');
  for (const name of [...contents.keys()].sort()) {
    hash
      .update(name)
      .update('\0')
      .update(contents.get(name) ?? '\0missing')
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether `dist/main.js` was built from the files as they are now. */
export function serverBuildIsCurrent() {
  if (!existsSync(bundleFile) || !existsSync(stampFile)) return false;
  /** @type {{ hash: string, inputs: string[] }} */
  const built = JSON.parse(readFileSync(stampFile, 'utf8'));
  return inputsHash(readInputs(built.inputs)) === built.hash;
}

/**
 * Builds when needed; answers whether it built.
 * @param {(line: string) => void} [log]
 */
export async function ensureServerBuild(log = console.log) {
  if (serverBuildIsCurrent()) return false;
  log('Building the server (packages/server), once after install or an edit...');
  await buildServer();
  return true;
}

/** Bundles `src/cli/main.ts` into `dist/` (bundle.js), then writes the stamp. */
export async function buildServer() {
  const { bundle } = await import('./bundle.js');
  // The hash is of the contents the build read, not of the files after it: an edit made while
  // the build runs leaves a stale hash, so the next start builds again.
  const inputs = readInputs(settingsFiles);
  const { outputFiles, sources } = await bundle(serverRoot);
  for (const [name, content] of sources) inputs.set(name, content);
  mkdirSync(dist, { recursive: true });
  // Each file written beside its place and renamed into it, source maps first, main.js after
  // its chunks, the stamp last: a process starting meanwhile (tests start several) runs the old
  // build or the new one, never a stamp vouching for a half-written bundle.
  const order = (/** @type {string} */ file) => (file.endsWith('.map') ? 0 : file === bundleFile ? 2 : 1);
  for (const output of [...outputFiles].sort((a, b) => order(a.path) - order(b.path))) {
    replace(output.path, output.contents);
  }
  const stamp = { hash: inputsHash(inputs), inputs: [...inputs.keys()].sort() };
  replace(stampFile, `${JSON.stringify(stamp, null, 1)}\n`);
  pruneOldChunks(new Set([...outputFiles.map((o) => o.path), stampFile]));
}

/**
 * Chunks are named by their content, so a build never overwrites one that a running server may
 * still load (the renderer, on first use); those of earlier builds go once a week old, so that
 * dist/ does not grow with every edit.
 * @param {Set<string>} current
 */
function pruneOldChunks(current) {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  for (const name of readdirSync(dist)) {
    const file = path.join(dist, name);
    if (!current.has(file) && statSync(file).mtimeMs < weekAgo) rmSync(file, { force: true });
  }
}

/**
 * @param {string} file
 * @param {string | Uint8Array} content
 */
function replace(file, content) {
  const part = `${file}.${process.pid}.part`;
  writeFileSync(part, content);
  renameSync(part, file);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await ensureServerBuild();
}
