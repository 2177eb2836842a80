import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { bearer } from '../../server/test/harness.ts';
import { chartSpec, titleAtGrain } from '../src/dashboard/chart-spec.ts';
import { crossFilterMember, pickedValue, toggleCrossFilter } from '../src/dashboard/cross-filter.ts';
import { toCsv } from '../src/dashboard/csv.ts';
import { gridSettings } from '../src/dashboard/layout.ts';
import { parseState, stateFilters, writeState } from '../src/dashboard/view-state.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

type Row = Record<string, unknown>;
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface Place {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The viewer's pure parts: what goes to the server and into files. */
describe('dashboard viewer parts', () => {
  it('keeps the controls in the query string and reads them back', () => {
    const state = parseState(
      '?tab=1&f.orders.status=shipped&c.customers.country=d%2Ce&from.orders.created_at=2024-01-01&grain.orders.created_at=week&grain.x=fortnight&from.y=yesterday',
    );
    expect(state).toEqual({
      equals: { 'orders.status': 'shipped' },
      contains: { 'customers.country': 'd,e' },
      ranges: { 'orders.created_at': { from: '2024-01-01' } },
      grains: { 'orders.created_at': 'week' },
    });
    const search = writeState('?tab=1&f.old=x', state);
    expect(new URLSearchParams(search).get('tab')).toBe('1');
    expect(new URLSearchParams(search).get('f.old')).toBeNull();
    expect(parseState(search)).toEqual(state);
    expect(stateFilters(state)).toEqual([
      { member: 'orders.status', operator: 'equals', value: 'shipped' },
      { member: 'customers.country', operator: 'contains', value: 'd,e' },
      { member: 'orders.created_at', operator: 'afterOrOnDate', values: ['2024-01-01'] },
    ]);
    // A select's own values are listed without its own filter.
    expect(stateFilters(state, 'orders.status').map((f) => f.member)).not.toContain('orders.status');
  });

  it('cross-filters by the member a chart stands for, and picks the same value again to remove it (issue 23 item 3)', () => {
    const bars = {
      encoding: {
        y: { field: 'orders\\.status', type: 'nominal' },
        x: { field: 'orders\\.count', type: 'quantitative' },
      },
    };
    expect(crossFilterMember(bars, ['orders.status', 'orders.count'])).toBe('orders.status');
    const pie = {
      encoding: {
        theta: { field: 'revenue', type: 'quantitative' },
        color: { field: 'products\\.category', type: 'nominal' },
      },
    };
    expect(crossFilterMember(pie, ['products.category', 'revenue'])).toBe('products.category');
    const line = { encoding: { x: { field: 'orders\\.created_at\\.month', type: 'temporal' } } };
    expect(crossFilterMember(line, ['orders.created_at.month'])).toBeNull();
    expect(crossFilterMember(bars, ['orders.count'])).toBeNull();

    const row = { 'orders.status': 'shipped', 'orders.count': 3 };
    expect(pickedValue({ datum: row, mark: { role: 'mark' } }, 'orders.status')).toBe('shipped');
    expect(
      pickedValue(
        { datum: { value: 'toys', label: 'toys' }, mark: { role: 'legend-label' } },
        'products.category',
      ),
    ).toBe('toys');
    expect(pickedValue({ datum: { value: 3 }, mark: { role: 'axis-label' } }, 'orders.status')).toBeNull();
    expect(pickedValue(null, 'orders.status')).toBeNull();

    const picked = toggleCrossFilter(
      parseState('?c.orders.status=ship&f.customers.country=DE'),
      'orders.status',
      'shipped',
    );
    expect(writeState('', picked)).toBe('?f.customers.country=DE&f.orders.status=shipped');
    expect(writeState('', toggleCrossFilter(picked, 'orders.status', 'shipped'))).toBe(
      '?f.customers.country=DE',
    );
  });

  it('writes CSV by RFC 4180 and defuses spreadsheet formulas', () => {
    const table = {
      columns: [
        { name: 'a.name', title: 'Name', kind: 'string' as const },
        { name: 'a.n', title: 'N', kind: 'measure' as const },
      ],
      rows: [
        { 'a.name': 'plain', 'a.n': 1.5 },
        { 'a.name': 'comma, "quoted"\nline', 'a.n': -2 },
        { 'a.name': '=HYPERLINK("x")', 'a.n': null },
      ],
    };
    expect(toCsv(table, { raw: true })).toBe(
      'a.name,a.n\r\nplain,1.5\r\n"comma, ""quoted""\nline",-2\r\n"\'=HYPERLINK(""x"")",\r\n',
    );
    expect(toCsv(table)).toBe(
      'Name,N\r\nplain,1.5\r\n"comma, ""quoted""\nline",-2\r\n"\'=HYPERLINK(""x"")",\r\n',
    );
  });

  it("writes CSV for a person: members' titles, values in the model's formats, times at their grain (issue 21)", () => {
    const csv = toCsv({
      columns: [
        { name: 'o.created_at.quarter', title: 'Created at', kind: 'time', grain: 'quarter' },
        { name: 'o.day', title: 'Day', kind: 'time', grain: 'day' },
        { name: 'o.total', title: 'Total order amount', kind: 'measure', format: 'currency' },
        { name: 'o.share', title: 'Share', kind: 'measure', format: 'percent' },
        { name: 'o.count', title: 'Count', kind: 'measure' },
      ],
      rows: [
        {
          'o.created_at.quarter': '2024-04-01T00:00:00.000',
          'o.day': '2024-05-06T00:00:00.000',
          'o.total': 21866204.57,
          'o.share': 0.125,
          'o.count': 1234,
        },
      ],
    });
    expect(csv).toBe(
      'Created at,Day,Total order amount,Share,Count\r\n2024-Q2,2024-05-06,"$21,866,204.57",12.5%,"1,234"\r\n',
    );
  });

  it('titles and labels a chart at the grain it draws (issue 21)', () => {
    expect(titleAtGrain('Order amount by month', 'month', 'quarter')).toBe('Order amount by quarter');
    expect(titleAtGrain('Monthly orders', 'month', 'week')).toBe('Weekly orders');
    expect(titleAtGrain('Orders over time', 'month', 'year')).toBe('Orders over time');
    expect(titleAtGrain('Order amount by month', 'month', 'month')).toBe('Order amount by month');
    const spec = {
      mark: 'line',
      encoding: {
        x: { field: 'orders\\.created_at\\.month', type: 'temporal', axis: { format: '%b %Y' } },
        y: { field: 'orders\\.total_amount', type: 'quantitative' },
        tooltip: [{ field: 'orders\\.created_at\\.month', type: 'temporal', title: 'Period' }],
      },
    };
    const rows = [{ 'orders.created_at.quarter': '2024-01-01T00:00:00.000', 'orders.total_amount': 3 }];
    const ready = chartSpec(spec, rows, ['orders.created_at.quarter', 'orders.total_amount'], {
      'orders.created_at': 'quarter',
    }) as { encoding: Record<string, unknown> };
    expect(ready.encoding.x).toEqual({
      field: 'orders\\.created_at\\.quarter',
      type: 'temporal',
      axis: { format: 'Q%q %Y', tickCount: { interval: 'month', step: 3 } },
    });
    expect(ready.encoding.tooltip).toEqual([
      { field: 'orders\\.created_at\\.quarter', type: 'temporal', title: 'Period', format: 'Q%q %Y' },
    ]);
    // At the published grain the spec's own axis format stays; ticks follow the months.
    const published = chartSpec(spec, [], ['orders.created_at.month', 'orders.total_amount'], {}) as {
      encoding: Record<string, unknown>;
    };
    expect(published.encoding.x).toEqual({
      field: 'orders\\.created_at\\.month',
      type: 'temporal',
      axis: { format: '%b %Y', tickCount: { interval: 'month', step: 1 } },
    });
  });

  it('points chart fields at the row keys, following a time-grain override', () => {
    const spec = {
      mark: 'line',
      data: { values: [{ stale: 1 }] },
      encoding: {
        x: { field: 'orders.created_at.month', type: 'temporal', timeUnit: 'yearmonth' },
        y: { field: 'orders\\.count', type: 'quantitative' },
        color: { field: 'other', type: 'nominal' },
      },
    };
    const rows = [{ 'orders.created_at.week': '2024-01-01T00:00:00.000', 'orders.count': 3 }];
    const ready = chartSpec(spec, rows, ['orders.created_at.week', 'orders.count'], {
      'orders.created_at': 'week',
    });
    expect(ready).toEqual({
      mark: 'line',
      data: { values: rows },
      encoding: {
        x: { field: 'orders\\.created_at\\.week', type: 'temporal', timeUnit: 'yearweek' },
        y: { field: 'orders\\.count', type: 'quantitative' },
        color: { field: 'other', type: 'nominal' },
      },
    });
  });

  it('places widgets from responsiveLayouts, else from position scaled, stacked on narrow grids', () => {
    const grid = gridSettings({ layout: { cols: { lg: 12, sm: 6 }, margin: [8] } }, [
      {
        id: 'a',
        position: { x: 0, y: 0, w: 6, h: 2 },
        responsiveLayouts: { md: { x: 1, y: 0, w: 20, h: 3 } },
      },
      { id: 'b', position: { x: 6, y: 0, w: 6, h: 4 } },
    ]);
    expect(grid.margin).toEqual([8, 8]);
    const place = (b: 'lg' | 'md' | 'sm' | 'xs', id: string) => {
      const item = grid.layouts[b]?.find((i) => i.i === id);
      return item && { x: item.x, y: item.y, w: item.w, h: item.h };
    };
    expect(place('lg', 'b')).toEqual({ x: 6, y: 0, w: 6, h: 4 });
    // Wider than the md grid's 10 columns: kept inside it.
    expect(place('md', 'a')).toEqual({ x: 0, y: 0, w: 10, h: 3 });
    expect(place('sm', 'b')).toEqual({ x: 3, y: 0, w: 3, h: 4 });
    expect(place('xs', 'a')).toEqual({ x: 0, y: 0, w: 4, h: 2 });
    expect(place('xs', 'b')).toEqual({ x: 0, y: 2, w: 4, h: 4 });
  });
});

const password = 'dashboards are for looking at';

describeInBrowser('dashboard viewer in the browser', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let demo: Awaited<ReturnType<typeof seedDemoDashboard>>;
  let broken: { publicId: string; detail: string };

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** The widget's rows as the endpoint answers the admin, for comparing with the page. */
  async function rows(
    publicId: string,
    widgetId: string,
    body: Record<string, unknown> = {},
  ): Promise<Row[]> {
    const answer = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/dashboards/${publicId}/widgets/${widgetId}/data`,
      body,
    );
    return answer.data;
  }

  /**
   * Every tile shows what `POST /v1/load` answers for its report's query with the status filter,
   * and what the widget-data endpoint answers with the same dashboard filter.
   */
  async function expectEveryTileFiltered(status: string) {
    // The report's query as published with the dashboard (spec 2.3 snapshots, `meta.jsonQuery`).
    const published = demo as unknown as {
      config: { widgets: { id: string; config: { reportId: number } }[] };
      reportSnapshots: { reportId: number; meta: { jsonQuery: string | { filters?: unknown[] } } }[];
    };
    const queryOf = (widgetId: string): { filters?: unknown[] } => {
      const widget = published.config.widgets.find((w) => w.id === widgetId);
      const raw = published.reportSnapshots.find((r) => r.reportId === widget?.config.reportId)?.meta
        .jsonQuery;
      return typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {});
    };
    const page = browser.page;
    const filter = { member: 'orders.status', operator: 'equals', values: [status] };
    const { serviceApiToken } = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {});
    const load = async (widgetId: string): Promise<Row[]> => {
      const query = { ...queryOf(widgetId), filters: [...(queryOf(widgetId).filters ?? []), filter] };
      const res = await web.server.app.inject({
        method: 'POST',
        url: `/data/${deploymentId}/cubejs-api/v1/load`,
        headers: { authorization: serviceApiToken },
        payload: { query },
      });
      expect(res.statusCode).toBe(200);
      return res.json().data;
    };
    const dashboardFilter = { filters: [{ member: 'orders.status', operator: 'equals', value: status }] };
    const loaded: Record<string, Row[]> = {};
    for (const id of Object.keys(await tileStates(page))) {
      loaded[id] = await load(id);
      expect(await rows(demo.publicId, id, dashboardFilter), id).toEqual(loaded[id]);
    }
    expect(await figure(page)).toBe(dollars(loaded.revenue[0]['orders.total_amount']));
    expect(loaded['orders-by-status'].map((r) => r['orders.status'])).toEqual([status]);
    const drawn = async (widgetId: string, selector: string) =>
      page.locator(`[data-widget-id="${widgetId}"] svg ${selector}`).count();
    expect(await drawn('orders-by-status', '.mark-rect path')).toBe(1);
    expect(await drawn('revenue-by-month', '.mark-symbol path')).toBe(loaded['revenue-by-month'].length);
    expect(await drawn('revenue-by-category', '.mark-arc path')).toBe(loaded['revenue-by-category'].length);
    expect(await drawn('top-products', '.mark-rect path')).toBe(loaded['top-products'].length);
    const ids = await page.$$eval('[data-widget-id="recent-orders"] tbody tr td:first-child', (cells) =>
      cells.map((c) => c.textContent),
    );
    expect(ids).toEqual(loaded['recent-orders'].map((r) => String(r['orders.id'])));
    for (const row of loaded['recent-orders']) expect(row['orders.status']).toBe(status);
  }

  const dashboardUrl = (publicId: string, query = '') =>
    `${web.baseUrl}/dashboards/${deploymentId}/${publicId}${query}`;

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    demo = await seedDemoDashboard(web.server.services, {
      tenantId: web.server.tenantId,
      userId: web.server.adminUserId,
      deploymentId,
    });
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });

    // A board whose first report asks for a member the model does not have: its query fails.
    const base = `/api/v1/deployments/${deploymentId}`;
    const workbook = await api('POST', `${base}/workbooks`, { name: 'Broken board' });
    const bad = await api('POST', `${base}/reports`, {
      name: 'Misspelt measure',
      jsonQuery: JSON.stringify({ measures: ['orders.revenue_typo'] }),
      workbookId: workbook.id,
    });
    const good = await api('POST', `${base}/reports`, {
      name: 'Orders',
      jsonQuery: JSON.stringify({ measures: ['orders.count'] }),
      workbookId: workbook.id,
    });
    const board = await api('POST', `${base}/workbooks/${workbook.id}/publish`, {
      workbookId: workbook.id,
      config: {
        widgets: [
          { id: 'bad', position: { x: 0, y: 0, w: 6, h: 4 }, config: { reportId: bad.id } },
          { id: 'good', position: { x: 6, y: 0, w: 6, h: 4 }, config: { reportId: good.id } },
          { id: 'rule', type: 'DIVIDER', position: { x: 0, y: 4, w: 12, h: 1 } },
          {
            id: 'note',
            type: 'TEXT',
            position: { x: 0, y: 5, w: 12, h: 2 },
            config: { text: 'Counts include every status.' },
          },
        ],
      },
    });
    const failure = await web.server.app.inject({
      method: 'POST',
      url: `${base}/dashboards/${board.publicId}/widgets/bad/data`,
      headers: bearer(web.server.adminKey),
      payload: {},
    });
    expect(failure.statusCode).toBe(400);
    broken = { publicId: board.publicId, detail: failure.json().detail };

    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    // Signed in through the sign-in page, as a person would.
    const { page } = browser;
    await page.goto(dashboardUrl(demo.publicId));
    await page.waitForURL(/\/sign-in\?next=/);
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(dashboardUrl(demo.publicId));
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('draws every widget of the demo dashboard: a figure, charts and a table', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'Demo shop', level: 1 }).waitFor();
    await settled(page, 6);
    expect(await tileStates(page)).toEqual({
      revenue: 'drawn',
      'revenue-by-month': 'drawn',
      'revenue-by-category': 'drawn',
      'orders-by-status': 'drawn',
      'top-products': 'drawn',
      'recent-orders': 'drawn',
    });
    const [total] = await rows(demo.publicId, 'revenue');
    expect(await figure(page)).toBe(dollars(total['orders.total_amount']));
    // One SVG path per month on the line, one bar per status, one arc per category.
    const months = await rows(demo.publicId, 'revenue-by-month');
    expect(await page.locator('[data-widget-id="revenue-by-month"] svg .mark-symbol path').count()).toBe(
      months.length,
    );
    const statuses = await rows(demo.publicId, 'orders-by-status');
    expect(await page.locator('[data-widget-id="orders-by-status"] svg .mark-rect path').count()).toBe(
      statuses.length,
    );
    const categories = await rows(demo.publicId, 'revenue-by-category');
    expect(await page.locator('[data-widget-id="revenue-by-category"] svg .mark-arc path').count()).toBe(
      categories.length,
    );
    const recent = await rows(demo.publicId, 'recent-orders');
    const table = page.locator('[data-widget-id="recent-orders"] table');
    expect(await table.locator('tbody tr').count()).toBe(recent.length);
    expect(await table.locator('tbody tr').first().locator('td').first().textContent()).toBe(
      String(recent[0]['orders.id']),
    );
    await browser.screenshot('dashboard-01-demo');
  });

  it('re-queries the widgets when a filter or a time grain changes, and keeps them in the link', async () => {
    const { page } = browser;
    const before = await figure(page);
    await page.locator('[data-control="orders.status"] select').selectOption('shipped');
    await page.waitForFunction(
      (text) => document.querySelector('[data-widget-id="revenue"] .tsr-figure-value')?.textContent !== text,
      before,
    );
    await settled(page, 6);
    const status = [{ member: 'orders.status', operator: 'equals', value: 'shipped' }];
    const [shipped] = await rows(demo.publicId, 'revenue', { filters: status });
    expect(await figure(page)).toBe(dollars(shipped['orders.total_amount']));
    expect(await figure(page)).not.toBe(before);
    expect(await page.locator('[data-widget-id="orders-by-status"] svg .mark-rect path').count()).toBe(1);

    await page
      .locator('[data-control="orders.created_at"][data-kind="grain"] select')
      .selectOption('quarter');
    const quarters = await rows(demo.publicId, 'revenue-by-month', {
      filters: status,
      timeGrains: [{ member: 'orders.created_at', grain: 'quarter' }],
    });
    await page.waitForFunction(
      (count) =>
        document.querySelectorAll('[data-widget-id="revenue-by-month"] svg .mark-symbol path').length ===
        count,
      quarters.length,
    );
    await settled(page, 6);
    expect(quarters.length).toBe(12);
    // The title and the axis follow the grain drawn (issue 21): quarter ticks labelled as quarters.
    expect(await page.locator('[data-widget-id="revenue-by-month"] h3').textContent()).toBe(
      'Order amount by quarter',
    );
    const labels = await axisLabels(page, 'revenue-by-month');
    expect(labels.length).toBeGreaterThan(1);
    for (const label of labels) expect(label).toMatch(/^Q[1-4] \d{4}$/);
    const search = new URL(page.url()).searchParams;
    expect(search.get('f.orders.status')).toBe('shipped');
    expect(search.get('grain.orders.created_at')).toBe('quarter');
    await browser.screenshot('dashboard-02-filtered');

    // The link reproduces the view.
    await page.reload();
    await settled(page, 6);
    expect(await figure(page)).toBe(dollars(shipped['orders.total_amount']));
    expect(await page.locator('[data-control="orders.status"] select').inputValue()).toBe('shipped');
    expect(await page.locator('[data-widget-id="revenue-by-month"] svg .mark-symbol path').count()).toBe(12);

    // Numbers get no control; every country fits in one list (the dashboard's dimension values,
    // read in one request).
    expect(await page.locator('[data-control="orders.id"]').count()).toBe(0);
    expect(await page.locator('[data-control="customers.country"]').getAttribute('data-kind')).toBe('select');
    expect(await page.locator('[data-control="customers.country"] option').count()).toBeGreaterThan(2);
    // A text filter from a link that matches nothing empties the table; Reset brings everything back.
    const link = new URL(page.url());
    link.search = '?c.customers.country=no+such+country';
    await page.goto(link.toString());
    expect(await page.locator('[data-control="customers.country"] input').inputValue()).toBe(
      'no such country',
    );
    await page.waitForSelector('[data-widget-id="recent-orders"][data-state="empty"]');
    await settled(page, 6);
    expect(await page.locator('[data-widget-id="recent-orders"]').textContent()).toContain(
      'No data for these filters',
    );
    expect(await page.locator('[data-widget-id="revenue"]').getAttribute('data-state')).toBe('empty');
    await browser.screenshot('dashboard-03-empty');
    await page.getByRole('button', { name: 'Reset' }).click();
    await settled(page, 6);
    expect(await figure(page)).toBe(before);
    expect(new URL(page.url()).search).toBe('');
  });

  it('downloads a tile as CSV from the rows it drew', async () => {
    const { page } = browser;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-widget-id="orders-by-status"] .tsr-download').click(),
    ]);
    expect(download.suggestedFilename()).toBe('Orders-by-status.csv');
    const text = readFileSync(await download.path(), 'utf8');
    const statuses = await rows(demo.publicId, 'orders-by-status');
    // The members' titles and formatted values (issue 21), not member names and raw values.
    const quote = (v: string) => (v.includes(',') ? `"${v}"` : v);
    expect(text).toBe(
      `Status,Count\r\n${statuses.map((r) => `${r['orders.status']},${quote(Number(r['orders.count']).toLocaleString('en-US'))}\r\n`).join('')}`,
    );
    // A chart's rows as the server sent them: Vega's parsing of dates does not leak into the file.
    const [monthly] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('[data-widget-id="revenue-by-month"] .tsr-download').click(),
    ]);
    const lines = readFileSync(await monthly.path(), 'utf8')
      .trim()
      .split('\r\n');
    const months = await rows(demo.publicId, 'revenue-by-month');
    expect(lines[0]).toBe('Created At,Total order amount');
    const dollars2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    expect(lines.slice(1)).toEqual(
      months.map(
        (r) =>
          `${String(r['orders.created_at.month']).slice(0, 7)},"${dollars2.format(Number(r['orders.total_amount']))}"`,
      ),
    );
  });

  it("lists every filter's values under a chosen country, and says when a listing fails (issue 21)", async () => {
    const { page } = browser;
    await page.goto(dashboardUrl(demo.publicId));
    await settled(page, 6);
    const category = page.locator('[data-control="products.category"] select');
    const product = page.locator('[data-control="products.name"]');
    const categories = await category.locator('option').allTextContents();
    expect(categories.length).toBeGreaterThan(2);
    const listed = page.waitForResponse(
      (r) => r.url().endsWith('/dimension-values') && (r.request().postData() ?? '').includes('"filters":[{'),
    );
    await page.locator('[data-control="customers.country"] select').selectOption({ index: 1 });
    expect((await listed).status()).toBe(200);
    await settled(page, 6);
    // Products join customers through no cube of their own: listed without the country, and said so.
    expect(await category.locator('option').allTextContents()).toEqual(categories);
    expect(await page.locator('[data-control="products.category"]').textContent()).toContain(
      'Not narrowed by Customers country',
    );
    expect(await product.locator('option, input').count()).toBeGreaterThan(0);
    await browser.screenshot('dashboard-08-country-chosen');

    // A listing that fails says so beside the filters; the lists on the page stay.
    await page.route('**/dimension-values', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/problem+json',
        body: JSON.stringify({ title: 'Service Unavailable', status: 503, detail: 'Listing is down' }),
      }),
    );
    const failed = page.waitForResponse((r) => r.url().endsWith('/dimension-values') && r.status() === 503);
    await page.locator('[data-control="orders.status"] select').selectOption('returned');
    await failed;
    const alert = page.locator('form[aria-label="Dashboard filters"] [role="alert"]');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Listing is down');
    expect(await category.locator('option').allTextContents()).toEqual(categories);
    await browser.screenshot('dashboard-09-listing-failed');
    await page.setViewportSize({ width: 400, height: 900 });
    await settled(page, 6);
    await browser.screenshot('dashboard-09-listing-failed-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.unroute('**/dimension-values');
  });

  it("offers each tile's rows as a table, as CSV and in Explore from its menu (issue 23 item 3)", async () => {
    const { page } = browser;
    const tile = page.locator('[data-widget-id="orders-by-status"]');
    const bars = await tile.locator('svg .mark-rect path').count();
    expect(bars).toBeGreaterThan(0);
    const more = tile.getByRole('button', { name: /^More for/ });
    await more.click();
    await tile.getByRole('button', { name: 'View as table' }).click();
    // The rows the chart drew, one table row per bar; and back to the chart.
    await expect.poll(() => tile.locator('table tbody tr').count()).toBe(bars);
    expect(await more.evaluate((b) => b === document.activeElement)).toBe(true);
    await more.click();
    await tile.getByRole('button', { name: 'View as chart' }).click();
    await expect.poll(() => tile.locator('svg .mark-rect path').count()).toBe(bars);
    await more.click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      tile.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Orders-by-status.csv');

    // The same rows as a spreadsheet, made by the server: one row per bar, counts as numbers.
    await more.click();
    const [xlsx] = await Promise.all([
      page.waitForEvent('download'),
      tile.getByRole('button', { name: 'Download XLSX' }).click(),
    ]);
    expect(xlsx.suggestedFilename()).toBe('Orders-by-status.xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(await xlsx.path());
    const sheet = book.worksheets[0];
    expect(sheet.rowCount).toBe(bars + 1);
    expect(typeof sheet.getRow(2).getCell(2).value).toBe('number');

    // Refresh runs the query again past the cache and redraws the same bars.
    await more.click();
    const renewed = page.waitForRequest(
      (r) => r.url().includes('/widgets/orders-by-status/data') && r.postDataJSON()?.renewQuery === true,
    );
    await tile.getByRole('button', { name: 'Refresh' }).click();
    expect((await (await renewed).response())?.status()).toBe(200);
    await expect.poll(() => tile.getAttribute('data-state')).toBe('drawn');
    await expect.poll(() => tile.locator('svg .mark-rect path').count()).toBe(bars);

    await more.click();
    const href = (await tile.getByRole('link', { name: 'Open in Explore' }).getAttribute('href')) ?? '';
    expect(href.startsWith(`/explore/${deploymentId}?q=`)).toBe(true);
    expect(decodeURIComponent(href)).toContain('orders.count');
    await page.keyboard.press('Escape');
    await expect.poll(() => tile.getByRole('link', { name: 'Open in Explore' }).count()).toBe(0);
  });

  it("creates an alert on a tile's measure from its menu, with the server's problem beside its field (issue 23 item 6)", async () => {
    const { page } = browser;
    const tile = page.locator('[data-widget-id="orders-by-status"]');
    await tile.getByRole('button', { name: /^More for/ }).click();
    await tile.getByRole('button', { name: 'Create alert' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create alert' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByLabel('Measure').inputValue()).toBe('orders.count');
    // Offered by the title the tile shows (the measure's short title), not the member's name.
    expect(await dialog.getByLabel('Measure').locator('option:checked').textContent()).toBe('Count');
    // No threshold: the server's 400 names condition/threshold, shown under that field.
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    const threshold = dialog.getByLabel('Threshold');
    await expect.poll(() => threshold.getAttribute('aria-invalid')).toBe('true');
    // The signed-in admin's own address is the default recipient, and is accepted.
    expect(await dialog.locator('.field-error').allTextContents()).toEqual([
      'is required when type is above',
    ]);
    await threshold.fill('25');
    await dialog.getByLabel('Email to').fill('watcher@example.com');
    await browser.screenshot('dashboard-12-create-alert');
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    // Created: the dialog closes and the tile says what was made.
    await expect.poll(() => dialog.count()).toBe(0);
    await expect
      .poll(() => tile.getByRole('status').textContent())
      .toMatch(/^Alert “.+” created: At 12:00 AM\.$/);
    const alerts = await api('GET', `/api/v1/deployments/${deploymentId}/alerts?first=10`);
    expect(alerts.items).toEqual([
      expect.objectContaining({
        query: { measure: 'orders.count' },
        condition: { type: 'above', threshold: 25 },
        scheduleType: 'DAILY',
        recipients: [{ userId: null, email: 'watcher@example.com' }],
      }),
    ]);
  });

  it("adds a webhook recipient (URL and secret) to an alert, with the server's problems beside those fields", async () => {
    const { page } = browser;
    const tile = page.locator('[data-widget-id="orders-by-status"]');
    await tile.getByRole('button', { name: /^More for/ }).click();
    await tile.getByRole('button', { name: 'Create alert' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create alert' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByLabel('Threshold').fill('40');
    await dialog.getByLabel('Email to').fill('');
    const url = dialog.getByLabel('Webhook URL');
    const secret = dialog.getByLabel('Webhook secret');
    const signingSecret = 'dialog-webhook-secret-0123';
    // A URL the browser takes but the server does not: its problem beside the URL.
    await url.fill('ftp://hooks.example.com/tessera');
    await secret.fill(signingSecret);
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.locator('.field-error').allTextContents()).toEqual([
      'must be an http or https URL without credentials',
    ]);
    // A secret too short to sign with: its problem beside the secret, and the URL's is gone.
    await url.fill('https://hooks.example.com/tessera');
    await secret.fill('short');
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    await expect.poll(() => secret.getAttribute('aria-invalid')).toBe('true');
    expect(await url.getAttribute('aria-invalid')).toBe('false');
    expect(await dialog.locator('.field-error').count()).toBe(1);
    await secret.fill(signingSecret);
    await browser.screenshot('dashboard-13-alert-webhook');
    await dialog.getByRole('button', { name: 'Create alert' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    const alerts = await api('GET', `/api/v1/deployments/${deploymentId}/alerts?first=10`);
    expect(alerts.items[0]).toMatchObject({
      condition: { type: 'above', threshold: 40 },
      recipients: [{ userId: null, email: null, url: 'https://hooks.example.com/tessera' }],
    });
    expect(JSON.stringify(alerts)).not.toContain(signingSecret);
  });

  it('cross-filters the whole dashboard by a clicked bar, shown as a chip and kept in the link (issue 23 item 3)', async () => {
    const { page } = browser;
    await page.goto(dashboardUrl(demo.publicId));
    await settled(page, 6);
    const before = await figure(page);
    const status = 'completed';
    const bars = page.locator('[data-widget-id="orders-by-status"] svg .mark-rect path');
    const bar = bars.nth(await barIndex(page, 'orders.status', status));
    await bar.click();
    await page.waitForURL((url) => url.searchParams.get('f.orders.status') === status);
    await page.waitForFunction(
      (text) => document.querySelector('[data-widget-id="revenue"] .tsr-figure-value')?.textContent !== text,
      before,
    );
    await settled(page, 6);
    await expectEveryTileFiltered(status);
    const chip = page.locator('.tsr-chip[data-chip="orders.status"]');
    expect(await chip.textContent()).toBe(`Orders status: ${status}×`);
    // The filter control shows the same choice: one filter, two ways to see it.
    expect(await page.locator('[data-control="orders.status"] select').inputValue()).toBe(status);
    // From the top: a full-page shot of a scrolled page draws the sticky bar mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('dashboard-11-cross-filtered');
    await page.setViewportSize({ width: 400, height: 900 });
    await page.locator('.tsr-dashboard[data-breakpoint="xxs"]').waitFor();
    await settled(page, 6);
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('dashboard-11-cross-filtered-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('.tsr-dashboard[data-breakpoint="md"]').waitFor();

    // The link reproduces it.
    await page.reload();
    await settled(page, 6);
    await expectEveryTileFiltered(status);

    // Clicking the same value again removes it.
    await bars.nth(await barIndex(page, 'orders.status', status)).click();
    await page.waitForURL((url) => url.search === '');
    await settled(page, 6);
    expect(await figure(page)).toBe(before);
    expect(await chip.count()).toBe(0);

    // So does the chip's ×.
    await bars.nth(await barIndex(page, 'orders.status', status)).click();
    await page.waitForURL((url) => url.searchParams.get('f.orders.status') === status);
    await settled(page, 6);
    await page.getByRole('button', { name: `Remove the filter Orders status: ${status}` }).click();
    await page.waitForURL((url) => url.search === '');
    await settled(page, 6);
    expect(await figure(page)).toBe(before);

    // By keyboard: Enter on a focused bar picks it, Enter again (focus stays on the redrawn
    // chart) removes it; Enter on a pie's legend entry picks its category.
    await bars.nth(await barIndex(page, 'orders.status', status)).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('f.orders.status') === status);
    await settled(page, 6);
    await expectEveryTileFiltered(status);
    await expect
      .poll(() =>
        page.evaluate(() =>
          document.activeElement?.closest('[data-widget-id]')?.getAttribute('data-widget-id'),
        ),
      )
      .toBe('orders-by-status');
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.search === '');
    await settled(page, 6);
    expect(await figure(page)).toBe(before);

    const legend = page.locator('[data-widget-id="revenue-by-category"] svg .role-legend-label text').first();
    const category = await legend.evaluate(
      (el) => (el as unknown as { __data__: { datum: { value: string } } }).__data__.datum.value,
    );
    await legend.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('f.products.category') === category);
    await settled(page, 6);
    const remove = page.getByRole('button', { name: `Remove the filter Products category: ${category}` });
    await remove.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.search === '');
    await settled(page, 6);
    expect(await figure(page)).toBe(before);
  });

  it('prints the dashboard with its filters: every tile in the page flow, the filters in words (issue 23 item 5)', async () => {
    const { page } = browser;
    const status = 'completed';
    await page.goto(dashboardUrl(demo.publicId, `?f.orders.status=${status}`));
    await settled(page, 6);
    const filtered = await figure(page);
    await page.getByRole('link', { name: 'Print view' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(`/${demo.publicId}/print`));
    expect(new URL(page.url()).searchParams.get('f.orders.status')).toBe(status);
    await settled(page, 6);
    expect(await page.locator('.tsr-print-view').textContent()).toBe(`Filtered by Orders status: ${status}.`);
    expect(await figure(page)).toBe(filtered);
    await expectEveryTileFiltered(status);
    // No controls, menus or download buttons on paper.
    expect(await page.locator('form[aria-label="Dashboard filters"]').count()).toBe(0);
    expect(await page.locator('.tsr-tile-menu-button').filter({ visible: true }).count()).toBe(0);
    await browser.screenshot('dashboard-13-print-view');

    // On paper: no app chrome; the PDF Chromium prints holds every tile's title and the filters.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.topbar').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Print…' }).isVisible()).toBe(false);
    const pdf = await page.pdf({ printBackground: true, preferCSSPageSize: true });
    const { extractText, getDocumentProxy } = await import('unpdf');
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)), { mergePages: true });
    for (const title of await page.locator('.tsr-tile-title').allTextContents())
      if (title.trim()) expect(text).toContain(title.trim());
    expect(text).toContain(`Filtered by Orders status: ${status}.`);
    await page.emulateMedia({ media: 'screen' });

    await page.setViewportSize({ width: 400, height: 900 });
    await settled(page, 6);
    await browser.screenshot('dashboard-13-print-view-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('link', { name: 'Back to the dashboard' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(`/${demo.publicId}`));
    expect(new URL(page.url()).searchParams.get('f.orders.status')).toBe(status);
  });

  it('keeps every tile on the page, dimmed and busy, until its new rows arrive (issue 21)', async () => {
    const { page } = browser;
    await page.goto(dashboardUrl(demo.publicId));
    await settled(page, 6);
    const held: Route[] = [];
    let allHeld: () => void = () => {};
    const holding = new Promise<void>((resolve) => {
      allHeld = resolve;
    });
    await page.route('**/widgets/*/data', (route) => {
      held.push(route);
      if (held.length === 6) allHeld();
    });
    // Every change of the page from here on is checked: a chart tile never goes blank, neither
    // while the rows load nor while the new chart is drawn.
    await page.evaluate(() => {
      const seen = new Set<string>();
      (window as unknown as { blanked: Set<string> }).blanked = seen;
      const started = performance.now();
      new MutationObserver(() => {
        for (const chart of document.querySelectorAll('.tsr-tile .tsr-chart'))
          if (!chart.querySelector('svg')) {
            const tile = chart.closest('.tsr-tile');
            // What the page was doing when it went blank, for the failure message.
            const breakpoint = document.querySelector('.tsr-dashboard')?.getAttribute('data-breakpoint');
            seen.add(
              `${tile?.getAttribute('data-widget-id')} (state ${tile?.getAttribute('data-state')}, ` +
                `${chart.childElementCount} layers, breakpoint ${breakpoint}, ` +
                `${Math.round(performance.now() - started)} ms in)`,
            );
          }
      }).observe(document.body, { childList: true, subtree: true, attributes: true });
    });
    await page.locator('[data-control="orders.status"] select').selectOption('completed');
    await holding;
    // A frame for React and Vega to do whatever they would do before the rows come back.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    for (const id of [
      'revenue',
      'revenue-by-month',
      'revenue-by-category',
      'orders-by-status',
      'top-products',
    ]) {
      const tile = page.locator(`[data-widget-id="${id}"]`);
      expect(await tile.getAttribute('aria-busy'), id).toBe('true');
      expect(await tile.locator('.tsr-tile-body.tsr-dimmed').count(), id).toBe(1);
      expect(await tile.locator('svg .role-mark, .tsr-figure-value').count(), id).toBeGreaterThan(0);
    }
    expect(await page.locator('[data-widget-id="recent-orders"] tbody tr').count()).toBeGreaterThan(0);
    await browser.screenshot('dashboard-10-refreshing');
    for (const route of held) await route.continue();
    await page.unroute('**/widgets/*/data');
    await settled(page, 6);
    expect(await page.locator('.tsr-tile[aria-busy="true"]').count()).toBe(0);
    expect(await page.locator('.tsr-dimmed').count()).toBe(0);
    expect(await page.locator('[data-widget-id="orders-by-status"] svg .mark-rect path').count()).toBe(1);
    expect(await page.evaluate(() => [...(window as unknown as { blanked: Set<string> }).blanked])).toEqual(
      [],
    );
    await page.goto(dashboardUrl(demo.publicId));
    await settled(page, 6);
  });

  it('hides the download buttons when the dashboard restricts data download', async () => {
    const { page } = browser;
    expect(await page.locator('.tsr-download').count()).toBe(6);
    // The account's app-config setting, which every published dashboard reports (spec 2.3).
    expect(
      (await api('PUT', '/api/v1/app-config', { restrictDataDownload: true })).restrictDataDownload,
    ).toBe(true);
    await page.reload();
    await settled(page, 6);
    expect(await page.locator('.tsr-download').count()).toBe(0);
    await browser.screenshot('dashboard-04-no-download');
    await api('PUT', '/api/v1/app-config', { restrictDataDownload: false });
  });

  it('shows a failing query in its own tile while the others draw', async () => {
    const { page } = browser;
    await page.goto(dashboardUrl(broken.publicId));
    await settled(page, 3);
    expect(await tileStates(page)).toEqual({ bad: 'error', good: 'drawn', note: 'drawn' });
    expect(await page.locator('[data-widget-id="note"]').textContent()).toBe('Counts include every status.');
    expect(await page.locator('[data-widget-id="rule"] hr').count()).toBe(1);
    expect(broken.detail).toContain('orders.revenue_typo');
    expect(await page.locator('[data-widget-id="bad"] [role="alert"]').textContent()).toContain(
      broken.detail,
    );
    const [count] = await rows(broken.publicId, 'good');
    expect(await page.locator('[data-widget-id="good"] .tsr-figure-value').textContent()).toBe(
      Number(count['orders.count']).toLocaleString('en-US'),
    );
    await browser.screenshot('dashboard-05-failing-widget');
  });

  it('lays the widgets out by each breakpoint of the config', async () => {
    const { page } = browser;
    const config = demo.config as {
      layout: { cols: Record<string, number>; margin: [number, number]; rowHeight: number };
      widgets: { id: string; responsiveLayouts: Record<string, Place> }[];
    };
    const seen: string[] = [];
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(dashboardUrl(demo.publicId));
    // The window narrowed under an open page: the grid follows without a reload.
    for (const width of [1400, 1280, 900, 640, 400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction((previous) => {
        const now = document.querySelector('.tsr-dashboard')?.getAttribute('data-breakpoint');
        return now && now !== previous;
      }, seen.at(-1) ?? null);
      await settled(page, 6);
      const breakpoint = await page.locator('.tsr-dashboard').getAttribute('data-breakpoint');
      seen.push(breakpoint!);
      await expectLayout(page, breakpoint!, config);
      // And stays there: the grid once passed a stale layout back and forth after a resize.
      await page.waitForTimeout(500);
      await expectLayout(page, breakpoint!, config);
      // Charts redraw at their tile's new size.
      const chart = (await page
        .locator('[data-widget-id="revenue-by-month"] .tsr-chart')
        .boundingBox()) as Box;
      const svg = (await page
        .locator('[data-widget-id="revenue-by-month"] .tsr-chart svg')
        .boundingBox()) as Box;
      expect(Math.abs(svg.width - chart.width), `chart width at ${breakpoint}`).toBeLessThanOrEqual(2);
      await browser.screenshot(`dashboard-06-${breakpoint}-${width}px`);
    }
    // The dashboard page uses the window's whole width, so a wide window reaches lg as the embed
    // page does (below); text pages keep their 1280 px measure.
    expect(seen).toEqual(['lg', 'md', 'sm', 'xs', 'xxs']);

    await page.setViewportSize({ width: 1400, height: 900 });
    // A text page keeps its readable measure in the same window.
    await page.goto(`${web.baseUrl}/workspace/${deploymentId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(((await page.locator('main').boundingBox()) as Box).width).toBeLessThanOrEqual(1280);
    const session = await api('POST', '/api/v1/embed/generate-session', {
      deploymentId,
      externalId: 'dashboard-test-viewer',
      publicDashboardId: demo.publicId,
    });
    await page.goto(`${web.baseUrl}/embed/dashboard/${demo.publicId}?session=${session.sessionId}`);
    await settled(page, 6);
    expect(await page.locator('.tsr-dashboard').getAttribute('data-breakpoint')).toBe('lg');
    await expectLayout(page, 'lg', config);
    await browser.screenshot('dashboard-07-embed-lg-1400px');
  });

  it('sent nothing off the origin and broke no content security rule', () => {
    expect(browser.offOrigin).toEqual([]);
    // Chromium logs each 4xx answer as a console error: the 401 before signing in and the failing
    // widget's 400 are answers the test asked for.
    const unexpected = browser.errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of (400|401|503)/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});

/**
 * Waits until `count` tiles are on the page and none is loading any more; on a timeout, says
 * which tile was still in which state.
 */
async function settled(page: Page, count: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let states: Record<string, string | null> = {};
  for (;;) {
    states = await tileStates(page);
    const values = Object.values(states);
    if (values.length === count && values.every((s) => s !== 'loading')) return;
    if (Date.now() > deadline) break;
    await page.waitForTimeout(100);
  }
  throw new Error(`tiles did not settle within ${timeoutMs} ms: ${JSON.stringify(states)}`);
}

async function tileStates(page: Page): Promise<Record<string, string | null>> {
  return page.$$eval('.tsr-tile', (tiles) =>
    Object.fromEntries(tiles.map((t) => [t.getAttribute('data-widget-id'), t.getAttribute('data-state')])),
  );
}

/** Which of a chart's marks stands for `value` of `member` (Vega hangs its item on the SVG element). */
async function barIndex(page: Page, member: string, value: string): Promise<number> {
  const index = await page
    .locator('[data-widget-id="orders-by-status"] svg .mark-rect path')
    .evaluateAll(
      (paths, [m, v]) =>
        paths.findIndex(
          (p) =>
            (p as unknown as { __data__?: { datum?: Record<string, unknown> } }).__data__?.datum?.[m] === v,
        ),
      [member, value],
    );
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

/** The x axis's labels of a chart tile (Vega's SVG: the axis group described as the X-axis). */
async function axisLabels(page: Page, widgetId: string): Promise<string[]> {
  return page.$$eval(
    `[data-widget-id="${widgetId}"] svg g[aria-label^="X-axis"] .role-axis-label text`,
    (texts) => texts.map((t) => t.textContent ?? ''),
  );
}

async function figure(page: Page) {
  return page.locator('[data-widget-id="revenue"] .tsr-figure-value').textContent();
}

/** The demo figure's format: whole US dollars (its report's column format). */
function dollars(value: unknown): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 0,
    maximumFractionDigits: 0,
  }).format(Number(value));
}

/**
 * Every tile sits where the config's layout for `breakpoint` puts it: react-grid-layout's column
 * width is (width - margin * (cols - 1)) / cols with no container padding (the demo's), and a
 * row is rowHeight plus the margin.
 */
async function expectLayout(
  page: Page,
  breakpoint: string,
  config: {
    layout: { cols: Record<string, number>; margin: [number, number]; rowHeight: number };
    widgets: { id: string; responsiveLayouts: Record<string, Place> }[];
  },
) {
  const grid = (await page.locator('.tsr-grid').boundingBox()) as Box;
  const cols = config.layout.cols[breakpoint];
  const [mx, my] = config.layout.margin;
  const colWidth = (grid.width - mx * (cols - 1)) / cols;
  for (const widget of config.widgets) {
    const at = widget.responsiveLayouts[breakpoint];
    const box = (await page.locator(`[data-widget-id="${widget.id}"]`).boundingBox()) as Box;
    const expected = {
      x: at.x * (colWidth + mx),
      y: at.y * (config.layout.rowHeight + my),
      width: at.w * colWidth + (at.w - 1) * mx,
      height: at.h * config.layout.rowHeight + (at.h - 1) * my,
    };
    const actual = { x: box.x - grid.x, y: box.y - grid.y, width: box.width, height: box.height };
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      expect(
        Math.abs(actual[key] - expected[key]),
        `${widget.id} ${key} at ${breakpoint}`,
      ).toBeLessThanOrEqual(2);
    }
  }
}
