import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

interface Placement {
  id: string;
  workbookId: string;
  sheetName: string | null;
  anchorCell: string | null;
  endResultCell: string | null;
  resultLocation: string;
  syncStatus: string;
  refreshedByUserId: number | null;
  resultChecksum: unknown;
}

/**
 * Issue 25 item 4: a report placed in spreadsheets (the reference's connect-workbook, disconnect
 * and refresh). View access suffices; a report the caller cannot see is a 404, as `GET` answers.
 */
describe('report placements in spreadsheets', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  let deploymentId: number;
  let viewer: Awaited<ReturnType<typeof userWithKey>>;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server);
    api = contentClient(server, deploymentId);
    viewer = await userWithKey(server, 'viewer');
  });
  afterAll(() => server?.close());

  const placements = (body: { externalWorkbookPlacements: Placement[] }) => body.externalWorkbookPlacements;
  const auditOf = (reportId: number) =>
    server.store.db
      .selectFrom('audit_log')
      .select(['action', 'actor_user_id', 'after', 'before'])
      .where('target_type', '=', 'report')
      .where('target_id', '=', String(reportId))
      .where('action', 'like', 'report.%workbook')
      .orderBy('id')
      .execute();

  it('lets a viewer with view access place, refresh and remove a report, and tells when it is stale', async () => {
    const report = await api.report({ name: 'Revenue', sqlQuery: 'SELECT 1' });
    // The viewer cannot see it yet: placing it answers as reading it does.
    const hidden = await api.call('GET', `/reports/${report.id}`, undefined, viewer.key);
    const refused = await api.call(
      'PUT',
      `/reports/${report.id}/connect-workbook`,
      { externalWorkbookId: 'wb-1', resultLocation: 'Sheet1!A1:C9' },
      viewer.key,
    );
    expect(refused.status).toBe(hidden.status);
    expect([403, 404]).toContain(refused.status);
    await api.grant({ type: 'REPORT', id: report.id, userId: viewer.user.id, level: 'view' });

    const placed = await api.ok(
      'PUT',
      `/reports/${report.id}/connect-workbook`,
      {
        externalWorkbookId: 'wb-1',
        resultLocation: "'My sheet'!B2:D9",
        host: 'EXCEL',
        workbookName: 'Budget',
      },
      viewer.key,
    );
    expect(placements(placed)).toEqual([
      expect.objectContaining({
        workbookId: 'wb-1',
        sheetName: 'My sheet',
        anchorCell: 'B2',
        endResultCell: 'D9',
        resultLocation: "'My sheet'!B2:D9",
        syncStatus: 'UP_TO_DATE',
        refreshedByUserId: viewer.user.id,
      }),
    ]);
    expect(placed).toMatchObject({ refreshedBy: viewer.user.id, refreshedByUser: { id: viewer.user.id } });
    // The report itself did not change: same version, same query.
    expect(placed).toMatchObject({ version: 1, sqlQuery: 'SELECT 1', canEdit: false });

    // The same spot again updates the placement; another spot is a second placement.
    const again = await api.ok(
      'PUT',
      `/reports/${report.id}/connect-workbook`,
      { externalWorkbookId: 'wb-1', resultLocation: "'My sheet'!B2:D9", addressOnly: true },
      viewer.key,
    );
    expect(placements(again)).toHaveLength(1);
    expect(placements(again)[0].id).toBe(placements(placed)[0].id);
    const second = await api.ok('PUT', `/reports/${report.id}/connect-workbook`, {
      externalWorkbookId: 'wb-2',
      resultLocation: 'Data!A1',
      addressOnly: true,
    });
    expect(placements(second)).toHaveLength(2);
    expect(placements(second).find((p) => p.workbookId === 'wb-2')?.syncStatus).toBe('UNKNOWN');

    // The query changes: the filled placement is stale until refreshed.
    await api.ok('PUT', `/reports/${report.id}`, { sqlQuery: 'SELECT 2' });
    const read = await api.ok('PUT', `/reports/${report.id}/refresh`, {}, viewer.key);
    expect(placements(read).find((p) => p.workbookId === 'wb-1')?.syncStatus).toBe('CHANGED');
    const refreshed = await api.ok(
      'PUT',
      `/reports/${report.id}/refresh`,
      {
        placementId: placements(placed)[0].id,
        resultChecksum: { v: 1, chunks: [{ from: 0, hash: 'abc' }] },
      },
      viewer.key,
    );
    const wb1 = placements(refreshed).find((p) => p.workbookId === 'wb-1');
    expect(wb1).toMatchObject({
      syncStatus: 'UP_TO_DATE',
      resultChecksum: { v: 1, chunks: [{ from: 0, hash: 'abc' }] },
    });
    expect(refreshed.currentQueryChecksum).toMatch(/^[0-9a-f]{64}$/);

    // Removing one spot leaves the other; a spot that is not there changes nothing and succeeds.
    const removed = await api.ok(
      'DELETE',
      `/reports/${report.id}/connect-workbook`,
      { externalWorkbookId: 'wb-1', sheetName: 'My sheet', anchorCell: 'B2' },
      viewer.key,
    );
    expect(placements(removed).map((p) => p.workbookId)).toEqual(['wb-2']);
    const nothing = await api.ok('DELETE', `/reports/${report.id}/connect-workbook`, {
      externalWorkbookId: 'wb-1',
      sheetName: 'My sheet',
      anchorCell: 'B2',
    });
    expect(placements(nothing).map((p) => p.workbookId)).toEqual(['wb-2']);
    // A sheet id narrows: the placement stored without one is not this one.
    const narrowed = await api.ok('DELETE', `/reports/${report.id}/connect-workbook`, {
      externalWorkbookId: 'wb-2',
      resultLocation: 'Data!A1',
      sheetId: '42',
    });
    expect(placements(narrowed)).toHaveLength(1);

    const entries = await auditOf(report.id);
    expect(entries.map((e) => e.action)).toEqual([
      'report.connect_workbook',
      'report.connect_workbook',
      'report.connect_workbook',
      'report.disconnect_workbook',
    ]);
    expect(entries[0]).toMatchObject({
      actor_user_id: viewer.user.id,
      after: { deploymentId, externalWorkbookId: 'wb-1' },
    });
    const refreshes = await server.store.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'report.refresh')
      .where('target_id', '=', String(report.id))
      .execute();
    expect(refreshes).toHaveLength(2);
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const report = await api.report({ name: 'Bad input', sqlQuery: 'SELECT 1' });
    const path = `/reports/${report.id}/connect-workbook`;
    const missing = await api.call('PUT', path, { externalWorkbookId: 'wb' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('body/resultLocation');
    const badCell = await api.call('PUT', path, {
      externalWorkbookId: 'wb',
      resultLocation: 'S!A1',
      anchorCell: 'A1;DROP',
    });
    expect(badCell.status).toBe(400);
    expect(JSON.stringify(badCell.body)).toContain('body/anchorCell');
    const noTarget = await api.call('DELETE', path, {});
    expect(noTarget.status).toBe(400);
    expect(JSON.stringify(noTarget.body)).toContain('body/placementId');
    const halfTarget = await api.call('PUT', `/reports/${report.id}/refresh`, { externalWorkbookId: 'wb' });
    expect(halfTarget.status).toBe(400);
    expect(JSON.stringify(halfTarget.body)).toContain('body/sheetName');
    const unknown = await api.call('PUT', `/reports/${report.id}/refresh`, { placementId: 'nope' });
    expect(unknown.status).toBe(404);
    expect((await api.call('PUT', '/reports/999999/refresh', {})).status).toBe(404);
    expect(placements(await api.ok('PUT', `/reports/${report.id}/refresh`, {}))).toEqual([]);
    expect(
      await server.store.db
        .selectFrom('report_placements')
        .selectAll()
        .where('report_id', '=', report.id)
        .execute(),
    ).toEqual([]);
  });

  it('keeps one placement per spot under concurrent connects', async () => {
    const report = await api.report({ name: 'Concurrent', sqlQuery: 'SELECT 1' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.call('PUT', `/reports/${report.id}/connect-workbook`, {
          externalWorkbookId: 'wb-c',
          resultLocation: 'S!A1',
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const rows = await server.store.db
      .selectFrom('report_placements')
      .selectAll()
      .where('report_id', '=', report.id)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
