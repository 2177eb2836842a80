import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { publishBoard, queries, viewer, widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string>;

/** Dashboard data: widget rows, dashboard filters, time grains, 403/404. */
describe('dashboard widget data', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishBoard>>;
  let publicId: string;
  beforeAll(async () => {
    server = await startTestServer();
    board = await publishBoard(server);
    publicId = board.board.publicId;
  });
  afterAll(() => server?.close());

  const load = async (query: unknown) => {
    const token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('answers the rows of a direct /v1/load of the same query', async () => {
    const res = await widgetData(server, publicId, 'status');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const direct = await load(queries.status);
    expect(res.body.data).toEqual(direct.data);
    expect(res.body.data.length).toBeGreaterThan(1);
    expect(res.body).toMatchObject({
      widgetId: 'status',
      reportId: expect.any(Number),
      versionNumber: 1,
      kind: 'semantic',
      annotation: direct.annotation,
      totalRows: direct.data.length,
      lastRefreshTime: expect.any(String),
    });
    // A viewer that sends no body at all gets the widget as published.
    const bare = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${publicId}/widgets/status/data`,
      headers: bearer(server.adminKey),
    });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json().data).toEqual(direct.data);
    const paged = await widgetData(server, publicId, 'status', { limit: 1, offset: 1 });
    expect(paged.body.data).toEqual([direct.data[1]]);
    expect(paged.body.totalRows).toBe(direct.data.length);
  });

  it('narrows rows with dashboard filters ANDed to the report filters', async () => {
    const all = (await widgetData(server, publicId, 'status')).body.data as Row[];
    const first = all[0];
    const one = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.status', operator: 'equals', value: first['orders.status'] }],
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual([first]);
    expect(one.body.query.filters).toEqual([
      { member: 'orders.status', operator: 'equals', values: [first['orders.status']] },
    ]);
    const others = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.status', operator: 'notEquals', values: [first['orders.status']] }],
    });
    expect(others.body.data).toEqual(all.slice(1));
    // A filter on a joined member narrows too (default operator equals).
    const joined = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'customers.country', value: 'no-such-country' }],
    });
    expect(joined.body.data).toEqual([]);
    const unknown = await widgetData(server, publicId, 'status', {
      filters: [{ member: 'orders.nope', value: 'x' }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_member');
    expect(unknown.body.detail ?? unknown.body.title).toContain('orders.nope');
    const noValue = await widgetData(server, publicId, 'status', { filters: [{ member: 'orders.status' }] });
    expect(noValue.status).toBe(400);
  });

  it('replaces the granularity of the time dimension with a time-grain override', async () => {
    const yearly = await widgetData(server, publicId, 'yearly');
    expect(yearly.status, JSON.stringify(yearly.body)).toBe(200);
    const monthly = await widgetData(server, publicId, 'yearly', {
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    expect(monthly.status).toBe(200);
    expect(monthly.body.query.timeDimensions[0].granularity).toBe('month');
    expect(monthly.body.data.length).toBeGreaterThan(yearly.body.data.length);
    expect(Object.keys(monthly.body.data[0])).toContain('orders.created_at.month');
    const direct = await load({
      ...queries.yearly,
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    expect(monthly.body.data).toEqual(direct.data);
    // A grain on a member the widget does not group by leaves it alone.
    const other = await widgetData(server, publicId, 'status', {
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    expect(other.body.data).toEqual((await widgetData(server, publicId, 'status')).body.data);
    const bad = await widgetData(server, publicId, 'yearly', {
      timeGrains: [{ member: 'orders.when', grain: 'day' }],
    });
    expect(bad.status).toBe(400);
  });

  it('applies filters to SQL-API widgets by wrapping, and refuses time grains there', async () => {
    const all = await widgetData(server, publicId, 'sql');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.kind).toBe('sql');
    expect(all.body.columns.map((c: { name: string }) => c.name)).toEqual(['status', 'n']);
    const first = all.body.data[0] as Row;
    const one = await widgetData(server, publicId, 'sql', {
      filters: [{ member: 'status', value: first.status }],
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.data).toEqual([first]);
    const missing = await widgetData(server, publicId, 'sql', {
      filters: [{ member: 'orders.status', value: 'x' }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('unknown_column');
    const grains = await widgetData(server, publicId, 'sql', {
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    expect(grains.status).toBe(400);
    expect(grains.body.code).toBe('time_grain_unsupported');
  });

  it('answers 403 without view access and 404 for unknown or foreign dashboards, widgets and versions', async () => {
    const outsider = await viewer(server);
    expect((await widgetData(server, publicId, 'status', {}, outsider.key)).status).toBe(403);
    const insider = await viewer(server, { workbookId: board.workbook.id });
    expect((await widgetData(server, publicId, 'status', {}, insider.key)).status).toBe(200);
    expect((await widgetData(server, 'nope', 'status')).status).toBe(404);
    expect((await widgetData(server, publicId, 'nope')).status).toBe(404);
    expect((await widgetData(server, publicId, 'text')).status).toBe(404);
    expect((await widgetData(server, publicId, 'status', { versionNumber: 99 })).status).toBe(404);
    const other = await newDeployment(server, 'other');
    expect((await widgetData(server, publicId, 'status', {}, server.adminKey, other)).status).toBe(404);
    expect((await widgetData(server, publicId, 'status', {}, server.adminKey, 999_999)).status).toBe(404);
  });

  it('reads an older version by number after a new publish', async () => {
    const wb = board.workbook.id;
    const v1 = board.board.config;
    await board.api.ok('POST', `/workbooks/${wb}/publish`, {
      workbookId: wb,
      config: { ...v1, widgets: v1.widgets.filter((w: { id: string }) => w.id !== 'status') },
    });
    expect((await widgetData(server, publicId, 'status')).status).toBe(404);
    const old = await widgetData(server, publicId, 'status', { versionNumber: 1 });
    expect(old.status).toBe(200);
    expect(old.body.versionNumber).toBe(1);
  });
});
