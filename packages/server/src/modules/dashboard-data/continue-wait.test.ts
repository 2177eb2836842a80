import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { contentClient } from '../workspace/test-client.ts';
import { widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** A cross join slow enough to outlast a continue-wait window of a few milliseconds. */
const slowModel = `
cubes:
  - name: slow_widget
    sql: "SELECT hash(a.range * 7919 + b.range) % 1000 AS v FROM range(0, 4000) a, range(0, 4000) b"
    measures:
      - name: total
        type: sum
        sql: v
`;
const query = { measures: ['slow_widget.total'] };

/**
 * Dashboard widgets run in-process through the data service: a query still running when the data
 * API would answer "Continue wait" is awaited, and the widget gets its rows in one request.
 */
describe('dashboard widget data for a query longer than the continue-wait window', () => {
  let server: TestServer;
  let publicId: string;
  let token: string;
  const executions = () =>
    (server.services.data as unknown as { deps: { executor: { executions: number } } }).deps.executor
      .executions;

  beforeAll(async () => {
    server = await startTestServer();
    token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    await server.store.db
      .insertInto('model_files')
      .values({
        deployment_id: server.demoDeploymentId,
        branch: 'main',
        path: 'model/slow.yml',
        content: slowModel,
      })
      .execute();
    const api = contentClient(server, server.demoDeploymentId);
    const wb = await api.workbook('Slow board');
    const report = await api.report({ name: 'slow', jsonQuery: JSON.stringify(query), workbookId: wb.id });
    const widgets = [{ id: 'slow', position: { x: 0, y: 0, w: 4, h: 4 }, config: { reportId: report.id } }];
    publicId = (
      await api.ok('POST', `/workbooks/${wb.id}/publish`, { workbookId: wb.id, config: { widgets } })
    ).publicId;
    // The insert's change notification drops the compiled model; wait until the new cube shows.
    for (let i = 0; i < 100; i++) {
      const meta = await server.app.inject({
        url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta`,
        headers: { authorization: token },
      });
      if (meta.json().cubes.some((c: { name: string }) => c.name === 'slow_widget')) break;
      await new Promise((r) => setTimeout(r, 30));
    }
  });
  afterAll(() => server?.close());
  afterEach(() => {
    Object.assign(server.services.data.settings, { continueWaitMs: 5_000 });
  });

  it('awaits the execution and answers the rows in one request', async () => {
    server.services.data.settings.continueWaitMs = 5;
    // The same query on the data API outlives the window: Cube's client would be told to wait.
    const raw = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query: { ...query, renewQuery: true, limit: 1 } },
    });
    expect(raw.statusCode).toBe(200);
    expect(raw.json()).toEqual({ error: 'Continue wait' });

    const before = executions();
    const widget = await widgetData(server, publicId, 'slow');
    expect(widget.status, JSON.stringify(widget.body)).toBe(200);
    expect(executions()).toBe(before + 1);
    expect(widget.body).toMatchObject({ widgetId: 'slow', kind: 'semantic', totalRows: 1 });
    expect(Number(widget.body.data[0]['slow_widget.total'])).toBeGreaterThan(0);

    // The rows are those of a plain /v1/load, which the finished execution now answers at once.
    server.services.data.settings.continueWaitMs = 5_000;
    const direct = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(widget.body.data).toEqual(direct.json().data);
  });
});
