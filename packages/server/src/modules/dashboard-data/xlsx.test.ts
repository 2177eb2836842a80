import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { publishBoard, viewer, widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * The tile menu's "Download XLSX" and "Refresh" (issue 23 item 3): a widget's rows as an Excel
 * workbook with the dashboard's state applied, and a widget re-run past the result cache.
 */
describe('widget downloads and refresh', () => {
  let server: TestServer;
  let publicId: string;
  let workbookId: number;

  beforeAll(async () => {
    server = await startTestServer();
    const published = await publishBoard(server);
    publicId = published.board.publicId;
    workbookId = published.workbook.id;
  });
  afterAll(() => server?.close());

  const xlsx = async (widgetId: string, body: Record<string, unknown> = {}, key = server.adminKey) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${publicId}/widgets/${widgetId}/xlsx`,
      headers: bearer(key),
      payload: body,
    });
    return res;
  };
  const sheetOf = async (payload: Buffer) => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(payload as unknown as ArrayBuffer);
    return book.worksheets[0];
  };

  it("writes the rows the tile shows, with the dashboard's filters, numbers as numbers and years as dates", async () => {
    const reader = await viewer(server, { workbookId });
    const body = { filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }] };
    const rows = await widgetData(server, publicId, 'yearly', body, reader.key);
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
    const data = rows.body.data as Record<string, string>[];
    expect(data.length).toBeGreaterThan(1);

    const res = await xlsx('yearly', body, reader.key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="yearly\.xlsx"/);
    const sheet = await sheetOf(res.rawPayload);
    expect(sheet.name).toBe('yearly');
    const header = sheet.getRow(1).values as unknown[];
    const { annotation } = rows.body;
    expect(header.slice(1)).toEqual([
      annotation.timeDimensions['orders.created_at.year'].shortTitle,
      annotation.measures['orders.count'].shortTitle,
    ]);
    expect(sheet.rowCount).toBe(data.length + 1);
    data.forEach((row, i) => {
      const cells = sheet.getRow(i + 2);
      const year = cells.getCell(1);
      expect(year.value).toBeInstanceOf(Date);
      expect((year.value as Date).toISOString().slice(0, 4)).toBe(row['orders.created_at.year'].slice(0, 4));
      expect(year.numFmt).toBe('yyyy');
      expect(cells.getCell(2).value).toBe(Number(row['orders.count']));
    });
    // The filter applied: the completed orders are fewer than all orders.
    const all = await widgetData(server, publicId, 'yearly', {}, reader.key);
    const total = (d: Record<string, string>[]) => d.reduce((n, r) => n + Number(r['orders.count']), 0);
    expect(total(data)).toBeLessThan(total(all.body.data));
  });

  it('writes a SQL widget by its columns', async () => {
    const res = await xlsx('sql');
    expect(res.statusCode, res.body).toBe(200);
    const sheet = await sheetOf(res.rawPayload);
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['status', 'n']);
    const rows = (await widgetData(server, publicId, 'sql')).body.data as Record<string, string>[];
    expect(sheet.rowCount).toBe(rows.length + 1);
    expect(sheet.getRow(2).getCell(1).value).toBe(rows[0].status);
    expect(sheet.getRow(2).getCell(2).value).toBe(Number(rows[0].n));
  });

  it('refuses a reader without access, an unknown widget, and any download once the account restricts them', async () => {
    const outsider = await viewer(server);
    const refused = await xlsx('yearly', {}, outsider.key);
    expect(refused.statusCode).toBe(403);
    expect((await xlsx('nope')).statusCode).toBe(404);
    const badBody = await xlsx('yearly', { limit: 0 });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json().errors?.[0]?.field ?? badBody.body).toContain('limit');

    const setRestricted = (restrictDataDownload: boolean) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/v1/app-config',
        headers: bearer(server.adminKey),
        payload: { restrictDataDownload },
      });
    expect((await setRestricted(true)).statusCode).toBe(200);
    try {
      const restricted = await xlsx('yearly');
      expect(restricted.statusCode).toBe(403);
      expect(restricted.json().code).toBe('data_download_restricted');
      // Viewing is not downloading: the tile still draws.
      expect((await widgetData(server, publicId, 'yearly')).status).toBe(200);
    } finally {
      await setRestricted(false);
    }
  });

  it('re-runs a widget past the result cache when asked to renew it', async () => {
    for (const widgetId of ['status', 'sql']) {
      const first = await widgetData(server, publicId, widgetId);
      const cached = await widgetData(server, publicId, widgetId);
      expect(cached.body.lastRefreshTime).toBe(first.body.lastRefreshTime);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const renewed = await widgetData(server, publicId, widgetId, { renewQuery: true });
      expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
      expect(Date.parse(renewed.body.lastRefreshTime)).toBeGreaterThan(
        Date.parse(first.body.lastRefreshTime),
      );
      expect(renewed.body.data).toEqual(first.body.data);
      // The renewed rows are the cache's from now on.
      const after = await widgetData(server, publicId, widgetId);
      expect(after.body.lastRefreshTime).toBe(renewed.body.lastRefreshTime);
    }
  });
});
