import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from './test-client.ts';

describe('POST /workspace/bulk-move and /workspace/bulk-delete: all or nothing (issue 25 item 4)', () => {
  let server: TestServer;
  let deploymentId: number;
  let api: ReturnType<typeof contentClient>;
  let dev: { user: { id: number }; key: string };
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
    dev = await userWithKey(server, 'developer');
  });
  afterAll(() => server?.close());

  // Folders have no single read: the store answers for them.
  const folderRow = (id: number) =>
    server.store.db.selectFrom('folders').select('parent_id').where('id', '=', id).executeTakeFirst();
  const folderOf = async (type: 'workbooks' | 'reports' | 'folders', id: number) => {
    if (type === 'folders') return (await folderRow(id))?.parent_id;
    return (await api.ok('GET', `/${type}/${id}`)).folderId;
  };
  const exists = async (type: 'workbooks' | 'reports' | 'folders', id: number) =>
    type === 'folders'
      ? (await folderRow(id)) !== undefined
      : (await api.call('GET', `/${type}/${id}`)).status === 200;
  const auditActions = async (action: string, targetId: number) => {
    const page = await api.ok('GET', `/api/v1/audit-log?action=${action}&first=100`);
    return (page.items as { action: string; targetId: string | number }[]).filter(
      (e) => String(e.targetId) === String(targetId),
    );
  };

  it('moves a mixed batch in one request, answering the moved items and one audit entry each', async () => {
    const dest = await api.folder('Bulk dest');
    const wb = await api.workbook('Bulk W');
    const rep = await api.report({ name: 'Bulk R' });
    const fol = await api.folder('Bulk F');
    const res = await api.call('POST', '/workspace/bulk-move', {
      items: [
        { type: 'WORKBOOK', id: wb.id },
        { type: 'REPORT', id: rep.id },
        { type: 'FOLDER', id: fol.id },
        { type: 'WORKBOOK', id: wb.id },
      ],
      folderId: dest.id,
    });
    expect(res.status).toBe(200);
    // Repeated references are collapsed (the reference).
    expect(res.body.moved.map((m: { type: string; id: number }) => [m.type, m.id])).toEqual([
      ['WORKBOOK', wb.id],
      ['REPORT', rep.id],
      ['FOLDER', fol.id],
    ]);
    expect(res.body.moved.every((m: { folderId: number }) => m.folderId === dest.id)).toBe(true);
    expect(res.body.failed).toEqual([]);
    expect(await folderOf('workbooks', wb.id)).toBe(dest.id);
    expect(await folderOf('reports', rep.id)).toBe(dest.id);
    expect(await folderOf('folders', fol.id)).toBe(dest.id);
    expect(await auditActions('workbook.move', wb.id)).toHaveLength(1);
    expect(await auditActions('report.move', rep.id)).toHaveLength(1);
    expect(await auditActions('folder.move', fol.id)).toHaveLength(1);
  });

  it('refuses a whole move batch when one item is forbidden, naming its index, and moves nothing', async () => {
    const dest = await api.folder('Dev dest');
    await api.grant({ type: 'FOLDER', id: dest.id, userId: dev.user.id, level: 'edit' });
    const mine = await api.workbook('Dev may move');
    await api.grant({ type: 'WORKBOOK', id: mine.id, userId: dev.user.id, level: 'manage' });
    const alsoMine = await api.workbook('Dev may move too');
    await api.grant({ type: 'WORKBOOK', id: alsoMine.id, userId: dev.user.id, level: 'manage' });
    const onlyEdit = await api.workbook('Dev may only edit');
    await api.grant({ type: 'WORKBOOK', id: onlyEdit.id, userId: dev.user.id, level: 'edit' });
    const res = await api.call(
      'POST',
      '/workspace/bulk-move',
      {
        items: [
          { type: 'WORKBOOK', id: mine.id },
          { type: 'WORKBOOK', id: alsoMine.id },
          { type: 'WORKBOOK', id: onlyEdit.id },
        ],
        folderId: dest.id,
      },
      dev.key,
    );
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('items[2]');
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field: 'body/items/2' }));
    // The two permitted moves before it were rolled back, audit entries included.
    expect(await folderOf('workbooks', mine.id)).toBeNull();
    expect(await folderOf('workbooks', alsoMine.id)).toBeNull();
    expect(await auditActions('workbook.move', mine.id)).toHaveLength(0);

    // The same batch without the forbidden item applies.
    const ok = await api.call(
      'POST',
      '/workspace/bulk-move',
      { items: [{ type: 'WORKBOOK', id: mine.id }], folderId: dest.id },
      dev.key,
    );
    expect(ok.status).toBe(200);
  });

  it('refuses a move batch with a missing item (404) or a folder cycle (400), naming the index', async () => {
    const a = await api.folder('Cycle A');
    const b = await api.folder('Cycle B', a.id);
    const wb = await api.workbook('Stays');
    const missing = await api.call('POST', '/workspace/bulk-move', {
      items: [
        { type: 'WORKBOOK', id: wb.id },
        { type: 'REPORT', id: 999999 },
      ],
      folderId: b.id,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('items[1]');
    const cycle = await api.call('POST', '/workspace/bulk-move', {
      items: [
        { type: 'WORKBOOK', id: wb.id },
        { type: 'FOLDER', id: a.id },
      ],
      folderId: b.id,
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.code).toBe('folder_cycle');
    expect(cycle.body.errors).toContainEqual(expect.objectContaining({ field: 'body/items/1' }));
    expect(await folderOf('workbooks', wb.id)).toBeNull();
    expect((await api.call('POST', '/workspace/bulk-move', { items: [] })).status).toBe(400);
  });

  it('deletes a mixed batch, a folder with its sub-folder included, with the single deletes’ audit entries', async () => {
    const parent = await api.folder('Del parent');
    const child = await api.folder('Del child', parent.id);
    const inside = await api.workbook('Inside', child.id);
    const wb = await api.workbook('Del W');
    const rep = await api.report({ name: 'Del R' });
    const res = await api.call('POST', '/workspace/bulk-delete', {
      items: [
        { type: 'FOLDER', id: parent.id },
        { type: 'WORKBOOK', id: wb.id },
        { type: 'REPORT', id: rep.id },
        { type: 'FOLDER', id: child.id },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      deleted: [
        { type: 'FOLDER', id: parent.id },
        { type: 'WORKBOOK', id: wb.id },
        { type: 'REPORT', id: rep.id },
        { type: 'FOLDER', id: child.id },
      ],
      failed: [],
    });
    expect(await exists('folders', parent.id)).toBe(false);
    expect(await exists('folders', child.id)).toBe(false);
    expect(await exists('workbooks', wb.id)).toBe(false);
    expect(await exists('reports', rep.id)).toBe(false);
    // What a deleted folder held goes back to the root (spec 4.5).
    expect(await folderOf('workbooks', inside.id)).toBeNull();
    expect(await auditActions('folder.delete', parent.id)).toHaveLength(1);
    expect(await auditActions('workbook.delete', wb.id)).toHaveLength(1);
    expect(await auditActions('report.delete', rep.id)).toHaveLength(1);
  });

  it('refuses a whole delete batch when one item is forbidden or not allowed, and deletes nothing', async () => {
    const deletable = await api.workbook('Dev may delete');
    await api.grant({ type: 'WORKBOOK', id: deletable.id, userId: dev.user.id, level: 'manage' });
    const rep = await api.report({ name: 'Dev may delete R' });
    await api.grant({ type: 'REPORT', id: rep.id, userId: dev.user.id, level: 'manage' });
    const forbidden = await api.workbook('Dev may only view');
    await api.grant({ type: 'WORKBOOK', id: forbidden.id, userId: dev.user.id, level: 'view' });
    const res = await api.call(
      'POST',
      '/workspace/bulk-delete',
      {
        items: [
          { type: 'WORKBOOK', id: deletable.id },
          { type: 'REPORT', id: rep.id },
          { type: 'WORKBOOK', id: forbidden.id },
        ],
      },
      dev.key,
    );
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('items[2]');
    expect(await exists('workbooks', deletable.id)).toBe(true);
    expect(await exists('reports', rep.id)).toBe(true);
    expect(await exists('workbooks', forbidden.id)).toBe(true);
    expect(await auditActions('workbook.delete', deletable.id)).toHaveLength(0);

    // A folder that keeps a sub-folder the batch does not delete: 400, nothing deleted.
    const parent = await api.folder('Keeps child');
    await api.folder('Kept child', parent.id);
    const wb = await api.workbook('Not deleted');
    const notEmpty = await api.call('POST', '/workspace/bulk-delete', {
      items: [
        { type: 'WORKBOOK', id: wb.id },
        { type: 'FOLDER', id: parent.id },
      ],
    });
    expect(notEmpty.status).toBe(400);
    expect(notEmpty.body.code).toBe('folder_not_empty');
    expect(notEmpty.body.errors).toContainEqual(expect.objectContaining({ field: 'body/items/1' }));
    expect(await exists('workbooks', wb.id)).toBe(true);
    expect(await exists('folders', parent.id)).toBe(true);
  });
});
