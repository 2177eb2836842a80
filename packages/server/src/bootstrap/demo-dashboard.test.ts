import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../test/harness.ts';
import { tokenFor } from '../modules/data/test-support.ts';
import { DEMO_WORKBOOK_NAME, seedDemoDashboard } from './demo-dashboard.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, unknown>;

/** The demo dashboard: seeded through the services, every widget answers rows on the sample data. */
describe('demo dashboard', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof seedDemoDashboard>>;
  beforeAll(async () => {
    server = await startTestServer();
    board = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
  });
  afterAll(() => server?.close());

  const widgetData = async (widgetId: string, body: Record<string, unknown> = {}) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${board.publicId}/widgets/${widgetId}/data`,
      headers: bearer(server.adminKey),
      payload: body,
    });
    return { status: res.statusCode, body: res.json() };
  };

  it('publishes a workbook "Demo shop" with six report widgets placed at every breakpoint', async () => {
    expect(board.title).toBe(DEMO_WORKBOOK_NAME);
    expect(board.allowEmbed).toBe(true);
    expect(board.reportSnapshots).toHaveLength(6);
    const config = board.config as {
      layout: { cols: Record<string, number> };
      widgets: { id: string; responsiveLayouts: Record<string, { x: number; w: number }> }[];
    };
    expect(config.widgets).toHaveLength(6);
    for (const widget of config.widgets) {
      for (const [breakpoint, cols] of Object.entries(config.layout.cols)) {
        const at = widget.responsiveLayouts[breakpoint];
        expect(at, `${widget.id} at ${breakpoint}`).toBeDefined();
        expect(at.x + at.w, `${widget.id} fits ${breakpoint}`).toBeLessThanOrEqual(cols);
      }
    }
    // The workbook is listed like any other, with its published dashboard.
    const read = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${board.workbookId}`,
      headers: bearer(server.adminKey),
    });
    expect(read.statusCode).toBe(200);
    expect(read.json().name).toBe(DEMO_WORKBOOK_NAME);
    expect(read.json().publishedDashboard.publicId).toBe(board.publicId);
  });

  it('names each measure by its title in the model, and no two measures alike (issue 21)', async () => {
    const token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    const meta = await server.app.inject({
      method: 'GET',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta`,
      headers: { authorization: token },
    });
    const titles = new Map<string, string>(
      (meta.json().cubes as { measures: { name: string; shortTitle: string }[] }[]).flatMap((c) =>
        c.measures.map((m) => [m.name, m.shortTitle] as const),
      ),
    );
    // Two sums of money, two titles: neither is plain "Revenue".
    expect(titles.get('orders.total_amount')).toBe('Total order amount');
    expect(titles.get('line_items.revenue')).toBe('Line-item revenue');
    const named = new Map<string, string>();
    for (const s of board.reportSnapshots) {
      const name = String(s.name);
      const query = JSON.parse(String(s.meta?.jsonQuery)) as { measures?: string[] };
      const spec = s.spec ? JSON.stringify(JSON.parse(s.spec)) : '';
      for (const measure of query.measures ?? []) {
        const title = titles.get(measure)!;
        // A chart's axis and tooltip say the measure's title, never another measure's.
        if (spec !== '' && measure !== 'orders.count') {
          expect(spec, name).toContain(`"title":"${title}"`);
          // (the `sales` view's members are the same measures, under the same titles)
          for (const otherTitle of new Set(titles.values()))
            if (otherTitle !== title) expect(spec, name).not.toContain(`"title":"${otherTitle}"`);
        }
        expect(spec, name).not.toContain('"title":"Revenue"');
        if (named.has(name)) expect(named.get(name), name).toBe(measure);
        named.set(name, measure);
      }
    }
    expect(board.reportSnapshots.map((s) => s.name)).not.toContain('Revenue');
  });

  it('answers rows for every widget', async () => {
    const config = board.config as { widgets: { id: string }[] };
    const answers = await Promise.all(config.widgets.map((w) => widgetData(w.id)));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, `${config.widgets[i].id}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect(answer.body.data.length, config.widgets[i].id).toBeGreaterThan(0);
    }
    const byId = Object.fromEntries(config.widgets.map((w, i) => [w.id, answers[i].body.data as Row[]]));
    expect(byId.revenue).toHaveLength(1);
    expect(Number(byId.revenue[0]['orders.total_amount'])).toBeGreaterThan(0);
    // The sample orders span three years: 36 months.
    expect(byId['revenue-by-month']).toHaveLength(36);
    expect(byId['top-products']).toHaveLength(10);
    expect(byId['recent-orders']).toHaveLength(20);
    expect(new Set(byId['orders-by-status'].map((r) => r['orders.status']))).toEqual(
      new Set(['completed', 'shipped', 'processing', 'cancelled', 'returned']),
    );
  });

  it('takes the dashboard controls the viewer offers on every widget: a status, a date range, a grain', async () => {
    const config = board.config as { widgets: { id: string }[] };
    const state = {
      filters: [
        { member: 'orders.status', operator: 'equals', value: 'shipped' },
        { member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-06-30'] },
      ],
      timeGrains: [{ member: 'orders.created_at', grain: 'week' }],
    };
    for (const w of config.widgets) {
      const answer = await widgetData(w.id, state);
      expect(answer.status, `${w.id}: ${JSON.stringify(answer.body)}`).toBe(200);
      expect(answer.body.data.length, w.id).toBeGreaterThan(0);
    }
    const all = Number((await widgetData('revenue')).body.data[0]['orders.total_amount']);
    const shipped = Number((await widgetData('revenue', state)).body.data[0]['orders.total_amount']);
    expect(shipped).toBeGreaterThan(0);
    expect(shipped).toBeLessThan(all);
    const weekly = await widgetData('revenue-by-month', state);
    expect(Object.keys(weekly.body.data[0])).toContain('orders.created_at.week');
  });
});
