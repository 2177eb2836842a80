import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

describe('folders (spec 4.5)', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  let deploymentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
  });
  afterAll(() => server?.close());

  it('creates, renames, nests and lists folders with items/pageInfo and the deprecated data/count', async () => {
    const sales = await api.folder('Sales');
    expect(sales).toMatchObject({
      name: 'Sales',
      type: 'FOLDER',
      parentId: null,
      deploymentId,
      folderPath: [],
    });
    const q1 = await api.folder('Q1', sales.id);
    expect(q1.folderPath).toEqual([{ id: sales.id, name: 'Sales' }]);
    const renamed = await api.ok('PUT', `/folders/${q1.id}`, { name: 'Quarter 1', position: 3 });
    expect(renamed).toMatchObject({ name: 'Quarter 1', position: 3, parentId: sales.id });
    for (const n of ['A', 'B', 'C']) await api.folder(n);
    const first = await api.ok('GET', '/folders?first=2');
    expect(first.items).toHaveLength(2);
    expect(first.data).toEqual(first.items);
    expect(first.count).toBe(4);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const rest = await api.ok('GET', `/folders?first=10&after=${first.pageInfo.endCursor}`);
    expect(rest.items).toHaveLength(2);
    expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const names = [...first.items, ...rest.items].map((f: { name: string }) => f.name);
    expect(new Set(names)).toEqual(new Set(['Sales', 'A', 'B', 'C']));
    const children = await api.ok('GET', `/folders?parentId=${sales.id}`);
    expect(children.items.map((f: { id: number }) => f.id)).toEqual([q1.id]);
    const bad = await api.call('GET', '/folders?after=bm90LWEtY3Vyc29y');
    expect(bad.status).toBe(400);
  });

  it('returns ancestors from the root down to the folder itself', async () => {
    const a = await api.folder('Root A');
    const b = await api.folder('Mid B', a.id);
    const c = await api.folder('Leaf C', b.id);
    const chain = await api.ok('GET', `/folders/${c.id}/ancestors`);
    expect(chain.map((f: { name: string }) => f.name)).toEqual(['Root A', 'Mid B', 'Leaf C']);
    expect((await api.call('GET', '/folders/999999/ancestors')).status).toBe(404);
  });

  it('deletes with 204, refuses 400 while child folders remain, and detaches content to the root', async () => {
    const parent = await api.folder('Parent');
    const child = await api.folder('Child', parent.id);
    const wb = await api.workbook('Inside', parent.id);
    const report = await api.report({ name: 'Inside report', folderId: parent.id, sqlQuery: 'SELECT 1' });
    const refused = await api.call('DELETE', `/folders/${parent.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('folder_not_empty');
    expect((await api.call('DELETE', `/folders/${child.id}`)).status).toBe(204);
    const done = await api.call('DELETE', `/folders/${parent.id}`);
    expect(done.status).toBe(204);
    expect(done.raw.body).toBe('');
    expect((await api.ok('GET', `/workbooks/${wb.id}`)).folderId).toBeNull();
    expect((await api.ok('GET', `/reports/${report.id}`)).folderId).toBeNull();
    expect((await api.call('DELETE', `/folders/${parent.id}`)).status).toBe(404);
  });

  it('answers 404 for a folder of another deployment and 403 without manage access', async () => {
    const otherDeployment = await newDeployment(server, 'other');
    const foreign = await contentClient(server, otherDeployment).folder('Foreign');
    expect((await api.call('DELETE', `/folders/${foreign.id}`)).status).toBe(404);
    expect((await api.call('PUT', `/folders/${foreign.id}`, { name: 'x' })).status).toBe(404);
    const dev = await userWithKey(server, 'developer');
    const mine = await api.folder('Admin folder');
    await api.grant({ type: 'FOLDER', id: mine.id, userId: dev.user.id, level: 'edit' });
    const denied = await api.call('DELETE', `/folders/${mine.id}`, undefined, dev.key);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('content_access_denied');
    expect((await api.call('PUT', `/folders/${mine.id}`, { name: 'edited' }, dev.key)).status).toBe(200);
    expect((await api.call('POST', '/folders', { name: 'x', parentId: 999999 })).status).toBe(400);
  });

  it('caps nesting depth with a 400', async () => {
    let parent: number | null = null;
    for (let depth = 1; depth <= 10; depth++) parent = (await api.folder(`Level ${depth}`, parent)).id;
    const tooDeep = await api.call('POST', '/folders', { name: 'Level 11', parentId: parent });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.code).toBe('folder_too_deep');
  });
});
