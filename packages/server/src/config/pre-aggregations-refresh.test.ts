import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const run = promisify(execFile);
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tessera.js');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** TESSERA_PRE_AGGREGATIONS_REFRESH_MS goes through the configuration like every other setting. */
describe('TESSERA_PRE_AGGREGATIONS_REFRESH_MS', () => {
  const refreshMs = (value?: string) =>
    loadConfig(value === undefined ? {} : { TESSERA_PRE_AGGREGATIONS_REFRESH_MS: value }).preAggregations
      .refreshMs;

  it('defaults to a minute, and 0 turns the background refresh off', () => {
    expect(refreshMs()).toBe(60_000);
    expect(refreshMs('')).toBe(60_000);
    expect(refreshMs('0')).toBe(0);
    expect(refreshMs('250')).toBe(250);
  });

  it('refuses a value that is not a whole number of milliseconds, naming the variable', () => {
    for (const bad of ['soon', '-1', '1.5', '1e3x'])
      expect(() => refreshMs(bad), bad).toThrow(
        `Configuration error: TESSERA_PRE_AGGREGATIONS_REFRESH_MS must be a non-negative integer, got "${bad}"`,
      );
  });

  // Loading the CLI compiles the whole server first: slow on a loaded machine.
  it('stops `tessera start` before it opens anything, with the error naming the variable', {
    timeout: 180_000,
  }, async () => {
    const { DATABASE_URL: _ignored, ...env } = process.env;
    const started = run(process.execPath, [bin, 'start'], {
      env: { ...env, TESSERA_DATA_DIR: dataDir, TESSERA_PRE_AGGREGATIONS_REFRESH_MS: 'soon' },
      timeout: 150_000,
    });
    const failure = await started.then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('TESSERA_PRE_AGGREGATIONS_REFRESH_MS must be a non-negative integer');
    expect(readdirSync(dataDir)).toEqual([]); // no store, secret or sample data written
  });
});
