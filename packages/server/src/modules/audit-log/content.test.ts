import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';
import { auditEntries, wholeAuditLog } from './test-support.ts';

/**
 * Issue 22 item 5 for workspace content: reports, dashboards (draft, publish, removal with their
 * workbook), moves and workbook copies each leave an entry with before and after, written in the
 * change's transaction; a query or a draft is content and never copied into the log.
 */
describe('audit log: reports, dashboards, moves and copies', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  let deploymentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = await newDeployment(server, 'audited content');
    api = contentClient(server, deploymentId);
  });
  afterAll(() => server?.close());

  const entries = (query: string) => auditEntries(server, query);
  const widget = (id: string, reportId: number) => ({
    id,
    position: { x: 0, y: 0, w: 6, h: 4 },
    responsiveLayouts: { lg: { x: 0, y: 0, w: 6, h: 4 } },
    config: { reportId },
  });

  it('records report creations, changes and removals with before and after', async () => {
    const report = await api.report({ name: 'Revenue', sqlQuery: 'SELECT 1' });
    await api.ok('PUT', `/reports/${report.id}`, { name: 'Revenue by day', sqlQuery: 'SELECT 2' });
    await api.ok('DELETE', `/reports/${report.id}`);
    const items = await entries(`targetType=report&targetId=${report.id}`);
    expect(items.map((e) => e.action)).toEqual(['report.delete', 'report.update', 'report.create']);
    const [removed, updated, created] = items;
    expect(created).toMatchObject({
      before: null,
      after: { deploymentId, name: 'Revenue', workbookId: null },
    });
    expect(updated.before).toMatchObject({ name: 'Revenue' });
    expect(updated.after).toMatchObject({ name: 'Revenue by day', queryChanged: true });
    expect(removed).toMatchObject({ before: { name: 'Revenue by day' }, after: null });
  });

  it('records draft saves, publishes and the dashboard leaving with its workbook', async () => {
    const wb = await api.workbook('Board');
    const report = await api.report({ name: 'Orders', sqlQuery: 'SELECT 1' });
    const draft = { title: 'Ops', widgets: [widget('w1', report.id)] };
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft: draft });
    const v1 = await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id });
    const v2 = await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, title: 'Ops v2' });
    expect(v2.id).toBe(v1.id);
    const [draftEntry] = await entries(`action=dashboard.save_draft&targetId=${wb.id}`);
    expect(draftEntry).toMatchObject({
      targetType: 'workbook',
      before: { workbookId: wb.id, hasDraft: false },
      after: { workbookId: wb.id, hasDraft: true },
    });
    const publishes = await entries(`action=dashboard.publish&targetId=${v1.id}`);
    expect(publishes.map((e) => [e.before?.versionNumber ?? null, e.after.versionNumber])).toEqual([
      [1, 2],
      [null, 1],
    ]);
    expect(publishes[0].after).toMatchObject({ workbookId: wb.id, title: 'Ops v2', allowEmbed: false });

    await api.ok('DELETE', `/workbooks/${wb.id}`);
    const [gone] = await entries(`targetType=dashboard&targetId=${v1.id}`);
    expect(gone).toMatchObject({
      action: 'dashboard.delete',
      before: { workbookId: wb.id, versionNumber: 2, title: 'Ops v2' },
      after: null,
    });
  });

  it('records moves of folders, workbooks and reports, and workbook copies', async () => {
    const target = await api.folder('Target');
    const sub = await api.folder('Sub');
    const wb = await api.workbook('Moved');
    const report = await api.report({ name: 'Moved report', workbookId: wb.id });
    for (const [type, id] of [
      ['FOLDER', sub.id],
      ['WORKBOOK', wb.id],
      ['REPORT', report.id],
    ] as const)
      expect((await api.move(type, id, target.id)).status).toBe(200);
    for (const [type, id] of [
      ['folder', sub.id],
      ['workbook', wb.id],
      ['report', report.id],
    ] as const) {
      const [moved] = await entries(`action=${type}.move&targetId=${id}`);
      expect(moved).toMatchObject({
        targetType: type,
        before: { deploymentId, folderId: null },
        after: { deploymentId, folderId: target.id },
      });
    }

    const copy = await api.ok('POST', `/workbooks/${wb.id}/duplicate`, {});
    const [duplicated] = await entries(`action=workbook.duplicate&targetId=${copy.id}`);
    expect(duplicated).toMatchObject({
      targetType: 'workbook',
      before: null,
      after: { name: 'Copy of Moved', sourceWorkbookId: wb.id, folderId: target.id, fromShared: false },
    });
    expect(duplicated.after.reportIds).toHaveLength(1);
  });

  it('copies no query or draft content into the log', async () => {
    const sqlText = 'SELECT 4242 AS query_text_never_logged';
    const report = await api.report({ name: 'Private', sqlQuery: sqlText });
    await api.ok('PUT', `/reports/${report.id}`, { sqlQuery: `${sqlText} -- edited` });
    const wb = await api.workbook('Private board');
    const title = 'draft-title-never-logged';
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: { title, widgets: [widget('w1', report.id)] },
    });
    await api.ok('POST', `/workbooks/${wb.id}/duplicate`, {});
    const log = await wholeAuditLog(server);
    expect(log).not.toContain('query_text_never_logged');
    expect(log).not.toContain(title);
    expect((await entries(`targetType=report&targetId=${report.id}`)).length).toBe(2);
  });

  it('leaves no entry when the change is refused', async () => {
    const before = (await entries('action=report.*&first=1000')).length;
    const res = await api.call('POST', '/reports', { name: 'x', jsonQuery: '[1]' });
    expect(res.status).toBe(400);
    expect((await entries('action=report.*&first=1000')).length).toBe(before);
  });
});
