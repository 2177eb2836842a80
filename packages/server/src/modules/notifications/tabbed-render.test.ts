import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { svgTexts } from '../../render/test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * A tabbed dashboard (settings.tabs, packages/dashboard settings.ts) exported as an image: every
 * tab is drawn, one under the other in tab order, each under its title, as the print view does.
 */
describe('a tabbed dashboard rendered for an export', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  async function api(method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) {
    const res = await server.app.inject({ method, url, headers: bearer(server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  it('draws every tab under its title, in tab order, with its widgets', async () => {
    const base = `/api/v1/deployments/${server.demoDeploymentId}`;
    const workbook = await api('POST', `${base}/workbooks`, { name: 'Tabbed export' });
    const report = await api('POST', `${base}/reports`, {
      name: 'Orders by status',
      jsonQuery: JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.status'] }),
      workbookId: workbook.id,
    });
    const at = { x: 0, y: 0, w: 6, h: 4 };
    const published = await api('POST', `${base}/workbooks/${workbook.id}/publish`, {
      workbookId: workbook.id,
      title: 'Tabbed export',
      config: {
        settings: {
          tabs: [
            { id: 'b', title: 'Breakdown' },
            { id: 'n', title: 'Notes' },
          ],
        },
        widgets: [
          { id: 'note', type: 'TEXT', position: at, config: { text: 'Read me first', tabId: 'n' } },
          { id: 'chart', type: 'CHART', position: at, config: { reportId: report.id, tabId: 'b' } },
        ],
      },
    });
    const file = await server.services.notifications.renderer.render({
      tenantId: server.tenantId,
      deploymentId: server.demoDeploymentId,
      dashboardPublicId: published.publicId,
      subject: { kind: 'user', userId: server.adminUserId },
      filters: null,
      timeGrains: null,
      format: 'png',
    });
    expect(file.failedWidgets).toEqual([]);
    const texts = svgTexts(file.svg);
    const order = ['Breakdown', 'Orders by status', 'Notes', 'Read me first'].map((t) =>
      texts.findIndex((x) => x.includes(t)),
    );
    expect(
      order.filter((i) => i < 0),
      JSON.stringify(texts),
    ).toEqual([]);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
