import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../../server/test/harness.ts';
import { type ColumnFormats, cellText, type Table, tableFromLoad } from '../src/results/table.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  saveScreenshot as saveScreenshotOf,
  startBrowserServer,
} from './browser.ts';

const password = 'explore the model';

/** The question built in the page, as the data API takes it. */
const question = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
  filters: [{ member: 'orders.status', operator: 'in', values: ['completed', 'shipped'] }],
};

describeInBrowser('Explore in the browser (issue 21)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let token: string;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** `POST /v1/load` for a query, as a table. */
  async function load(query: Record<string, unknown>): Promise<Table> {
    const res = await web.server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode).toBe(200);
    return tableFromLoad(res.json());
  }

  const cells = (table: Table, formats: ColumnFormats = {}) =>
    table.rows.map((row) => table.columns.map((c) => cellText(row, c, formats)));

  /** The rows the virtualised table has drawn, by their row index (1-based, after the header). */
  async function drawnRows(scope: Locator): Promise<Map<number, string[]>> {
    const rows = await scope
      .locator('tbody tr[aria-rowindex]')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          Number(tr.getAttribute('aria-rowindex')) - 2,
          [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
        ]),
      );
    return new Map(rows as [number, string[]][]);
  }

  /** The chart's points as Vega describes them to screen readers (`aria-label`), sorted. */
  const pointLabels = (scope: Locator) =>
    scope
      .locator('svg .mark-symbol path[aria-label]')
      .evaluateAll((paths) => paths.map((p) => p.getAttribute('aria-label') ?? '').sort());

  const chartDrawn = (page: Page) => page.locator('.rs-chart-box[data-state="drawn"]').waitFor();

  /** Scrolls the virtualised table from top to bottom, collecting every row it draws. */
  async function scrollThrough(box: Locator): Promise<Map<number, string[]>> {
    const seen = new Map<number, string[]>();
    await box.evaluate((el) => el.scrollTo(0, 0));
    for (let step = 0; step < 500; step++) {
      await box.page().waitForTimeout(50);
      for (const [i, row] of await drawnRows(box)) seen.set(i, row);
      const done = await box.evaluate((el) => {
        const end = el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
        el.scrollBy(0, el.clientHeight * 0.8);
        return end;
      });
      if (done) break;
    }
    return new Map([...seen].sort(([a], [b]) => a - b));
  }

  const results = (page: Page, state = 'ready') =>
    page.locator(`section[aria-label="Results"][data-state="${state}"]`).waitFor();

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    ({ serviceApiToken: token } = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {}));
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/explore/${deploymentId}`);
    await page.waitForURL(/\/sign-in\?next=/);
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.baseUrl}/explore/${deploymentId}`);
    browser.errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('builds a question from nothing, charts it, and every number matches /v1/load', async () => {
    const { page } = browser;
    await page.locator('section[aria-label="Results"][data-state="idle"]').waitFor();
    const tree = page.getByRole('navigation', { name: 'Model' });
    await tree.getByRole('button', { name: /^Orders/ }).click();
    const orders = tree.locator('.ex-tree-cube', { has: page.getByRole('button', { name: /^Orders/ }) });
    await orders.getByRole('button', { name: /^Count/ }).click();
    await orders.getByRole('button', { name: /^Total order amount/ }).click();
    await orders.getByRole('button', { name: /^Status/ }).click();
    await orders.getByRole('button', { name: /^Created at/i }).click();
    await page.getByLabel('Granularity of Orders Created At').selectOption('month');
    await page.getByLabel('Add a filter on').selectOption('orders.status');
    const filter = page.getByRole('group', { name: 'Filter on Orders Status' });
    await filter.getByLabel('Operator').selectOption('in');
    await filter.getByLabel('Values').fill('completed, shipped');
    await filter.getByLabel('Values').press('Enter');
    // The chosen values stand as chips; the box offers the status's other values, as /v1/load
    // lists them for this user, to pick rather than type.
    const chips = filter.locator('.ex-value-chip');
    await chips.nth(1).waitFor();
    expect(await chips.allTextContents()).toEqual(['completed×', 'shipped×']);
    const statuses = await load({
      dimensions: ['orders.status'],
      order: [['orders.status', 'asc']],
      limit: 200,
    });
    const others = statuses.rows
      .map((r) => String(r['orders.status']))
      .filter((s) => !['completed', 'shipped'].includes(s));
    expect(others.length).toBeGreaterThan(0);
    const options = filter.locator('datalist option');
    await options.first().waitFor({ state: 'attached' });
    expect(await options.evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(others);
    await results(page);
    await chartDrawn(page);
    const explored = page.url();
    // The address holds the question, readable.
    const q = new URL(explored).searchParams.get('q') ?? '';
    expect(q).toContain('measures:!(orders.count,orders.total_amount)');
    expect(q).toContain('(dimension:orders.created_at,granularity:month)');

    // Every row of the table, scrolled through (only the rows in view are drawn), reads as
    // /v1/load answers the same query, formatted by the model's formats.
    const expected = await load(question);
    const want = cells(expected);
    expect(want.length).toBeGreaterThan(30);
    expect(await page.locator('.ex-count').textContent()).toMatch(new RegExp(`^${want.length} rows`));
    const box = page.locator('section[aria-label="Results"] .rs-table-scroll');
    const seen = await scrollThrough(box);
    expect(seen.size).toBe(want.length);
    for (const [i, row] of seen) expect(row, `row ${i}`).toEqual(want[i]);
    expect(want[0][3]).toMatch(/^\$[\d,]+\.\d\d$/);
    // Fewer rows drawn than there are: the table is virtualised.
    expect(await box.locator('tbody tr[aria-rowindex]').count()).toBeLessThan(want.length);

    // The chart: a line and a point per row for each measure (two axes), each point described
    // with the row's values as the table shows them.
    const chart = page.locator('section[aria-label="Chart"]');
    const labels = await pointLabels(chart);
    const month = (value: unknown) =>
      new Date(`${String(value).slice(0, 10)}T00:00:00Z`).toLocaleDateString('en-US', {
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
    const described = expected.rows.map((row) =>
      expected.columns
        .map((c) => `${c.title}: ${c.kind === 'time' ? month(row[c.name]) : cellText(row, c)}`)
        .join('; '),
    );
    expect(labels).toEqual([...described, ...described].sort());
    // Two statuses, two measures: four lines.
    expect(await chart.locator('svg .mark-line path').count()).toBe(4);
    expect(browser.errors).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('explore-01-desktop');

    // The SQL the query compiles to, as /v1/sql answers it.
    await page.locator('details.ex-sql summary').click();
    const sqlAnswer = await web.server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/sql`,
      headers: { authorization: token },
      payload: { query: question },
    });
    expect(sqlAnswer.statusCode).toBe(200);
    const [sqlText] = sqlAnswer.json().sql.sql;
    await expect.poll(() => page.locator('details.ex-sql pre').textContent()).toBe(sqlText);

    // Save it as a report, then open the report: the same chart, the same numbers.
    await page.getByRole('button', { name: 'Save as report' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as a report' });
    await dialog.getByLabel('Name').fill('Completed and shipped orders by month');
    expect(await dialog.getByLabel('Format of Total order amount').inputValue()).toBe('currency');
    await browser.screenshot('explore-02-save');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const link = page.getByRole('status').getByRole('link', { name: 'Open the report' });
    await link.click();
    await page.getByRole('heading', { name: 'Completed and shipped orders by month', level: 1 }).waitFor();
    await page.locator('section[aria-label="Results"][data-state="drawn"]').waitFor();
    const reportId = Number(new URL(page.url()).pathname.split('/').pop());
    const report = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${reportId}`);
    expect(JSON.parse(report.jsonQuery)).toEqual(question);
    expect(report.preferences.columnFormats).toEqual({ 'orders.total_amount': { type: 'currency' } });
    expect(await pointLabels(page.locator('.report-chart'))).toEqual(labels);
    expect(await page.locator('.report-chart svg .mark-line path').count()).toBe(4);
    const reportCells = await page.$$eval('.report-table tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(reportCells).toEqual(cells(expected, report.preferences.columnFormats));
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('explore-03-report');
    expect(browser.errors).toEqual([]);

    // Back to the question: the address brings it back whole.
    await page.goto(explored);
    await results(page);
    await chartDrawn(page);
    expect(await pointLabels(chart)).toEqual(labels);
  });

  it('drills into the rows behind a number', async () => {
    const { page } = browser;
    const expected = await load(question);
    await page.locator('section[aria-label="Results"] .rs-table-scroll').evaluate((el) => el.scrollTo(0, 0));
    const row = page.locator('section[aria-label="Results"] tbody tr[aria-rowindex="2"]');
    const cell = row.locator('td').nth(2);
    // The question orders by month only, so two statuses of one month may come in either order
    // from one run to the next: the row clicked is the first month's row of the status it shows.
    const resultHeaders = await page.locator('section[aria-label="Results"] thead th').allTextContents();
    const shown = await row.locator('td').nth(resultHeaders.indexOf('Status')).textContent();
    const first = expected.rows.find(
      (r) =>
        r['orders.status'] === shown &&
        r['orders.created_at.month'] === expected.rows[0]['orders.created_at.month'],
    );
    if (!first) throw new Error(`no row of /v1/load for the first month and status ${shown}`);
    const count = Number(first['orders.count']);
    expect(count).toBeGreaterThan(0);
    await cell.getByRole('button').click();
    const dialog = page.getByRole('dialog', { name: 'Rows behind the value' });
    await dialog.locator('.ex-drill[data-state="ready"]').waitFor();
    // One row per order (the measure's drill members: id, status, created at), as many as counted.
    expect(await dialog.locator('.ex-count').textContent()).toBe(`${count} ${count === 1 ? 'row' : 'rows'}`);
    const headers = await dialog.locator('thead th').allTextContents();
    const status = headers.indexOf('Status') + 1;
    expect(status).toBeGreaterThan(0);
    const statuses = await dialog
      .locator(`tbody tr[aria-rowindex] td:nth-child(${status})`)
      .evaluateAll((tds) => [...new Set(tds.map((td) => td.textContent))]);
    expect(statuses).toEqual([first['orders.status']]);
    await browser.screenshot('explore-04-drill');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('keeps the previous rows on the page, dimmed, while the next ones load', async () => {
    const { page } = browser;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked: () => void = () => {};
    const loading = new Promise<void>((resolve) => {
      asked = resolve;
    });
    await page.route('**/cubejs-api/v1/load', async (route) => {
      asked();
      await held;
      await route.continue();
    });
    await page.getByLabel('Granularity of Orders Created At').selectOption('quarter');
    await loading;
    const dimmed = page.locator('section[aria-label="Results"][aria-busy="true"] .ex-results-body.rs-dimmed');
    await dimmed.waitFor();
    expect(await dimmed.locator('.rs-chart-box svg').count()).toBe(1);
    expect(await dimmed.locator('tbody tr[aria-rowindex]').count()).toBeGreaterThan(5);
    release();
    await results(page);
    await page.unroute('**/cubejs-api/v1/load');
    const quarterly = await load({
      ...question,
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter' }],
    });
    const seen = await scrollThrough(page.locator('section[aria-label="Results"] .rs-table-scroll'));
    expect([...seen.values()]).toEqual(cells(quarterly));
    await page.goBack();
    await results(page);
  });

  it('draws a Vega-Lite spec edited by hand, refuses one that is not JSON, and keeps it in the address', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Bar', exact: true }).click();
    await chartDrawn(page);
    const chart = page.locator('section[aria-label="Chart"]');
    expect(await chart.locator('.rs-chart-box').getAttribute('data-kind')).toBe('bar');
    await page.getByRole('button', { name: 'Edit as Vega-Lite' }).click();
    const editor = chart.getByLabel('Vega-Lite spec');
    const spec = JSON.parse(await editor.inputValue());
    expect(spec.mark).toEqual({ type: 'bar' });
    await editor.fill('{"mark": ');
    await chart.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => editor.getAttribute('aria-invalid')).toBe('true');
    const problem = await page
      .locator(`[id="${await editor.getAttribute('aria-describedby')}"]`)
      .textContent();
    expect(problem).toMatch(/^Not JSON/);
    // Points instead of bars: one per row and measure (the measures folded into one column).
    await editor.fill(JSON.stringify({ ...spec, mark: { type: 'point', filled: true } }));
    await chart.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.rs-chart-box[data-kind="custom"][data-state="drawn"]').waitFor();
    const rows = (await load(question)).rows.length;
    expect(await chart.locator('svg .mark-symbol.role-mark path').count()).toBe(rows * 2);
    expect(new URL(page.url()).searchParams.get('spec')).toContain('mark:(type:point,filled:!t)');
    await browser.screenshot('explore-06-spec');
    // Back to the chart chosen for the data.
    await page.getByRole('button', { name: 'Line', exact: true }).click();
    await chartDrawn(page);
    expect(new URL(page.url()).searchParams.get('spec')).toBeNull();
    expect(browser.errors).toEqual([]);
  });

  it('works at phone width, from the address alone', async () => {
    const phone = await browser.context.newPage();
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(browser.page.url());
      await results(phone);
      await chartDrawn(phone);
      const desktop = await pointLabels(browser.page.locator('section[aria-label="Chart"]'));
      expect(await pointLabels(phone.locator('section[aria-label="Chart"]'))).toEqual(desktop);
      await saveScreenshotOf(phone, 'explore-05-phone');
      // Nothing wider than the screen: the table scrolls in its own box.
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await phone.close();
    }
  });

  it('adds the question to a dashboard draft as a chart, beside what the draft had (issue 23 item 1)', async () => {
    const { page } = browser;
    const base = `/api/v1/deployments/${deploymentId}`;
    const workbook = await api('POST', `${base}/workbooks`, { name: 'Explore board' });
    await api('PUT', `${base}/workbooks/${workbook.id}/dashboard`, {
      dashboardDraft: {
        widgets: [
          { id: 'note', type: 'TEXT', position: { x: 0, y: 0, w: 12, h: 2 }, config: { text: 'Hi' } },
        ],
      },
    });
    await results(page);
    await page.getByRole('button', { name: 'Add to dashboard' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a dashboard' });
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    // Nothing chosen: said beside the field, nothing added.
    await dialog.getByText('Choose the dashboard to add the chart to').waitFor();
    await dialog.getByLabel('Dashboard').selectOption({ label: 'Explore board' });
    await dialog.getByLabel('Chart title').fill('Completed and shipped by month');
    await saveScreenshotOf(page, 'explore-06-add-to-dashboard');
    await dialog.getByRole('button', { name: 'Add chart' }).click();
    const notice = page.getByText(
      'Added “Completed and shipped by month” to the dashboard draft of Explore board.',
    );
    await notice.waitFor();
    const wb = await api('GET', `${base}/workbooks/${workbook.id}`);
    const widgets = wb.dashboardDraft.widgets;
    expect(widgets.map((w: { id: string }) => w.id)[0]).toBe('note');
    expect(widgets).toHaveLength(2);
    // The widget holds the question: its report, in this workbook, has the query the page ran.
    const report = await api('GET', `${base}/reports/${widgets[1].config.reportId}`);
    expect(report).toMatchObject({ name: 'Completed and shipped by month', workbookId: workbook.id });
    expect(JSON.parse(report.jsonQuery)).toMatchObject({
      measures: question.measures,
      dimensions: question.dimensions,
    });
    // Placed under what the draft had.
    expect(widgets[1].position).toMatchObject({ x: 0, y: 2 });
    await page.getByRole('link', { name: 'Open the editor' }).click();
    await page.locator('.tsr-edit-tile', { hasText: 'Completed and shipped by month' }).waitFor();

    // On a tabbed dashboard the dialog asks which tab, and the chart goes there.
    const tabbed = await api('POST', `${base}/workbooks`, { name: 'Tabbed board' });
    await api('PUT', `${base}/workbooks/${tabbed.id}/dashboard`, {
      dashboardDraft: {
        widgets: [],
        settings: {
          tabs: [
            { id: 'summary', title: 'Summary' },
            { id: 'details', title: 'Details' },
          ],
        },
      },
    });
    // Back to the question (Explore keeps it in the address).
    await page.goBack();
    await results(page);
    await page.getByRole('button', { name: 'Add to dashboard' }).click();
    const again = page.getByRole('dialog', { name: 'Add to a dashboard' });
    await again.getByLabel('Dashboard').selectOption({ label: 'Tabbed board' });
    await again.getByLabel('Tab', { exact: true }).selectOption({ label: 'Details' });
    await again.getByRole('button', { name: 'Add chart' }).click();
    await page.getByText('to the dashboard draft of Tabbed board.').waitFor();
    const onTabs = (await api('GET', `${base}/workbooks/${tabbed.id}`)).dashboardDraft.widgets;
    expect(onTabs).toHaveLength(1);
    expect(onTabs[0].config.tabId).toBe('details');
    expect(browser.errors).toEqual([]);
  });
});
