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
      valid: true,
      errors: [],
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

  it('refuses an invalid file on main with 400 naming file and line, and changes nothing', async () => {
    const before = (await call('GET', '/data-model/files?withContent=true')).json().items;
    const res = await call('PUT', '/data-model/files', {
      files: [
        { path: 'model/ok.yml', content: 'cubes:\n  - name: ok\n    sql_table: orders\n' },
        {
          path: 'model/typo.yml',
          content:
            'cubes:\n  - name: typo\n    sql_table: orders\n    measures:\n      - name: n\n        type: cuont\n',
        },
      ],
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.errors.length).toBeGreaterThan(0);
    for (const e of body.errors)
      expect(e).toEqual({
        field: 'body/files/1/content',
        message: expect.stringMatching(/^model\/typo\.yml:5: typo\.n: /),
      });
    expect(body.detail).toContain('model/typo.yml:');
    expect((await call('GET', '/data-model/files?withContent=true')).json().items).toEqual(before);
    // YAML that does not parse is refused the same way, with its line.
    const broken = await call('PUT', '/data-model/files', {
      files: [{ path: 'model/broken.yml', content: 'cubes:\n  - name: x\n    sql_table: [\n' }],
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors[0].message).toMatch(/^model\/broken\.yml:\d+: /);
  });

  it('stores an invalid file on a development branch with its errors, and promotes it only once valid', async () => {
    await call('POST', '/branches', { name: 'dev-promote' });
    const typo = {
      path: 'model/promoted.yml',
      content:
        'cubes:\n  - name: promoted\n    sql_table: orders\n    measures:\n      - name: n\n        type: cuont\n',
    };
    const stored = await call('PUT', '/data-model/files', { branchName: 'dev-promote', files: [typo] });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({
      success: true,
      valid: false,
      errors: expect.arrayContaining([
        { fileName: 'model/promoted.yml', line: 5, message: expect.stringContaining('promoted.n: ') },
      ]),
    });
    const refused = await call('POST', '/merge-to-default', { branchName: 'dev-promote', message: 'try' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].message).toMatch(/^model\/promoted\.yml:5: /);
    const mainFiles = async () =>
      (await call('GET', '/data-model/files')).json().items.map((f: { fileName: string }) => f.fileName);
    expect(await mainFiles()).not.toContain('model/promoted.yml');

    // What an editor shows as its user types: unsaved contents compiled, nothing stored.
    const fixedContent = typo.content.replace('cuont', 'count');
    const draft = await call('POST', '/data-model/validate', {
      branchName: 'dev-promote',
      files: [{ path: typo.path, content: fixedContent }],
    });
    expect(draft.json()).toMatchObject({ valid: true, errors: [] });
    expect((await call('GET', '/data-model/validate?branchName=dev-promote')).json().valid).toBe(false);

    await call('PUT', '/data-model/files', {
      branchName: 'dev-promote',
      files: [{ path: typo.path, content: fixedContent }],
    });
    const merged = await call('POST', '/merge-to-default', {
      branchName: 'dev-promote',
      message: 'promote',
      removeBranchAfterMerge: true,
    });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(merged.json()).toEqual({ merged: true, branchDeleted: true });
    expect(await mainFiles()).toContain('model/promoted.yml');
    expect((await call('GET', '/data-model/validate')).json().valid).toBe(true);
  });
});
