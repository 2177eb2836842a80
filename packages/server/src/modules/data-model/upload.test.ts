import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const cube = (name: string, measure = 'count') =>
  `cubes:\n  - name: ${name}\n    sql_table: orders\n    measures:\n      - name: ${measure}\n        type: count\n`;

/** The reference's Data Model Uploads group: file-hashes, upload start/file/finish. */
describe('data model uploads', () => {
  let server: TestServer;
  let base: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url: `${base}${url}`,
      headers: bearer(server.adminKey),
      ...(payload ? { payload } : {}),
    });
  const start = async (branch: string) => {
    const res = await call('POST', `/data-model/upload/start?branchName=${branch}`, {});
    expect(res.statusCode, res.body).toBe(200);
    return res.json().transaction.id as string;
  };
  const upload = (transaction: string, fileName: string, file: string) =>
    call('POST', '/data-model/upload/file', { transaction, fileName, file });
  beforeAll(async () => {
    server = await startTestServer();
    base = `/build/api/v1/deployments/${server.demoDeploymentId}`;
  });
  afterAll(() => server?.close());

  it('reports the SHA-256 of every file', async () => {
    const files = (await call('GET', '/data-model/files?withContent=true')).json().items;
    const hashes = (await call('GET', '/data-model/file-hashes')).json();
    expect(Object.keys(hashes).sort()).toEqual(files.map((f: { fileName: string }) => f.fileName).sort());
    for (const f of files) expect(hashes[f.fileName]).toEqual({ hash: sha(f.content) });
  });

  it('uploads changed files, prunes unlisted ones, and the compiled model follows', async () => {
    await server.app.inject({
      method: 'PUT',
      url: `${base}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: {
        branchName: 'up',
        files: [
          { path: 'model/keep.yml', content: cube('keep') },
          { path: 'model/old.yml', content: cube('old') },
        ],
      },
    });
    const before = (await call('GET', '/data-model/file-hashes?branchName=up')).json();
    const started = (await call('POST', '/data-model/upload/start?branchName=up', {})).json();
    expect(started).toEqual({ transaction: { id: expect.any(String) }, deploymentName: 'Demo' });
    const tx = started.transaction.id;
    expect((await upload(tx, 'model/new.yml', cube('first'))).statusCode).toBe(200);
    // uploading a path again replaces it within the transaction
    expect((await upload(tx, 'model/new.yml', cube('fresh'))).json()).toEqual({ success: true });
    // nothing is visible before finish
    expect(Object.keys((await call('GET', '/data-model/file-hashes?branchName=up')).json())).toEqual([
      'model/keep.yml',
      'model/old.yml',
    ]);
    const finished = await call('POST', '/data-model/upload/finish', {
      transaction: { id: tx },
      files: { 'model/keep.yml': before['model/keep.yml'], 'model/new.yml': { hash: sha(cube('fresh')) } },
    });
    expect(finished.statusCode, finished.body).toBe(200);
    expect(finished.json().lastHash).toMatch(/^[0-9a-f]{64}$/);
    const after = (await call('GET', '/data-model/file-hashes?branchName=up')).json();
    expect(after).toEqual({
      'model/keep.yml': before['model/keep.yml'],
      'model/new.yml': { hash: sha(cube('fresh')) },
    });
    const validated = (await call('GET', '/data-model/validate?branchName=up')).json();
    expect(validated).toMatchObject({ valid: true, cubesCount: 2 });

    // finishing again is refused; so is a file into a finished transaction
    expect(
      (await call('POST', '/data-model/upload/finish', { transaction: { id: tx }, files: {} })).statusCode,
    ).toBe(409);
    expect((await upload(tx, 'model/late.yml', cube('late'))).statusCode).toBe(409);
  });

  it('refuses a finish that lists a file neither uploaded nor stored, and writes nothing', async () => {
    const tx = await start('gap');
    await upload(tx, 'model/a.yml', cube('a'));
    const res = await call('POST', '/data-model/upload/finish', {
      transaction: { id: tx },
      files: { 'model/a.yml': { hash: sha(cube('a')) }, 'model/missing.yml': { hash: 'abc' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'body/files/model/missing.yml', message: expect.any(String) },
    ]);
    expect((await call('GET', '/data-model/file-hashes?branchName=gap')).json()).toEqual({});
    const unknown = await call('POST', '/data-model/upload/finish', {
      transaction: { id: 'nope' },
      files: {},
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('applies a transaction once when it is finished twice in parallel', async () => {
    const tx = await start('race');
    await upload(tx, 'model/r.yml', cube('r'));
    const body = { transaction: { id: tx }, files: { 'model/r.yml': { hash: sha(cube('r')) } } };
    const results = await Promise.all([1, 2, 3].map(() => call('POST', '/data-model/upload/finish', body)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
    expect((await call('GET', '/data-model/file-hashes?branchName=race')).json()).toEqual({
      'model/r.yml': { hash: sha(cube('r')) },
    });
  });

  it('keeps files a finish does not list when autoRemoveFiles is false, and a /v1/load sees the upload', async () => {
    const tx = await start('main');
    await upload(tx, 'model/uploaded.yml', cube('uploaded', 'total'));
    const res = await call('POST', '/data-model/upload/finish', {
      transaction: { id: tx },
      files: {},
      autoRemoveFiles: false,
    });
    expect(res.statusCode, res.body).toBe(200);
    const hashes = (await call('GET', '/data-model/file-hashes')).json();
    expect(hashes).toHaveProperty(['model/orders.yml']);
    const token = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/token`,
      headers: bearer(server.adminKey),
      payload: { securityContext: { serviceCloud: { groups: ['admin'] } } },
    });
    const load = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token.json().serviceApiToken },
      payload: { query: { measures: ['uploaded.total'] } },
    });
    expect(load.statusCode, load.body).toBe(200);
    expect(load.json().data).toEqual([{ 'uploaded.total': expect.anything() }]);
  });
});
