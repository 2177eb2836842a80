import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

/**
 * Issue 23 items 1 and 2: the draft's version check (two editors of one draft are told of each
 * other instead of one silently overwriting the other) and the published versions' history, read
 * and restore.
 */
describe('dashboard drafts: version check, history and restore', () => {
  let server: TestServer;
  let deploymentId: number;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
  });
  afterAll(() => server?.close());

  const draft = (title: string) => ({
    title,
    widgets: [
      { id: 'note', position: { x: 0, y: 0, w: 4, h: 2 }, type: 'TEXT' as const, config: { text: title } },
    ],
  });

  it('refuses a save based on a stale version with 409 naming who saved it, and keeps their draft', async () => {
    const wb = await api.workbook('Checked');
    expect(wb.dashboardDraftVersion).toBe(0);
    const editor = await userWithKey(server, 'developer');
    await api.grant({ type: 'WORKBOOK', id: wb.id, userId: editor.user.id, level: 'edit' });

    const first = await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: draft('mine'),
      expectedDraftVersion: 0,
    });
    expect(first).toMatchObject({
      dashboardDraftVersion: 1,
      dashboardDraftSavedBy: { id: server.adminUserId },
    });

    const theirs = await api.ok(
      'PUT',
      `/workbooks/${wb.id}/dashboard`,
      { dashboardDraft: draft('theirs'), expectedDraftVersion: 1 },
      editor.key,
    );
    expect(theirs.dashboardDraftVersion).toBe(2);
    expect(theirs.dashboardDraftSavedBy).toMatchObject({ id: editor.user.id, email: editor.user.email });

    // The first editor saves again from version 1: refused, saying who saved since.
    const stale = await api.call('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: draft('mine again'),
      expectedDraftVersion: 1,
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('draft_version_conflict');
    expect(stale.body.detail).toContain(editor.user.email);
    expect(stale.body.detail).toContain('version 2');
    const read = await api.ok('GET', `/workbooks/${wb.id}`);
    expect(read.dashboardDraft.title).toBe('theirs');
    expect(read.dashboardDraftVersion).toBe(2);

    // The same check through If-Match; a save without either overwrites, as before the check.
    const viaHeader = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/deployments/${deploymentId}/workbooks/${wb.id}/dashboard`,
      headers: { ...bearer(server.adminKey), 'if-match': '"1"' },
      payload: { dashboardDraft: draft('header') },
    });
    expect(viaHeader.statusCode).toBe(409);
    const bad = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/deployments/${deploymentId}/workbooks/${wb.id}/dashboard`,
      headers: { ...bearer(server.adminKey), 'if-match': 'yesterday' },
      payload: { dashboardDraft: draft('header') },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'headers/if-match' })]);
    const okHeader = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/deployments/${deploymentId}/workbooks/${wb.id}/dashboard`,
      headers: { ...bearer(server.adminKey), 'if-match': 'W/"2"' },
      payload: { dashboardDraft: draft('header') },
    });
    expect(okHeader.statusCode).toBe(200);
    expect(okHeader.json().dashboardDraftVersion).toBe(3);
    const unchecked = await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: draft('legacy'),
    });
    expect(unchecked.dashboardDraftVersion).toBe(4);
    // Saving through the workbook update counts as a save too, so an editor's check sees it.
    await api.ok('PUT', `/workbooks/${wb.id}`, { dashboardDraft: draft('via workbook') });
    const stale2 = await api.call('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: draft('late'),
      expectedDraftVersion: 4,
    });
    expect(stale2.status).toBe(409);
  });

  it('lets exactly one of many concurrent saves from one version win', async () => {
    const wb = await api.workbook('Raced');
    const saves = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.call('PUT', `/workbooks/${wb.id}/dashboard`, {
          dashboardDraft: draft(`racer ${i}`),
          expectedDraftVersion: 0,
        }),
      ),
    );
    const won = saves.filter((s) => s.status === 200);
    expect(won).toHaveLength(1);
    expect(saves.filter((s) => s.status === 409)).toHaveLength(7);
    const read = await api.ok('GET', `/workbooks/${wb.id}`);
    expect(read.dashboardDraftVersion).toBe(1);
    expect(read.dashboardDraft.title).toBe(won[0].body.dashboardDraft.title);
  });

  it('lists published versions with who and when, opens one, and restores it as the draft', async () => {
    const wb = await api.workbook('History');
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft: draft('first') });
    await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, title: 'First' });
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft: draft('second') });
    await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, title: 'Second' });

    const list = await api.ok('GET', `/workbooks/${wb.id}/dashboard/versions`);
    expect(list.items).toEqual([
      expect.objectContaining({ versionNumber: 1, status: 'archived', title: 'First', widgetCount: 1 }),
      expect.objectContaining({ versionNumber: 2, status: 'published', title: 'Second' }),
    ]);
    expect(list.items[0].createdByUser).toMatchObject({ id: server.adminUserId });
    expect(Number.isNaN(Date.parse(list.items[0].createdAt))).toBe(false);
    const paged = await api.ok('GET', `/workbooks/${wb.id}/dashboard/versions?first=1`);
    expect(paged.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([1]);
    const rest = await api.ok(
      'GET',
      `/workbooks/${wb.id}/dashboard/versions?first=1&after=${encodeURIComponent(paged.pageInfo.endCursor)}`,
    );
    expect(rest.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([2]);

    const v1 = await api.ok('GET', `/workbooks/${wb.id}/dashboard/versions/1`);
    expect(v1).toMatchObject({ versionNumber: 1, title: 'First', config: { title: 'first' } });
    expect((await api.call('GET', `/workbooks/${wb.id}/dashboard/versions/9`)).status).toBe(404);

    const before = await api.ok('GET', `/workbooks/${wb.id}`);
    const stale = await api.call('POST', `/workbooks/${wb.id}/dashboard/versions/1/restore`, {
      expectedDraftVersion: before.dashboardDraftVersion - 1,
    });
    expect(stale.status).toBe(409);
    const restored = await api.ok('POST', `/workbooks/${wb.id}/dashboard/versions/1/restore`, {
      expectedDraftVersion: before.dashboardDraftVersion,
    });
    expect(restored.dashboardDraft.title).toBe('first');
    expect(restored.dashboardDraftVersion).toBe(before.dashboardDraftVersion + 1);
    // Restoring changes the draft only: the published version stays until the next publish.
    expect(restored.dashboardPublished.title).toBe('second');
    const noBody = await api.call('POST', `/workbooks/${wb.id}/dashboard/versions/2/restore`);
    expect(noBody.status).toBe(200);
    expect(noBody.body.dashboardDraft.title).toBe('second');
  });

  it('refuses the history to a caller who cannot see the workbook, and restoring without edit access', async () => {
    const wb = await api.workbook('Private');
    await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, config: draft('p') });
    const outsider = await userWithKey(server, 'developer');
    // Refused as the workbook itself is refused to them (AccessContext.require).
    const list = await api.call('GET', `/workbooks/${wb.id}/dashboard/versions`, undefined, outsider.key);
    const workbook = await api.call('GET', `/workbooks/${wb.id}`, undefined, outsider.key);
    expect(list.status).toBe(workbook.status);
    expect([403, 404]).toContain(list.status);
    expect(list.body.items).toBeUndefined();
    await api.grant({ type: 'WORKBOOK', id: wb.id, userId: outsider.user.id, level: 'view' });
    expect(
      (await api.call('GET', `/workbooks/${wb.id}/dashboard/versions/1`, undefined, outsider.key)).status,
    ).toBe(200);
    const restore = await api.call(
      'POST',
      `/workbooks/${wb.id}/dashboard/versions/1/restore`,
      {},
      outsider.key,
    );
    expect(restore.status).toBe(403);
  });
});
