import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { logSync } from './model-dir-watcher.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const cube = (name: string, measures: string[]) =>
  `cubes:\n  - name: ${name}\n    sql_table: orders\n    measures:\n${measures
    .map((m) => `      - name: ${m}\n        type: count\n`)
    .join('')}`;

/** TESSERA_MODEL_DIR: the demo deployment's main branch from a directory, reloaded on change. */
describe('model directory', () => {
  let server: TestServer;
  let dir: string;
  let token: string;
  const meta = async () => {
    const res = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta`,
      headers: { authorization: token },
    });
    return res.json() as { cubes?: { name: string; measures: { name: string }[] }[] };
  };
  const measures = async () =>
    ((await meta()).cubes ?? []).flatMap((c) => c.measures.map((m) => m.name)).sort();
  async function eventually(check: () => Promise<void>, ms = 5_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        return await check();
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-model-'));
    mkdirSync(path.join(dir, 'cubes'));
    writeFileSync(path.join(dir, 'cubes', 'orders.yml'), cube('orders', ['count']));
    writeFileSync(path.join(dir, 'README.md'), 'not a model file');
    server = await startTestServer({ modelDir: dir, env: 'development' });
    token = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the directory into main at start, paths relative to it', async () => {
    const files = await server.app.inject({
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
    });
    expect(files.json().items.map((f: { fileName: string }) => f.fileName)).toEqual(['cubes/orders.yml']);
    expect(await measures()).toEqual(['orders.count']);
  });

  it('reloads changed, added and removed files in development', async () => {
    writeFileSync(path.join(dir, 'cubes', 'orders.yml'), cube('orders', ['count', 'again']));
    await eventually(async () => expect(await measures()).toEqual(['orders.again', 'orders.count']));

    mkdirSync(path.join(dir, 'cubes', 'more'));
    writeFileSync(path.join(dir, 'cubes', 'more', 'extra.yaml'), cube('extra', ['n']));
    await eventually(async () => expect(await measures()).toContain('extra.n'));

    unlinkSync(path.join(dir, 'cubes', 'more', 'extra.yaml'));
    await eventually(async () => expect(await measures()).not.toContain('extra.n'));
  });

  it('keeps serving the files as written when they do not compile, and validate names file and line', async () => {
    writeFileSync(
      path.join(dir, 'cubes', 'broken.yml'),
      'cubes:\n  - name: broken\n    measures:\n      - name: x\n        type: bogus\n',
    );
    const validate = () =>
      server.app.inject({
        url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/validate`,
        headers: bearer(server.adminKey),
      });
    await eventually(async () => expect((await validate()).json().valid).toBe(false));
    const errors = (await validate()).json().errors;
    expect(errors[0]).toMatchObject({ fileName: 'cubes/broken.yml', line: expect.any(Number) });
    unlinkSync(path.join(dir, 'cubes', 'broken.yml'));
    await eventually(async () => expect((await validate()).json().valid).toBe(true));
  });

  it('logs each reload and every compile error with file and line', () => {
    const lines: string[] = [];
    const log = {
      info: (_o: unknown, m: string) => lines.push(`info ${m}`),
      warn: (_o: unknown, m: string) => lines.push(`warn ${m}`),
    } as never;
    logSync(log, dir, { written: [], removed: [], errors: [] });
    expect(lines).toEqual([]);
    logSync(log, dir, { written: ['a.yml'], removed: [], errors: ['a.yml:5 (a.x): bad type'] });
    expect(lines).toEqual([
      'info model directory reloaded',
      'warn model compile error: a.yml:5 (a.x): bad type',
    ]);
  });
});
