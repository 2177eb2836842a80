import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, 'model');

/** The files of the built-in usage model: Cube-compatible YAML over the `usage_analytics` views. */
export interface UsageModelFile {
  path: string;
  content: string;
  updated_at: Date;
}

let files: UsageModelFile[] | undefined;

/** Read once: the model ships with the server and changes only with it. */
export function usageModelFiles(): UsageModelFile[] {
  files ??= readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => ({
      path: `model/${f}`,
      content: readFileSync(path.join(dir, f), 'utf8'),
      updated_at: new Date(0),
    }));
  return files;
}
