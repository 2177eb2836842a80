import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from './test-client.ts';

describe('POST /workspace/move (spec 4.2)', () => {
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

  it('moves a workbook, a report and a folder and returns the moved item (spec 2.1)', async () => {
    const target = await api.folder('Target');
    const wb = await api.workbook('Moving');
    const moved = await api.move('WORKBOOK', wb.id, target.id);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: wb.id,
      type: 'WORKBOOK',
      folderId: target.id,
      deploymentId,
      calculatedFields: {},
      meta: {},
    });
    const report = await api.report({ name: 'R' });
    expect((await api.move('REPORT', report.id, target.id)).body).toMatchObject({
      type: 'REPORT',
      folderId: target.id,
    });
    const sub = await api.folder('Sub');
    const folderMove = await api.move('FOLDER', sub.id, target.id);
    expect(folderMove.body).toMatchObject({
      type: 'FOLDER',
      folderId: target.id,
      folderPath: [{ id: target.id, name: 'Target' }],
    });
    expect((await api.move('FOLDER', sub.id, null)).body.folderId).toBeNull();
  });

  it('answers 404 for missing or foreign items and 400 for invalid moves', async () => {
    const other = contentClient(server, await newDeployment(server, 'other'));
    const foreignWb = await other.workbook('Foreign');
    const foreignFolder = await other.folder('Foreign folder');
    expect((await api.move('WORKBOOK', foreignWb.id, null)).status).toBe(404);
    expect((await api.move('FOLDER', foreignFolder.id, null)).status).toBe(404);
    expect((await api.move('REPORT', 999999, null)).status).toBe(404);
    const a = await api.folder('A');
    const b = await api.folder('B', a.id);
    const c = await api.folder('C', b.id);
    const self = await api.move('FOLDER', a.id, a.id);
    expect(self.status).toBe(400);
    expect(self.body.code).toBe('folder_cycle');
    expect((await api.move('FOLDER', a.id, c.id)).body.code).toBe('folder_cycle');
    const wb = await api.workbook('W');
    const intoForeign = await api.move('WORKBOOK', wb.id, foreignFolder.id);
    expect(intoForeign.status).toBe(400);
    expect(intoForeign.body.code).toBe('invalid_folder');
    expect(
      (await api.call('POST', '/workspace/move', { type: 'DASHBOARD', id: wb.id, folderId: null })).status,
    ).toBe(400);
    expect((await api.call('POST', '/workspace/move', { type: 'WORKBOOK', id: 'x' })).status).toBe(400);
  });

  it('applies every permission rule of the spec 4.2 table', async () => {
    const src = await api.folder('Src');
    const dest = await api.folder('Dest');
    const wb = await api.workbook('W', src.id);
    const rep = await api.report({ name: 'R', folderId: src.id });
    const fol = await api.folder('F', src.id);
    const grant = (type: string, id: number, level: string) =>
      api.grant({ type, id, userId: dev.user.id, level });

    // Workbook: manage on it, plus edit on the destination.
    await grant('WORKBOOK', wb.id, 'edit');
    await grant('FOLDER', dest.id, 'edit');
    expect((await api.move('WORKBOOK', wb.id, dest.id, dev.key)).status).toBe(403);
    await grant('WORKBOOK', wb.id, 'manage');
    await grant('FOLDER', dest.id, 'view');
    expect((await api.move('WORKBOOK', wb.id, dest.id, dev.key)).status).toBe(403);
    await grant('FOLDER', dest.id, 'edit');
    expect((await api.move('WORKBOOK', wb.id, dest.id, dev.key)).status).toBe(200);

    // Report: edit on it (developers hold report-manage), plus edit on the destination.
    await grant('REPORT', rep.id, 'view');
    expect((await api.move('REPORT', rep.id, dest.id, dev.key)).status).toBe(403);
    await grant('REPORT', rep.id, 'edit');
    expect((await api.move('REPORT', rep.id, dest.id, dev.key)).status).toBe(200);

    // Folder: manage on it, plus edit or manage on the new parent.
    await grant('FOLDER', fol.id, 'edit');
    expect((await api.move('FOLDER', fol.id, dest.id, dev.key)).status).toBe(403);
    await grant('FOLDER', fol.id, 'manage');
    expect((await api.move('FOLDER', fol.id, dest.id, dev.key)).status).toBe(200);
    await grant('FOLDER', dest.id, 'view');
    expect((await api.move('FOLDER', fol.id, dest.id, dev.key)).status).toBe(403);

    // Viewers never move: the route needs the developer role (and with it report-manage).
    const viewer = await userWithKey(server, 'viewer');
    await api.grant({ type: 'REPORT', id: rep.id, userId: viewer.user.id, level: 'manage' });
    expect((await api.move('REPORT', rep.id, null, viewer.key)).status).toBe(403);
  });

  it('never leaves a cycle or an orphan under parallel moves of the same folders', async () => {
    const folders: number[] = [];
    for (let i = 0; i < 6; i++) folders.push((await api.folder(`P${i}`)).id);
    for (let round = 0; round < 8; round++) {
      // Two moves that would each be fine alone but close a cycle together, from both sides:
      // exactly one wins and the other is a 400.
      const [a, b] = [folders[round % 6], folders[(round + 1) % 6]];
      const pair = await Promise.all([api.move('FOLDER', a, b), api.move('FOLDER', b, a)]);
      expect(pair.map((r) => r.status).sort()).toEqual([200, 400]);
      await expectForest(folders);
      // Then a random mix over the same folders, cycle attempts included.
      const moves = [];
      for (let i = 0; i < 8; i++) {
        const x = folders[(round * 7 + i) % 6];
        const y = folders[(round * 5 + i * 3 + 1) % 6];
        moves.push(api.move('FOLDER', x, i % 4 === 0 ? null : y));
      }
      const results = await Promise.all(moves);
      expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
      await expectForest(folders);
      // Start the next round flat.
      for (const id of folders) await api.move('FOLDER', id, null);
    }
  });

  async function expectForest(ids: number[]) {
    const rows = await server.store.db
      .selectFrom('folders')
      .select(['id', 'parent_id'])
      .where('deployment_id', '=', deploymentId)
      .execute();
    const parent = new Map(rows.map((r) => [r.id, r.parent_id]));
    for (const id of ids) {
      const seen = new Set<number>();
      let current: number | null = id;
      while (current !== null) {
        expect(seen.has(current), `cycle through folder ${current}`).toBe(false);
        expect(parent.has(current), `orphan: folder ${current} missing`).toBe(true);
        seen.add(current);
        current = parent.get(current) ?? null;
      }
    }
  }
});
