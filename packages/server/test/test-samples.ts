/**
 * The generated sample database (datasources/sample/generate.ts) made once per run and scale, not
 * once per server (issue 20): a server's first use generates it in its data directory, as in
 * production; when the server closes, that file is kept in the run's cache (global setup's
 * `sampleCacheDir`), and every later server of the same scale starts with a copy of it. The
 * generator is deterministic (seed and scale), so a copy has the rows a generation would have.
 */
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { sampleDatabaseFile } from '../src/datasources/registry.ts';
import { dataSettingsFromEnv } from '../src/modules/data/settings.ts';
import { countSetup } from './setup-counters.ts';

function cachedSampleFile(): string | null {
  const dir = inject('sampleCacheDir');
  return dir ? path.join(dir, `sample-${dataSettingsFromEnv().sampleScale}.duckdb`) : null;
}

/** Copies the cached sample of the current scale into a new server's data directory, if there is one. */
export function provideSample(dataDir: string): void {
  const cached = cachedSampleFile();
  if (cached && existsSync(cached)) copyFileSync(cached, sampleDatabaseFile(dataDir));
}

/** After a server closed: keeps the sample it generated, whole (no write-ahead log left). */
export function keepSample(dataDir: string, provided: boolean): void {
  const file = sampleDatabaseFile(dataDir);
  if (provided || !existsSync(file)) return;
  countSetup('samples');
  const cached = cachedSampleFile();
  if (!cached || existsSync(cached) || existsSync(`${file}.wal`)) return;
  // Renamed into place, so that a worker copying the cache never sees half a file.
  const partial = `${cached}.${process.pid}.partial`;
  copyFileSync(file, partial);
  renameSync(partial, cached);
}
