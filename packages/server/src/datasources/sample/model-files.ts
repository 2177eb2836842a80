import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelFile } from '@tessera/semantic';

const dir = path.join(import.meta.dirname, 'model');

/** The demo deployment's data model, stored into `model_files` (branch main) by the seed. */
export function sampleModelFiles(): ModelFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => ({ path: `model/${f}`, content: readFileSync(path.join(dir, f), 'utf8') }));
}
