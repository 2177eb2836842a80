import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';
import { queries, statusSql, viewer } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** `POST .../reports/{id}/data`: a report's rows for whoever may view the report (issue 21 item 3). */
describe('report data', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  let workbookId: number;
  let semanticId: number;
  let sqlId: number;
  let emptyId: number;

  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, server.demoDeploymentId);
    workbookId = (await api.workbook('Reports for viewers')).id;
    semanticId = (await api.report({ name: 'status', jsonQuery: JSON.stringify(queries.status), workbookId }))
      .id;
    sqlId = (await api.report({ name: 'sql', sqlQuery: statusSql, workbookId })).id;
    emptyId = (await api.report({ name: 'empty', workbookId })).id;
  });
  afterAll(() => server?.close());

  const reportData = async (reportId: number, key = server.adminKey, body: Record<string, unknown> = {}) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/reports/${reportId}/data`,
      headers: bearer(key),
      payload: body,
    });
    return { status: res.statusCode, body: res.json() };
  };

  it("answers a viewer with view access the rows /v1/load answers for the report's query", async () => {
    const token = await tokenFor(server, server.demoDeploymentId, { securityContext: {} });
    const direct = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query: queries.status },
    });
    expect(direct.statusCode).toBe(200);
    const { data, annotation } = direct.json();
    expect(data.length).toBeGreaterThan(1);

    const outsider = await viewer(server);
    const refused = await reportData(semanticId, outsider.key);
    expect(refused.status).toBe(403);

    const reader = await viewer(server);
    await api.grant({ type: 'REPORT', id: semanticId, userId: reader.user.id, level: 'view' });
    const res = await reportData(semanticId, reader.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ reportId: semanticId, kind: 'semantic', annotation, data });
    expect(res.body.totalRows).toBe(data.length);

    const paged = await reportData(semanticId, reader.key, { limit: 1, offset: 1 });
    expect(paged.body.data).toEqual([data[1]]);
  });

  it('runs a SQL report through the SQL API', async () => {
    const reader = await viewer(server);
    await api.grant({ type: 'REPORT', id: sqlId, userId: reader.user.id, level: 'view' });
    const res = await reportData(sqlId, reader.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.kind).toBe('sql');
    expect(res.body.columns.map((c: { name: string }) => c.name)).toEqual(['status', 'n']);
    expect(res.body.data.length).toBeGreaterThan(1);
  });

  it('refuses a report without a query, an unknown one, one of another deployment, and bad paging', async () => {
    const empty = await reportData(emptyId);
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('report_without_query');
    expect((await reportData(2_000_000_000)).status).toBe(404);
    const other = await newDeployment(server, 'elsewhere');
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${other}/reports/${semanticId}/data`,
      headers: bearer(server.adminKey),
      payload: {},
    });
    expect(res.statusCode).toBe(404);
    const bad = await reportData(semanticId, server.adminKey, { limit: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('limit');
  });
});
