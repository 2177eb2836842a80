import type { ExecutorSettings } from './executor.ts';

/** Data-API knobs; read from the environment once per app, and adjustable per app in tests. */
export interface DataSettings extends ExecutorSettings {
  /** Result freshness for cubes without `refresh_key.every` (TESSERA_REFRESH_INTERVAL_MS). */
  defaultRefreshMs: number;
  /** Rows scale of the generated sample database (TESSERA_SAMPLE_SCALE; 1 = 1M orders). */
  sampleScale: number;
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new Error(`Configuration error: ${name} must be a positive number`);
  return n;
}

export function dataSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): DataSettings {
  return {
    // Cube's defaults: 5 s long-polling interval ("Continue wait"), queries cancelled after 120 s.
    continueWaitMs: positive('TESSERA_CONTINUE_WAIT_MS', env.TESSERA_CONTINUE_WAIT_MS, 5_000),
    queryTimeoutMs: positive('TESSERA_QUERY_TIMEOUT_MS', env.TESSERA_QUERY_TIMEOUT_MS, 120_000),
    defaultRefreshMs: positive('TESSERA_REFRESH_INTERVAL_MS', env.TESSERA_REFRESH_INTERVAL_MS, 10_000),
    sampleScale: positive('TESSERA_SAMPLE_SCALE', env.TESSERA_SAMPLE_SCALE, 1),
  };
}
