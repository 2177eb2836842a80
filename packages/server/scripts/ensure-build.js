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
 * build writes beside the bundle the files it read with the SHA-256 of their contents
 * (`dist/.inputs.json`), and a start rebuilds only when that hash differs. It reads and hashes
 * the files again only when one's size or modification time is not what the build saw: a start
 * from an unchanged checkout costs a few hundred stat calls. The files are the ones esbuild
 * actually read (no test, no unused module), plus the build's own settings; a file the bundle did
 * not contain can only change it through a file it did contain, which then imports it.
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
import { readInput, repo } from './inputs.js';

const serverRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(serverRoot, 'dist');
const stampFile = path.join(dist, '.inputs.json');

/** Where `tessera` runs from: the bundle of `src/cli/main.ts`. */
export const bundleFile = path.join(dist, 'main.js');

/**
 * What the bundle depends on besides the sources esbuild reads: the build (these scripts), the
 * lockfile (a dependency upgrade), the manifests and the TypeScript settings esbuild reads.
 * Paths relative to the repository, with `/`.
 */
const settingsFiles = [
  'packages/server/scripts/ensure-build.js',
  'packages/server/scripts/bundle.js',
  'packages/server/scripts/inputs.js',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
  'packages/server/package.json',
  'packages/semantic/package.json',
  'packages/dashboard/package.json',
];

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

/**
 * Whether `dist/main.js` was built from the files as they are now: at once when every size and
 * modification time is the one the build saw (a start checks this every time), else by the
 * contents, so that a touch, a checkout or a copy that changed nothing does not rebuild.
 */
export function serverBuildIsCurrent() {
  if (!existsSync(bundleFile) || !existsSync(stampFile)) return false;
  /** @type {{ hash: string, files?: Record<string, [number, number]> }} */
  const built = JSON.parse(readFileSync(stampFile, 'utf8'));
  if (!built.files) return false;
  const files = Object.entries(built.files);
  const unchanged = files.every(([name, [size, mtimeMs]]) => {
    const stat = statSync(path.join(repo, name), { throwIfNoEntry: false });
    return stat ? stat.size === size && stat.mtimeMs === mtimeMs : size === -1;
  });
  if (unchanged) return true;
  return inputsHash(new Map(files.map(([name]) => [name, readInput(name).content]))) === built.hash;
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
  // The hash is of the contents the build read, and the times are from before it read them, not
  // of the files after it: an edit made while the build runs leaves a stale stamp, so the next
  // start builds again.
  /** @type {Map<string, import('./inputs.js').Input>} */
  const inputs = new Map(settingsFiles.map((name) => [name, readInput(name)]));
  const { outputFiles, sources } = await bundle(serverRoot);
  for (const [name, input] of sources) inputs.set(name, input);
  mkdirSync(dist, { recursive: true });
  // Each file written beside its place and renamed into it, source maps first, main.js after
  // its chunks, the stamp last: a process starting meanwhile (tests start several) runs the old
  // build or the new one, never a stamp vouching for a half-written bundle.
  const order = (/** @type {string} */ file) => (file.endsWith('.map') ? 0 : file === bundleFile ? 2 : 1);
  for (const output of [...outputFiles].sort((a, b) => order(a.path) - order(b.path))) {
    replace(output.path, output.contents);
  }
  const names = [...inputs.keys()].sort();
  const stamp = {
    hash: inputsHash(new Map(names.map((name) => [name, inputs.get(name)?.content ?? null]))),
    files: Object.fromEntries(names.map((name) => [name, inputs.get(name)?.stat])),
  };
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
