import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServerBuild } from '../../scripts/ensure-build.js';
import { countSetup } from '../../test/setup-counters.ts';
import { generateApiKey } from '../auth/credentials.ts';

const run = promisify(execFile);
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tessera.js');
const work = mkdtempSync(path.join(os.tmpdir(), 'tessera-content-cli-'));
const dataDir = path.join(work, 'data');
const children: ChildProcessWithoutNullStreams[] = [];
/** As cli.test.ts: the margin of a very busy machine, not the expected time. */
const processLimitMs = 170_000;

function env(extra: Record<string, string> = {}) {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return { ...rest, TESSERA_DATA_DIR: dataDir, LOG_LEVEL: 'warn', TESSERA_SAMPLE_SCALE: '0.01', ...extra };
}

/** Runs `tessera ...args`; answers its exit code and output rather than throwing on a non-zero exit. */
async function tessera(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  countSetup('processes');
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: env(),
      timeout: processLimitMs,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Every file under a directory, by relative path, as bytes. */
function tree(dir: string, prefix = ''): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, tree(dir, relative));
    else out[relative] = readFileSync(path.join(dir, relative));
  }
  return out;
}

beforeAll(() => ensureServerBuild(() => undefined), 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

describe('tessera content export, plan and apply (issue 25 item 6)', () => {
  let demo = 0;
  let empty = 0;

  // The demo deployment as first start makes it (its dashboard with its reports), plus a folder, a
  // grant and a notification added over the API; then an empty deployment to apply it to.
  beforeAll(async () => {
    const key = generateApiKey().key;
    countSetup('processes');
    const child = spawn(process.execPath, [bin, 'start'], {
      env: env({ HOST: '127.0.0.1', PORT: '0', TESSERA_ADMIN_API_KEY: key }),
    });
    children.push(child);
    let output = '';
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), processLimitMs);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const printed = /Demo dashboard: +(http:\/\/127\.0\.0\.1:\d+)\/dashboards\/\d+\/\S+/.exec(output);
        if (printed) {
          clearTimeout(timer);
          resolve(printed[1]!);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    const [, demoId, boardId] = /Demo dashboard: +\S+\/dashboards\/(\d+)\/(\S+)/.exec(output)!;
    demo = Number(demoId);
    const api = async (method: string, url: string, body: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number };
    };
    const folder = await api('POST', `/api/v1/deployments/${demo}/folders`, { name: 'Operations' });
    const group = await api('POST', '/api/v1/groups', { name: 'Operators' });
    await api('PUT', `/api/v1/deployments/${demo}/permissions`, {
      type: 'FOLDER',
      id: folder.id,
      groupId: group.id,
      level: 'view',
    });
    await api('POST', `/api/v1/deployments/${demo}/notifications`, {
      scheduleType: 'DAILY',
      hour: 7,
      dashboardPublicId: boardId,
    });
    empty = (await api('POST', '/api/v1/deployments', { name: 'Staging' })).id;
    const stopped = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await stopped;
  }, 300_000);

  it('round-trips the demo deployment into an empty one byte for byte, and refuses a bad file naming it', {
    timeout: 900_000,
  }, async () => {
    const first = path.join(work, 'first');
    const exported = await tessera(['content', 'export', '--deployment', String(demo), '--out', first]);
    expect(exported.code, exported.stderr).toBe(0);
    const files = tree(first);
    const paths = Object.keys(files);
    expect(paths).toContain('workspace/operations/_folder.yaml');
    expect(paths.some((p) => p.startsWith('notifications/') && p.endsWith('.notification.yaml'))).toBe(true);
    expect(paths.filter((p) => p.endsWith('.report.yaml')).length).toBeGreaterThan(0);
    expect(exported.stdout).toContain(`Wrote ${paths.length} files to ${first}`);

    const planned = await tessera(['content', 'plan', '--deployment', String(empty), '--dir', first]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('+ create folder operations (workspace/operations/_folder.yaml)');
    expect(planned.stdout).toMatch(
      new RegExp(`Plan: ${paths.length} to create, 0 to change, 0 to delete\\.`),
    );

    // A malformed file: a non-zero exit naming the file and the field, and nothing applied.
    const bad = path.join(work, 'bad');
    for (const [file, bytes] of Object.entries(files)) {
      const target = path.join(bad, file);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, bytes);
    }
    const reportFile = paths.find((p) => p.endsWith('.report.yaml'))!;
    writeFileSync(
      path.join(bad, reportFile),
      files[reportFile]!.toString().replace(/^name: .*$/m, "name: ''"),
    );
    const refused = await tessera(['content', 'apply', '--deployment', String(empty), '--dir', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`files[${reportFile}]/name`);

    const applied = await tessera(['content', 'apply', '--deployment', String(empty), '--dir', first]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applied.');
    const second = path.join(work, 'second');
    expect((await tessera(['content', 'export', '--deployment', String(empty), '--out', second])).code).toBe(
      0,
    );
    const again = tree(second);
    expect(Object.keys(again)).toEqual(paths);
    for (const p of paths) expect(again[p]!.equals(files[p]!), p).toBe(true);

    const unchanged = await tessera([
      'content',
      'plan',
      '--deployment',
      String(empty),
      '--dir',
      second,
      '--json',
    ]);
    expect(JSON.parse(unchanged.stdout)).toEqual({
      changes: [],
      summary: { create: 0, update: 0, delete: 0 },
    });
  });
});
