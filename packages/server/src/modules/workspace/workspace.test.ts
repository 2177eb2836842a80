import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from './test-client.ts';

describe('GET /workspace and /shared-workspace', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, await newDeployment(server));
  });
  afterAll(() => server?.close());

  it('lists one level of the tree, folders first, with cursors and folder paths', async () => {
    const top = await api.folder('Top');
    await api.folder('Zed');
    await api.workbook('Alpha book');
    await api.report({ name: 'Beta report' });
    const inner = await api.workbook('Inner book', top.id);
    const root = await api.ok('GET', '/workspace?first=2');
    expect(root.items.map((i: { type: string }) => i.type)).toEqual(['FOLDER', 'FOLDER']);
    const rest = await api.ok('GET', `/workspace?first=10&after=${root.pageInfo.endCursor}`);
    expect(rest.items.map((i: { name: string }) => i.name)).toEqual(['Alpha book', 'Beta report']);
    const level = await api.ok('GET', `/workspace?folderId=${top.id}`);
    expect(level.items).toEqual([
      expect.objectContaining({ id: inner.id, type: 'WORKBOOK', folderPath: [{ id: top.id, name: 'Top' }] }),
    ]);
    const onlyReports = await api.ok('GET', '/workspace?types=REPORT');
    expect(onlyReports.items.map((i: { type: string }) => i.type)).toEqual(['REPORT']);
    const search = await api.ok('GET', '/workspace?search=inner');
    expect(search.items.map((i: { id: number }) => i.id)).toEqual([inner.id]);
    expect((await api.call('GET', '/workspace?folderId=999999')).status).toBe(404);
    expect((await api.call('GET', '/workspace?types=DASHBOARD')).status).toBe(400);
  });

  it('shows in the shared workspace what others share with the caller, owners blanked', async () => {
    const dev = await userWithKey(server, 'developer');
    const shared = await api.workbook('Shared with dev');
    await api.workbook('Not shared');
    await api.grant({ type: 'WORKBOOK', id: shared.id, userId: dev.user.id, level: 'view' });
    const own = await api.workbook('Dev own', null, dev.key);
    const list = await api.ok('GET', '/shared-workspace', undefined, dev.key);
    expect(list.items.map((i: { id: number }) => i.id)).toEqual([shared.id]);
    expect(list.items[0]).toMatchObject({ user: null, userId: null });
    const workspace = await api.ok('GET', '/workspace', undefined, dev.key);
    expect(workspace.items.map((i: { id: number }) => i.id).sort()).toEqual([shared.id, own.id].sort());
  });
});
