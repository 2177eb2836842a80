/**
 * Builds the web app when its bundle is missing or older than its sources, so that the README's
 * two commands (`npm ci`, `npm start`) serve it on a fresh clone with no third command, and a
 * start after an edit serves the edit. Run by the root `prestart` script and the tests' setup.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const builtIndex = join(webRoot, 'dist', 'index.html');
/** What the bundle is made from: the app, its build settings and the client it bundles. */
const sources = [
  join(webRoot, 'src'),
  join(webRoot, 'index.html'),
  join(webRoot, 'vite.config.ts'),
  join(webRoot, 'package.json'),
  join(webRoot, '..', 'client', 'src'),
];

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (newest, name) => Math.max(newest, newestChange(join(path, name))),
    stat.mtimeMs,
  );
}

export async function ensureWebBuild(log: (line: string) => void = console.log): Promise<void> {
  const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
  if (builtAt > Math.max(...sources.map(newestChange))) return;
  log('Building the web app (packages/web), once after install or an edit...');
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
