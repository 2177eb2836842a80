import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

const layout = {
  breakpoints: { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 },
  cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 },
  containerPadding: [10, 10],
  margin: [10, 10],
  rowHeight: 30,
};
const theme = {
  backgroundColor: '#fff',
  primaryColor: '#333',
  controls: { border: { color: '#ccc', radius: '4px' }, title: { fontSize: '12px' } },
  widgets: { text: { color: '#000' }, title: { fontWeight: '600' } },
};

describe('dashboards: draft and publishing (spec 2.2 to 2.4, 4.4)', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, await newDeployment(server));
  });
  afterAll(() => server?.close());

  const widget = (id: string, reportId: number) => ({
    id,
    position: { x: 0, y: 0, w: 6, h: 4 },
    responsiveLayouts: { lg: { x: 0, y: 0, w: 6, h: 4 } },
    config: { reportId },
  });

  it('saves a draft, publishes it with report snapshots, and versions later publishes', async () => {
    const wb = await api.workbook('Board');
    const report = await api.report({
      name: 'Orders',
      sqlQuery: 'SELECT 1',
      spec: { mark: 'line' },
      meta: { owner: 'ops' },
      preferences: { columnFormats: { n: { type: 'number' } } },
      fillMissingRows: { member: 'orders.createdAt' },
    });
    const draft = { title: 'Ops', description: 'daily', layout, theme, widgets: [widget('w1', report.id)] };
    const saved = await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft: draft });
    expect(saved).toMatchObject({
      dashboardDraft: draft,
      dashboardPublished: null,
      dashboardDraftVersion: 1,
    });
    expect(Object.keys(saved).sort()).toEqual([
      'dashboardDraft',
      'dashboardDraftSavedAt',
      'dashboardDraftSavedBy',
      'dashboardDraftVersion',
      'dashboardPublished',
    ]);

    const v1 = await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id });
    expect(v1).toMatchObject({
      workbookId: wb.id,
      status: 'published',
      versionNumber: 1,
      title: 'Ops',
      allowEmbed: false,
    });
    expect(v1.config.widgets[0].type).toBe('CHART');
    expect(v1.reportSnapshots).toEqual([
      expect.objectContaining({
        reportId: report.id,
        versionNumber: 1,
        sqlQuery: 'SELECT 1',
        spec: JSON.stringify({ mark: 'line' }),
        meta: { owner: 'ops' },
        preferences: { columnFormats: { n: { type: 'number' } } },
        fillMissingRows: { member: 'orders.createdAt', excludedDimensions: [] },
        kind: 'vega',
      }),
    ]);
    await api.ok('PUT', `/reports/${report.id}`, { sqlQuery: 'SELECT 2' });
    const v2 = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      dashboardId: v1.id,
      title: 'Ops v2',
      allowEmbed: true,
      config: { ...draft, widgets: [{ ...widget('w1', report.id), type: 'CHART' }] },
    });
    expect(v2).toMatchObject({
      id: v1.id,
      publicId: v1.publicId,
      versionNumber: 2,
      allowEmbed: true,
      title: 'Ops v2',
    });
    expect(v2.versionId).not.toBe(v1.versionId);
    expect(v2.reportSnapshots[0]).toMatchObject({ sqlQuery: 'SELECT 2', versionNumber: 2 });
    const read = await api.ok('GET', `/workbooks/${wb.id}`);
    expect(read.publishedDashboard).toMatchObject({ versionNumber: 2, publicId: v1.publicId });
    expect(read.dashboardPublished.title).toBe('Ops');
    expect(read.dashboardDraft).toEqual(draft);
    const statuses = await server.store.db
      .selectFrom('dashboard_versions')
      .select(['version_number', 'status'])
      .where('dashboard_id', '=', v1.id)
      .orderBy('version_number')
      .execute();
    expect(statuses).toEqual([
      { version_number: 1, status: 'archived' },
      { version_number: 2, status: 'published' },
    ]);
  });

  it('validates the config and theme shape on publish', async () => {
    const wb = await api.workbook('Strict');
    const publish = (body: Record<string, unknown>) =>
      api.call('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, ...body });
    const nothing = await publish({});
    expect(nothing.status).toBe(400);
    expect(nothing.body.code).toBe('nothing_to_publish');
    const numericTheme = await publish({ config: { theme: { primaryColor: 12 } } });
    expect(numericTheme.status).toBe(400);
    expect(numericTheme.body.errors.map((e: { field: string }) => e.field)).toContain(
      'body/config/theme/primaryColor',
    );
    expect((await publish({ config: { theme: { colour: 'red' } } })).status).toBe(400);
    expect((await publish({ config: { widgets: [{ id: 'a', position: { x: 0, y: 0 } }] } })).status).toBe(
      400,
    );
    const dupe = { id: 'a', position: { x: 0, y: 0, w: 1, h: 1 } };
    expect((await publish({ config: { widgets: [dupe, dupe] } })).status).toBe(400);
    const missing = await publish({ config: { widgets: [widget('x', 999999)] } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].field).toBe('body/config/widgets/0/config/reportId');
    expect(
      (await api.call('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id + 1, config: {} })).status,
    ).toBe(400);
    expect((await publish({ dashboardId: 999999, config: {} })).status).toBe(400);
    // A draft without widget ids may be saved, but not published.
    await api.ok('PUT', `/workbooks/${wb.id}/dashboard`, {
      dashboardDraft: { widgets: [{ position: { x: 0, y: 0, w: 1, h: 1 } }] },
    });
    const draftField = await publish({});
    expect(draftField.status).toBe(400);
    expect(draftField.body.errors[0].field).toContain('workbook/dashboardDraft/widgets/0');
    expect(
      (await api.call('POST', '/workbooks/999999/publish', { workbookId: 999999, config: {} })).status,
    ).toBe(404);
    const viewer = await userWithKey(server, 'viewer');
    expect(
      (await api.call('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, config: {} }, viewer.key))
        .status,
    ).toBe(403);
  });

  it('never duplicates a version number under parallel publishes', async () => {
    const wb = await api.workbook('Parallel');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api.call('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, config: { title: `v${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    const numbers = results.map((r) => r.body.versionNumber).sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(results.map((r) => r.body.publicId)).size).toBe(1);
  });
});
