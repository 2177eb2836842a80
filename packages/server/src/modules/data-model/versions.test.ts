import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

const cube = (name: string) =>
  `cubes:\n  - name: ${name}\n    sql_table: main.orders\n    measures:\n      - name: count\n        type: count\n`;

interface Version {
  version: string;
  isCurrent: boolean;
  isLatestInChannel: boolean;
  action: string;
  fromBranch: string | null;
  files: string[];
  filesHash: string;
  createdAt: string;
  createdBy: { id: number; email: string } | null;
}

/** Issue 25 item 1: `GET .../versions`, each change of the default branch as a version with who and when. */
describe('model versions of a deployment', () => {
  let server: TestServer;
  let id: number;
  let dm: string;
  beforeAll(async () => {
    server = await startTestServer();
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'versions' },
    });
    id = res.json().id;
    dm = `/build/api/v1/deployments/${id}`;
  });
  afterAll(() => server?.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, key = server.adminKey) =>
    server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const versions = async (query = '') => {
    const res = await call('GET', `/api/v1/deployments/${id}/versions${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { items: Version[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  };

  it('records writes and merges to main, by whom, and not development-branch writes', async () => {
    expect((await versions()).items).toEqual([]);
    const developer = await userWithKey(server, 'developer');
    const write = await call(
      'PUT',
      `${dm}/data-model/files`,
      { files: [{ path: 'model/a.yml', content: cube('a') }] },
      developer.key,
    );
    expect(write.statusCode, write.body).toBe(200);
    let { items } = await versions();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      version: 'v1',
      isCurrent: true,
      isLatestInChannel: true,
      action: 'data_model.write_files',
      files: ['model/a.yml'],
      createdBy: { id: developer.user.id, email: developer.user.email },
    });

    // The same file again changes nothing: no new version.
    await call('PUT', `${dm}/data-model/files`, { files: [{ path: 'model/a.yml', content: cube('a') }] });
    expect((await versions()).items).toHaveLength(1);

    expect((await call('POST', `${dm}/branches`, { name: 'feature' })).statusCode).toBe(200);
    await call('PUT', `${dm}/data-model/files`, {
      branchName: 'feature',
      files: [{ path: 'model/b.yml', content: cube('b') }],
    });
    expect((await versions()).items).toHaveLength(1);
    const merged = await call('POST', `${dm}/merge-to-default`, { branchName: 'feature' });
    expect(merged.statusCode, merged.body).toBe(200);
    ({ items } = await versions());
    expect(items.map((v) => v.version)).toEqual(['v2', 'v1']);
    expect(items[0]).toMatchObject({
      action: 'data_model.merge_to_default',
      fromBranch: 'feature',
      files: ['model/a.yml', 'model/b.yml'],
      isCurrent: true,
      createdBy: { id: server.adminUserId },
    });
    expect(items[1]).toMatchObject({ isCurrent: false, isLatestInChannel: false });
    expect(items[0].filesHash).not.toBe(items[1].filesHash);
    expect(Date.parse(items[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(items[1].createdAt));
  });

  it('pages newest first, and refuses a bad page size naming the field', async () => {
    const first = await versions('?first=1');
    expect(first.items.map((v) => v.version)).toEqual(['v2']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await versions(`?first=1&after=${first.pageInfo.endCursor}`);
    expect(second.items.map((v) => v.version)).toEqual(['v1']);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const bad = await call('GET', `/api/v1/deployments/${id}/versions?first=0`);
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('querystring/first');
    const scoped = await server.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: bearer(server.adminKey),
      payload: { name: 'other', deploymentIds: [server.demoDeploymentId] },
    });
    const outside = await call('GET', `/api/v1/deployments/${id}/versions`, undefined, scoped.json().key);
    expect(outside.statusCode).toBe(403);
  });
});
