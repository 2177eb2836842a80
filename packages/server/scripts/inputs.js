/**
 * A file the server's build reads, as ensure-build.js stamps it: by path relative to the
 * repository (with `/`), its content and, taken before reading it, its size and modification time.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * @typedef {{ content: Uint8Array | null, stat: [number, number] }} Input a file's content (null
 *   when missing) and its size and modification time, taken before reading it ([-1, 0] missing)
 */

/**
 * A file by path relative to the repository, as it is now.
 * @param {string} name
 * @returns {Input}
 */
export function readInput(name) {
  const file = path.join(repo, name);
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return { content: null, stat: [-1, 0] };
  return { content: readFileSync(file), stat: [stat.size, stat.mtimeMs] };
}
