import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Creates a PGlite data directory that does not exist yet (PostgreSQL's initdb) in a child process,
 * so that the server then opens it as it opens one on every later start. initdb peaks near 800 MiB
 * and leaves about 100 MiB of freed memory that the C allocator keeps: in the server's own process
 * a first start idled at 370 MiB, 100 MiB above a second one (issue 20, item 6).
 * The child creates the directory exactly as PGlite.create would, with the same start parameters.
 */
export async function initPgliteDir(dir: string, startParams: readonly string[]): Promise<void> {
  if (existsSync(path.join(dir, 'PG_VERSION'))) return;
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const script = [
    `const { PGlite } = await import(${JSON.stringify(pglite)});`,
    `const db = await PGlite.create(${JSON.stringify(dir)}, { startParams: ${JSON.stringify(startParams)} });`,
    'await db.close();',
  ].join('\n');
  await run(process.execPath, ['--input-type=module', '-e', script]);
}
