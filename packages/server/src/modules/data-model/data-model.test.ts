import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { cubesql } from '../data/cubesql/test-support.ts';
import { tokenFor } from '../data/test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** Model files per branch, validation with file and line, dev mode, and queries on a branch. */
describe('data model management', () => {
  let server: TestServer;
  let base: string;
  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url: `${base}${url}`,
      headers: bearer(server.adminKey),
      ...(payload ? { payload } : {}),
    });
  beforeAll(async () => {
    server = await startTestServer();
    base = `/build/api/v1/deployments/${server.demoDeploymentId}`;
  });
  afterAll(() => server?.close());

  it('lists, writes, renames and deletes files on a branch', async () => {
    const main = (await call('GET', '/data-model/files')).json();
    expect(main.items.map((f: { fileName: string }) => f.fileName)).toContain('model/orders.yml');
    const files = [
      {
        path: 'model/extra.yml',
        content:
          'cubes:\n  - name: extra\n    sql_table: orders\n    measures:\n      - name: count\n        type: count\n',
      },
    ];
    expect((await call('PUT', '/data-model/files', { branchName: 'feature', files })).json()).toEqual({
      success: true,
    });
    const listed = (await call('GET', '/data-model/files?branchName=feature&withContent=true')).json();
    expect(listed.items).toEqual([
      expect.objectContaining({ fileName: 'model/extra.yml', content: files[0].content }),
    ]);
    expect(
      (
        await call('POST', '/data-model/files/rename', {
          branchName: 'feature',
          files: [{ path: 'model/extra.yml', newPath: 'model/more.yml' }],
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await call('POST', '/data-model/files/rename', {
          branchName: 'feature',
          files: [{ path: 'model/nope.yml', newPath: 'model/x.yml' }],
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await call('DELETE', '/data-model/files', {
          branchName: 'feature',
          files: [{ path: 'model/more.yml' }],
        })
      ).statusCode,
    ).toBe(200);
    expect((await call('GET', '/data-model/files?branchName=feature')).json().items).toEqual([]);
  });

  it('validates and reports every error with its file and line', async () => {
    expect((await call('GET', '/data-model/validate')).json()).toMatchObject({
      valid: true,
      errors: [],
      mode: 'production',
    });
    const bad = [
      {
        path: 'model/a.yml',
        content:
          'cubes:\n  - name: a\n    sql_table: t\n    measures:\n      - name: n\n        type: bogus\n',
      },
      {
        path: 'model/b.yml',
        content:
          'cubes:\n  - name: b\n    dimensions:\n      - name: d\n        sql: d\n        type: string\n',
      },
    ];
    await call('PUT', '/data-model/files', { branchName: 'broken', files: bad });
    const result = (await call('GET', '/data-model/validate?branchName=broken')).json();
    expect(result.valid).toBe(false);
    expect(result.mode).toBe('dev_mode');
    const files = result.errors.map((e: { fileName: string }) => e.fileName);
    expect(files).toContain('model/a.yml');
    expect(files).toContain('model/b.yml');
    expect(result.errors.every((e: { line: number | null }) => typeof e.line === 'number')).toBe(true);
  });

  it('starts dev mode on a branch, lists it with the environments, and queries it', async () => {
    const started = (await call('POST', '/dev-mode', { branchName: 'dev-anna' })).json();
    expect(started).toEqual({ active: true, branchName: 'dev-anna', parentBranch: 'main' });
    const envs = await server.app.inject({
      url: `/api/v1/deployments/${server.demoDeploymentId}/environments`,
      headers: bearer(server.adminKey),
    });
    expect(JSON.stringify(envs.json())).toContain('dev-anna');
    const branches = (await call('GET', '/branches')).json().items.map((b: { name: string }) => b.name);
    expect(branches[0]).toBe('main');
    expect(branches).toContain('dev-anna');

    // a measure that exists only on the branch: the data API reads the branch's files
    await call('PUT', '/data-model/files', {
      branchName: 'dev-anna',
      files: [
        {
          path: 'model/branch_only.yml',
          content:
            'cubes:\n  - name: branch_only\n    sql_table: orders\n    measures:\n      - name: count\n        type: count\n',
        },
      ],
    });
    const token = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
    // The branch is a signed claim of a token minted for it, never a request header.
    const branchToken = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
      branch: 'dev-anna',
    });
    const onBranch = await cubesql(
      server,
      server.demoDeploymentId,
      branchToken,
      'SELECT MEASURE(count) FROM branch_only',
    );
    expect(onBranch.status, onBranch.error ?? '').toBe(200);
    expect(onBranch.rows).toEqual([['2000']]);
    const onMain = await cubesql(
      server,
      server.demoDeploymentId,
      token,
      'SELECT MEASURE(count) FROM branch_only',
    );
    expect(onMain.status).toBe(400);
    expect(onMain.error).toMatch(/branch_only is not a cube/);

    expect((await call('DELETE', '/dev-mode')).json()).toEqual({ success: true });
    expect((await call('DELETE', '/branches?branchName=dev-anna')).json()).toEqual({ success: true });
    expect((await call('DELETE', '/branches?branchName=main')).statusCode).toBe(409);
  });
});
