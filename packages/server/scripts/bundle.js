/**
 * The server's esbuild bundle (issue 20, item 6): `src/cli/main.ts` and what it imports of ours
 * (`@tessera/semantic`, `@tessera/dashboard`, the client's `format/` files) as ESM for Node 20 in `dist/main.js`, with
 * a chunk per module loaded on first use; npm packages stay imports (but bundledPackages),
 * resolved at run time from `dist/` as they would be from `src/`. ensure-build.js decides when
 * to build; this file says how.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readInput } from './inputs.js';

/**
 * Code that finds files beside its source (`new URL('../web/dist', import.meta.url)`, fonts,
 * the sample model, the sandbox worker) reads `import.meta` of the bundle, one folder away
 * from any source file. Each module's `import.meta.url`, `.filename` and `.dirname` are therefore
 * rewritten to its source file's, found relative to the bundle: the same paths as from the
 * sources, wherever the checkout is, with nothing copied into `dist/`.
 */
const banner = [
  "import { dirname as __tesseraDirname } from 'node:path';",
  "import { fileURLToPath as __tesseraPath } from 'node:url';",
  'const __tesseraSource = (file) => new URL(file, import.meta.url);',
].join('\n');

/**
 * npm packages bundled rather than imported: pure ESM libraries of many small files (typebox
 * about 680, kysely about 290, jose about 60); bundling them cut the time to load the server's
 * modules by 40% (1.9 s to 1.1 s on a busy two-core machine; issue 20, item 6). Each comes with
 * the only other package that imports it (`npm ls typebox kysely jose`), so that the process
 * holds one copy of each: TypeBox keeps registries (formats), Kysely's and jose's classes are
 * checked with `instanceof`. Everything else stays in node_modules: CommonJS packages, native
 * addons and WebAssembly (PGlite, DuckDB, argon2, resvg, libpg-query), and packages that read
 * their own files (swagger-ui, fonts).
 */
const bundledPackages = new Set([
  'typebox',
  '@fastify/type-provider-typebox',
  'kysely',
  'kysely-pglite-dialect',
  'jose',
]);

/**
 * @param {string} dist
 * @param {string} file
 * @param {string} code
 */
function withSourceImportMeta(dist, file, code) {
  const source = JSON.stringify(path.relative(dist, file).split(path.sep).join('/'));
  return code.replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_, key) => {
    if (key === 'url') return `__tesseraSource(${source}).href`;
    if (key === 'filename') return `__tesseraPath(__tesseraSource(${source}))`;
    return `__tesseraDirname(__tesseraPath(__tesseraSource(${source})))`;
  });
}

/**
 * The directory of package `name` as Node finds it from `from` (the nearest `node_modules`).
 * @param {string} from
 * @param {string} name
 */
function packageDir(from, name) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    try {
      readFileSync(path.join(candidate, 'package.json'));
      return candidate;
    } catch {
      if (dir === path.dirname(dir)) return null;
    }
  }
}

/**
 * @param {string} serverRoot
 * @param {Map<string, import('./inputs.js').Input>} sources filled with each file of ours
 *   the build reads
 * @returns {import('esbuild').Plugin}
 */
function ours(serverRoot, sources) {
  const repo = path.join(serverRoot, '..', '..');
  const dist = path.join(serverRoot, 'dist');
  return {
    name: 'tessera-sources',
    setup(build) {
      // Our workspace packages are bundled, and bundledPackages; every other package stays an
      // import. A package that npm did not hoist (under a workspace's own node_modules) would
      // resolve to another copy, or to none, from dist/: refuse to build rather than run with it.
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@tessera/') || args.path.startsWith('node:')) return undefined;
        const name = args.path
          .split('/')
          .slice(0, args.path.startsWith('@') ? 2 : 1)
          .join('/');
        if (bundledPackages.has(name)) return undefined;
        const fromSource = packageDir(args.resolveDir, name);
        if (fromSource !== packageDir(dist, name)) {
          return {
            errors: [
              { text: `${name} resolves to ${fromSource} from ${args.importer}, elsewhere from dist/` },
            ],
          };
        }
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /\.(ts|js|json)$/ }, (args) => {
        // bundledPackages are esbuild's to load: the lockfile stands for their contents
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        const input = readInput(path.relative(repo, args.path).split(path.sep).join('/'));
        if (!input.content) return { errors: [{ text: `${args.path} disappeared during the build` }] };
        sources.set(path.relative(repo, args.path).split(path.sep).join('/'), input);
        const loader = /** @type {'ts' | 'js' | 'json'} */ (path.extname(args.path).slice(1));
        if (loader === 'json') return { contents: input.content, loader };
        const code = Buffer.from(input.content).toString('utf8');
        return { contents: withSourceImportMeta(dist, args.path, code), loader };
      });
    },
  };
}

/**
 * Builds in memory; the caller writes the files.
 * @param {string} serverRoot
 */
export async function bundle(serverRoot) {
  const { build, stop } = await import('esbuild');
  /** @type {Map<string, import('./inputs.js').Input>} */
  const sources = new Map();
  // esbuild's service process would otherwise live on beside the server (some 150 MiB).
  const result = await build({
    absWorkingDir: serverRoot,
    entryPoints: { main: 'src/cli/main.ts' },
    outdir: 'dist',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Modules the sources import with `import()` (the renderer) go into chunks of their own, with
    // their packages: in one file, every package import would be hoisted and loaded at start.
    splitting: true,
    // Stack traces name the TypeScript lines (bin/tessera.js turns source maps on); the sources
    // stay in the checkout, so the map need not carry them.
    sourcemap: 'linked',
    sourcesContent: false,
    banner: { js: banner },
    plugins: [ours(serverRoot, sources)],
    write: false,
    logLevel: 'warning',
  }).finally(() => stop());
  return { outputFiles: result.outputFiles, sources };
}
