import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import * as migration from '../../db/migrations/0007-snapshot-queries.ts';
import { contentClient } from '../workspace/test-client.ts';

/**
 * Key order is meaning here: the rows sort by status first. jsonb would re-sort the keys (shorter
 * first: `orders.count` before `orders.status`), which is why the column is `json`.
 */
const orderedQuery = `{ "measures": ["orders.count"], "dimensions": ["orders.status"],
  "order": { "orders.status": "desc", "orders.count": "asc" } }`;
const plainQuery = '{"measures":["orders.count"]}';

describe('report snapshots keep their semantic query in a column (migration 0007)', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, server.demoDeploymentId);
  });
  afterAll(() => server?.close());

  const widget = (id: string, reportId: number) => ({
    id,
    position: { x: 0, y: 0, w: 4, h: 4 },
    config: { reportId },
  });
  const widgetData = async (publicId: string, widgetId: string) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${publicId}/widgets/${widgetId}/data`,
      headers: bearer(server.adminKey),
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    const { kind, query, data } = res.json();
    return { kind, query, data };
  };
  const rawSnapshots = (versionId: number) =>
    sql<{ report_id: number; meta: unknown }>`select report_id, meta from report_snapshots
      where dashboard_version_id = ${versionId} order by report_id`
      .execute(server.store.db)
      .then((r) => r.rows);

  it('reads a snapshot written the old way (jsonQuery in meta) back the same after the backfill', async () => {
    const wb = await api.workbook('Backfilled board');
    const ordered = await api.report({ name: 'ordered', jsonQuery: orderedQuery, meta: { owner: 'ops' } });
    const plain = await api.report({ name: 'plain', jsonQuery: plainQuery });
    const sqlOnly = await api.report({ name: 'sql', sqlQuery: 'SELECT 1', meta: { a: 1 } });
    const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: { widgets: [widget('o', ordered.id), widget('p', plain.id), widget('s', sqlOnly.id)] },
    });
    const published = (await api.ok('GET', `/workbooks/${wb.id}`)).publishedDashboard;
    expect(published.reportSnapshots.map((s: { meta: unknown }) => s.meta)).toEqual([
      { owner: 'ops', jsonQuery: orderedQuery },
      { jsonQuery: plainQuery },
      { a: 1 },
    ]);
    const before = await widgetData(board.publicId, 'o');
    expect(before.query.order).toEqual([
      ['orders.status', 'desc'],
      ['orders.count', 'asc'],
    ]);
    const statuses = before.data.map((r: Record<string, string>) => r['orders.status']);
    expect(statuses).toEqual([...statuses].sort().reverse());

    // Back to the old storage: the query as text under meta.jsonQuery, as publishing wrote it.
    await migration.down(server.store.db as never);
    expect(await rawSnapshots(board.versionId)).toEqual([
      { report_id: ordered.id, meta: { owner: 'ops', jsonQuery: orderedQuery } },
      { report_id: plain.id, meta: { jsonQuery: plainQuery } },
      { report_id: sqlOnly.id, meta: { a: 1 } },
    ]);

    await migration.up(server.store.db as never);
    expect(await rawSnapshots(board.versionId)).toEqual([
      { report_id: ordered.id, meta: { owner: 'ops' } },
      { report_id: plain.id, meta: null },
      { report_id: sqlOnly.id, meta: { a: 1 } },
    ]);
    expect((await api.ok('GET', `/workbooks/${wb.id}`)).publishedDashboard).toEqual(published);
    expect(await widgetData(board.publicId, 'o')).toEqual(before);
    expect((await widgetData(board.publicId, 'p')).data).toEqual([{ 'orders.count': expect.any(String) }]);
  });

  it('leaves a jsonQuery that is not JSON in meta instead of failing the migration', async () => {
    const wb = await api.workbook('Broken board');
    const report = await api.report({ name: 'broken', sqlQuery: 'SELECT 1' });
    const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: { widgets: [widget('b', report.id)] },
    });
    await migration.down(server.store.db as never);
    await sql`update report_snapshots set meta = '{"jsonQuery": "{not json"}'
      where dashboard_version_id = ${board.versionId}`.execute(server.store.db);
    await migration.up(server.store.db as never);
    expect(await rawSnapshots(board.versionId)).toEqual([
      { report_id: report.id, meta: { jsonQuery: '{not json' } },
    ]);
  });
});
