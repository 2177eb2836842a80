import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { seedDemoDashboard } from '../../bootstrap/demo-dashboard.ts';
import { svgTexts } from '../../render/test-support.ts';
import type { RenderedDashboardFile } from './renderer.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string | null>;

/**
 * The demo dashboard as a scheduled notification mails it (DESIGN.md "Notifications and
 * rendering"): what its reader sees in the image. The files are left in the temporary directory
 * for a person to look at.
 */
describe('the demo dashboard rendered for a notification', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof seedDemoDashboard>>;
  let png: RenderedDashboardFile;
  let pdf: RenderedDashboardFile;
  const outDir = path.join(os.tmpdir(), 'tessera-notification-output');

  beforeAll(async () => {
    server = await startTestServer();
    board = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    const request = {
      tenantId: server.tenantId,
      deploymentId: server.demoDeploymentId,
      dashboardPublicId: board.publicId,
      subject: { kind: 'user' as const, userId: server.adminUserId },
      filters: null,
      timeGrains: null,
    };
    png = await server.services.notifications.renderer.render({ ...request, format: 'png' });
    pdf = await server.services.notifications.renderer.render({ ...request, format: 'pdf' });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'demo-dashboard.png'), png.bytes);
    writeFileSync(path.join(outDir, 'demo-dashboard.pdf'), pdf.bytes);
  });
  afterAll(() => server?.close());

  /** The rows the web viewer shows in the "Recent orders" widget, read through the data API. */
  async function recentOrders(): Promise<Row[]> {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/dashboards/${board.publicId}/widgets/recent-orders/data`,
      headers: bearer(server.adminKey),
      payload: {},
    });
    expect(res.statusCode).toBe(200);
    return res.json().data as Row[];
  }

  it('draws every widget and no placeholder text', () => {
    expect(png.failedWidgets).toEqual([]);
    const texts = svgTexts(png.svg);
    for (const title of [
      'Demo shop',
      'Total order amount',
      'Order amount by month',
      'Recent orders',
      'Top products',
    ])
      expect(texts).toContain(title);
    for (const word of ['undefined', 'null', 'NaN']) {
      expect(texts.filter((t) => t.includes(word))).toEqual([]);
    }
  });

  it("follows a notification's time grain as the viewer does: the line at quarters, its axis and title too", async () => {
    const quarterly = await server.services.notifications.renderer.render({
      tenantId: server.tenantId,
      deploymentId: server.demoDeploymentId,
      dashboardPublicId: board.publicId,
      subject: { kind: 'user', userId: server.adminUserId },
      filters: null,
      timeGrains: [{ member: 'orders.created_at', grain: 'quarter' }],
      format: 'png',
    });
    expect(quarterly.failedWidgets).toEqual([]);
    const texts = svgTexts(quarterly.svg);
    // The stored spec names `orders.created_at.month`; the rows are keyed by `.quarter` now
    // (packages/dashboard chart-spec.ts renames the fields, as in the viewer).
    expect(texts).toContain('Order amount by quarter');
    expect(texts).not.toContain('Order amount by month');
    expect(texts.filter((t) => /^Q[1-4] \d{4}$/.test(t)).length).toBeGreaterThan(2);
    expect(texts.filter((t) => /undefined|NaN/.test(t))).toEqual([]);
  });

  it('draws "Recent orders" as a table: column titles, the first row formatted as the viewer does', async () => {
    const texts = svgTexts(png.svg);
    for (const heading of ['Id', 'Created At', 'Status', 'Country', 'Amount'])
      expect(texts).toContain(heading);
    const [first] = await recentOrders();
    const created = first['orders.created_at'] as string;
    // The viewer's time format: YYYY-MM-DD HH:mm (the date alone at midnight).
    const time = created.slice(11, 16);
    expect(texts).toContain(time === '00:00' ? created.slice(0, 10) : `${created.slice(0, 10)} ${time}`);
    // The report's column format: dollars with two decimal places.
    const amount = Number(first['orders.amount']);
    expect(texts).toContain(
      `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
    );
    expect(texts).toContain(String(first['orders.id']));
    expect(texts).toContain(first['orders.status']);
    expect(texts).toContain(first['customers.country']);
    // Twenty rows do not fit in a nine-row tile: the rest are counted.
    expect(texts.some((t) => /^and \d+ more rows$/.test(t))).toBe(true);
  });

  it('right-aligns the amounts and leaves the text columns left-aligned', async () => {
    const [first] = await recentOrders();
    const amount = `$${Number(first['orders.amount']).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    const cell = (text: string) =>
      new RegExp(`<text [^>]*>${text.replace(/[$.]/g, '\\$&')}</text>`).exec(png.svg)?.[0] ?? '';
    expect(cell(amount)).toContain('text-anchor="end"');
    expect(cell('Amount')).toContain('text-anchor="end"');
    expect(cell('Created At')).toMatch(/^<text x=/);
    expect(cell('Created At')).not.toContain('text-anchor');
    expect(cell(first['customers.country'] as string)).not.toContain('text-anchor');
  });

  it('keeps a 24-pixel page margin: nothing but the background at the edges, the title inside it', () => {
    const image = PNG.sync.read(png.bytes);
    const background = [0xf5, 0xf7, 0xfa];
    const drawn = (x: number, y: number) => {
      const i = (y * image.width + x) * 4;
      return background.some((c, k) => Math.abs(image.data[i + k] - c) > 2);
    };
    let firstColumn = image.width;
    let firstRow = image.height;
    let lastColumn = -1;
    let lastRow = -1;
    for (let y = 0; y < image.height; y++)
      for (let x = 0; x < image.width; x++)
        if (drawn(x, y)) {
          firstColumn = Math.min(firstColumn, x);
          firstRow = Math.min(firstRow, y);
          lastColumn = Math.max(lastColumn, x);
          lastRow = Math.max(lastRow, y);
        }
    expect(firstColumn).toBeGreaterThanOrEqual(24);
    expect(firstRow).toBeGreaterThanOrEqual(24);
    expect(lastColumn).toBeLessThan(image.width - 24);
    expect(lastRow).toBeLessThan(image.height - 24);
    // The title is the first thing drawn at the top, and starts at the margin's edge.
    const title = /<g transform="translate\((\d+),(\d+)\)"><text x="([\d.]+)"[^>]*>Demo shop<\/text>/.exec(
      png.svg,
    );
    expect(title).not.toBeNull();
    expect(Number(title?.[1]) + Number(title?.[3])).toBeGreaterThanOrEqual(24);
    expect(Number(title?.[2])).toBeGreaterThanOrEqual(24);
  });

  it('writes the table into the PDF as text', async () => {
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.bytes)), {
      mergePages: true,
    });
    expect(text).toContain('Created At');
    expect(text).toContain('Recent orders');
    expect(text).not.toContain('undefined');
  });
});
