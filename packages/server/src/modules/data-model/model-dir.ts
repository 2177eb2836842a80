import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compileModelAsync, formatModelError } from '@tessera/semantic';
import type { Db } from '../../db/database.ts';
import { DataModelRepository } from './repository.ts';
import { MAIN_BRANCH } from './service.ts';

export interface ModelDirFile {
  path: string;
  content: string;
}

/** Every model file (`*.yml`, `*.yaml`, `*.js`, `*.jinja`) under `dir`, recursively, with `/`-separated paths relative to it. */
export function readModelDir(dir: string): ModelDirFile[] {
  const out: ModelDirFile[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ya?ml|js|jinja)$/i.test(entry.name)) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.push({
      path: path.relative(dir, full).split(path.sep).join('/'),
      content: readFileSync(full, 'utf8'),
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

export interface SyncResult {
  written: string[];
  removed: string[];
  /** Compile errors of the synced model, formatted with file and line. */
  errors: string[];
}

/**
 * Makes the deployment's `main` files equal to the directory's, in one transaction (DESIGN.md
 * "Persistence"). Unchanged files are not touched, so a sync without changes writes nothing and
 * the `model_files` trigger (migration 0004) fires only when the model really changed.
 */
export async function syncModelDir(db: Db, deploymentId: number, dir: string): Promise<SyncResult> {
  const wanted = readModelDir(dir);
  const { written, removed } = await db.transaction().execute(async (tx) => {
    const files = new DataModelRepository(tx);
    const current = new Map((await files.files(deploymentId, MAIN_BRANCH)).map((f) => [f.path, f.content]));
    const changed = wanted.filter((f) => current.get(f.path) !== f.content);
    const keep = new Set(wanted.map((f) => f.path));
    const gone = [...current.keys()].filter((p) => !keep.has(p));
    if (gone.length > 0) await files.remove(deploymentId, MAIN_BRANCH, gone);
    if (changed.length > 0) await files.upsert(deploymentId, MAIN_BRANCH, changed);
    return { written: changed.map((f) => f.path), removed: gone };
  });
  return { written, removed, errors: (await compileModelAsync(wanted)).errors.map(formatModelError) };
}
