import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

describe('workbooks (spec 2.1 and 4.5)', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, await newDeployment(server));
  });
  afterAll(() => server?.close());

  it('creates, reads, updates and deletes a workbook with the spec 2.1 fields', async () => {
    const folder = await api.folder('Home');
    const created = await api.ok('POST', '/workbooks', {
      name: 'Revenue',
      folderId: folder.id,
      meta: { color: 'blue' },
    });
    expect(created).toMatchObject({
      name: 'Revenue',
      type: 'WORKBOOK',
      folderId: folder.id,
      meta: { color: 'blue' },
      calculatedFields: {},
      dashboardDraft: null,
      dashboardPublished: null,
      publishedDashboard: null,
      userId: server.adminUserId,
      createdBy: server.adminUserId,
      folderPath: [{ id: folder.id, name: 'Home' }],
    });
    expect(created.user).toMatchObject({ id: server.adminUserId });
    expect(typeof created.user.email).toBe('string');
    const updated = await api.ok('PUT', `/workbooks/${created.id}`, {
      name: 'Revenue 2',
      slug: 'revenue',
      folderId: null,
    });
    expect(updated).toMatchObject({ name: 'Revenue 2', slug: 'revenue', folderId: null });
    expect((await api.ok('GET', `/workbooks/${created.id}`)).name).toBe('Revenue 2');
    expect(await api.ok('DELETE', `/workbooks/${created.id}`)).toEqual({ success: true });
    expect((await api.call('GET', `/workbooks/${created.id}`)).status).toBe(404);
    expect((await api.call('PUT', '/workbooks/1', { folderId: 999999 })).status).toBeGreaterThanOrEqual(400);
  });

  it('lists with first/after and folderId (0 = root), and keeps the deprecated data and count', async () => {
    const folder = await api.folder('Listed');
    for (let i = 0; i < 3; i++) await api.workbook(`in ${i}`, folder.id);
    const page = await api.ok('GET', `/workbooks?folderId=${folder.id}&first=2`);
    expect(page.items).toHaveLength(2);
    expect(page.data).toEqual(page.items);
    expect(page.count).toBe(3);
    const next = await api.ok(
      'GET',
      `/workbooks?folderId=${folder.id}&first=2&after=${page.pageInfo.endCursor}`,
    );
    expect(next.items).toHaveLength(1);
    expect(next.pageInfo.hasNextPage).toBe(false);
    const root = await api.ok('GET', '/workbooks?folderId=0&first=100');
    expect(root.items.every((w: { folderId: number | null }) => w.folderId === null)).toBe(true);
    expect((await api.call('GET', '/workbooks?first=0')).status).toBe(400);
    expect((await api.call('GET', '/workbooks?folderId=-1')).status).toBe(400);
  });

  it('duplicates a workbook with its reports, re-pointed widgets and published dashboard', async () => {
    const folder = await api.folder('Dup');
    const wb = await api.workbook('Original', folder.id);
    const report = await api.report({
      name: 'Sales',
      workbookId: wb.id,
      folderId: folder.id,
      sqlQuery: 'SELECT 1',
    });
    const config = {
      title: 'Board',
      widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 4, h: 3 }, config: { reportId: report.id } }],
    };
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft: config });
    await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, allowEmbed: true });
    const copy = await api.ok('POST', `/workbooks/${wb.id}/duplicate`, {});
    expect(copy).toMatchObject({ name: 'Copy of Original', folderId: folder.id });
    const copiedReportId = copy.dashboardDraft.widgets[0].config.reportId;
    expect(copiedReportId).not.toBe(report.id);
    expect((await api.ok('GET', `/reports/${copiedReportId}`)).workbookId).toBe(copy.id);
    expect(copy.publishedDashboard).toMatchObject({
      allowEmbed: false,
      versionNumber: 1,
      fromSharedWorkspace: false,
    });
    expect(copy.publishedDashboard.publicId).not.toBe(
      (await api.ok('GET', `/workbooks/${wb.id}`)).publishedDashboard.publicId,
    );
    expect(copy.publishedDashboard.reportSnapshots[0].reportId).toBe(copiedReportId);
  });

  it('clones from the shared workspace only when published, at the root, from the snapshots', async () => {
    const dev = await userWithKey(server, 'developer');
    const folder = await api.folder('Shared src');
    const wb = await api.workbook('Shared board', folder.id);
    await api.grant({ type: 'WORKBOOK', id: wb.id, userId: dev.user.id, level: 'view' });
    const unpublished = await api.call('POST', `/workbooks/${wb.id}/duplicate`, { shared: true }, dev.key);
    expect(unpublished.status).toBe(400);
    const report = await api.report({ name: 'Live', sqlQuery: 'SELECT 1', workbookId: wb.id });
    await api.grant({ type: 'REPORT', id: report.id, userId: dev.user.id, level: 'view' });
    await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        widgets: [{ id: 'a', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.id } }],
      },
    });
    await api.ok('PUT', `/reports/${report.id}`, { sqlQuery: 'SELECT 2' });
    const clone = await api.ok('POST', `/workbooks/${wb.id}/duplicate`, { shared: true }, dev.key);
    expect(clone).toMatchObject({ folderId: null, userId: dev.user.id });
    expect(clone.publishedDashboard.fromSharedWorkspace).toBe(true);
    const cloned = await api.ok(
      'GET',
      `/reports/${clone.dashboardDraft.widgets[0].config.reportId}`,
      undefined,
      dev.key,
    );
    expect(cloned.sqlQuery).toBe('SELECT 1');
    const mine = await api.ok('GET', '/workbooks?first=100', undefined, dev.key);
    expect(mine.items.map((w: { id: number }) => w.id)).toEqual(expect.arrayContaining([wb.id, clone.id]));
    expect((await api.call('POST', '/workbooks/999999/duplicate', {})).status).toBe(404);
    // The body is optional (spec 4: optional DuplicateWorkbookInput).
    expect((await api.call('POST', `/workbooks/${wb.id}/duplicate`)).status).toBe(200);
  });
});
