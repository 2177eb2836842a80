import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, signedInUser } from '../../server/test/harness.ts';
import { formatValue } from '../src/dashboard/rows.ts';
import { catalogueOf } from '../src/sql/catalogue.ts';
import { sqlResultTable } from '../src/sql/result-table.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'sql is for asking';
const query = 'SELECT status, MEASURE(total_amount) AS amount FROM orders GROUP BY 1 ORDER BY 1';

describeInBrowser('SQL editor in the browser (issue 21 items 2 and 3)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /**
   * The query's rows as `POST /v1/cubesql` answers them, described with `/v1/meta` and formatted
   * as the page should show them (the model's formats: the amounts are money).
   */
  async function expectedCells(sql: string): Promise<string[][]> {
    const { serviceApiToken } = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {});
    const data = (path: string, payload?: object) =>
      web.server.app.inject({
        method: payload ? 'POST' : 'GET',
        url: `/data/${deploymentId}/cubejs-api/v1/${path}`,
        headers: { authorization: serviceApiToken },
        ...(payload ? { payload } : {}),
      });
    const meta = await data('meta');
    const answer = await data('cubesql', { query: sql });
    expect(answer.statusCode).toBe(200);
    const lines = answer.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const schema = lines[0].schema;
    const rows = lines.slice(1).flatMap((l) => l.data);
    const table = sqlResultTable(schema, rows, sql, catalogueOf(meta.json()));
    return table.rows.map((row) => table.columns.map((c) => formatValue(row[c.name], c)));
  }

  const results = (page: Page, state: string) =>
    page.locator(`section[aria-label="Results"][data-state="${state}"]`).waitFor();
  const editor = (page: Page) => page.getByRole('textbox', { name: 'SQL query' });
  const cellsOf = (page: Page, scope: string) =>
    page.$$eval(`${scope} tbody tr:not(.rs-spacer)`, (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
  /** Types `text` and waits for the completion to offer `label` first (Enter then accepts it). */
  async function complete(page: Page, text: string, label: string) {
    await page.keyboard.type(text, { delay: 30 });
    const selected = page.locator('.cm-tooltip-autocomplete li[aria-selected="true"]');
    await expect.poll(() => selected.locator('.cm-completionLabel').textContent()).toBe(label);
    // CodeMirror ignores Enter for 75 ms after the list changes (its `interactionDelay`), so that
    // a key meant for the text is not taken as a choice: a person reads the list first.
    await page.waitForTimeout(250);
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/sql/${deploymentId}`);
    await page.waitForURL(/\/sign-in\?next=/);
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.baseUrl}/sql/${deploymentId}`);
    // The session check before sign-in answered 401: that one is expected.
    browser.errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('completes the model’s names from the keyboard, runs with Ctrl+Enter, and shows the rows and a chart as the API answers them', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'SQL', level: 1 }).waitFor();
    // The top bar links the section, on this deployment.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'SQL' }).waitFor();
    await page.getByRole('region', { name: 'Results' }).getByText('No results yet').waitFor();
    await editor(page).focus();

    await complete(page, 'SELECT stat', 'status');
    await page.keyboard.press('Enter');
    // Inside MEASURE( only measures are offered; the completion says what the member is.
    await complete(page, ', MEASURE(total_a', 'total_amount');
    const info = page.locator('.cm-completionInfo');
    await expect.poll(() => info.textContent()).toContain('Total order amount');
    expect(
      await page
        .locator('.cm-tooltip-autocomplete li[aria-selected="true"] .cm-completionDetail')
        .textContent(),
    ).toContain('measure · sum');
    await browser.screenshot('sql-00-completion');
    await page.keyboard.press('Enter');
    await complete(page, ') AS amount FROM ord', 'orders');
    await page.keyboard.press('Enter');
    await page.keyboard.type(' GROUP BY 1 ORDER BY 1');
    await page.keyboard.press('Escape');
    expect(await editor(page).textContent()).toBe(query);
    await browser.screenshot('sql-01-typed');

    await page.keyboard.press('Control+Enter');
    await results(page, 'ready');
    const expected = await expectedCells(query);
    expect(expected.length).toBeGreaterThan(1);
    const cells = await cellsOf(page, 'section[aria-label="Results"] .rs-table');
    expect(cells).toEqual(expected);
    // The model's format: the amounts are money, with their sign.
    expect(cells[0][1]).toMatch(/^\$[\d,]+\.\d\d$/);
    // Headings are the members' titles.
    const headings = await page.$$eval('section[aria-label="Results"] .rs-table th', (ths) =>
      ths.map((th) => th.textContent),
    );
    expect(headings).toEqual(['Status', 'Total order amount']);
    // A bar per status.
    const chart = page.locator('section[aria-label="Results"] .rs-chart-box[data-state="drawn"]');
    await chart.waitFor();
    expect(await chart.locator('svg .mark-rect path').count()).toBe(expected.length);
    expect(await page.locator('.sq-row-count').textContent()).toMatch(
      new RegExp(`^${expected.length} rows in [\\d,]+ ms$`),
    );
    expect(browser.errors).toEqual([]);
    await browser.screenshot('sql-02-results-desktop');
  });

  it('keeps a history of the user’s own runs, newest first, failures included, and loads one back', async () => {
    const { page } = browser;
    const history = page.getByRole('list', { name: 'Your queries, newest first' });
    await expect.poll(() => history.getByRole('listitem').count()).toBe(1);

    // A failing query says why, keeps the last rows on the page, and is listed too.
    await editor(page).focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT nope FROM orders');
    await page.getByRole('button', { name: 'Run' }).click();
    await results(page, 'error');
    const alert = page.locator('section[aria-label="Results"] [role="alert"]');
    expect(await alert.textContent()).toMatch(/nope/);
    expect(await page.locator('section[aria-label="Results"] .rs-table tbody tr').count()).toBeGreaterThan(1);
    await expect.poll(() => history.getByRole('listitem').count()).toBe(2);
    const entries = await history.getByRole('listitem').allTextContents();
    expect(entries[0]).toContain('SELECT nope FROM orders');
    expect(entries[0]).toContain('failed');
    expect(entries[1]).toContain(query);
    expect(entries[1]).toMatch(/\d+ rows in [\d,]+ ms/);
    // The server holds the same list for this user.
    const listed = await api('GET', `/api/v1/deployments/${deploymentId}/query-history`);
    expect(listed.items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT nope FROM orders', query]);

    // Another user's history is theirs: a developer signed in elsewhere sees none of these.
    const developer = await signedInUser(web.server, 'developer');
    const theirs = await web.server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${deploymentId}/query-history`,
      headers: { cookie: developer.cookie },
    });
    expect(theirs.json().items).toEqual([]);

    // Loading the older entry puts its text back in the editor, by keyboard.
    await history.getByRole('button', { name: `Load into the editor: ${query}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => editor(page).textContent()).toBe(query);
    await page.getByRole('button', { name: 'Run' }).click();
    await results(page, 'ready');
    browser.errors.length = 0;
  });

  it('saves the query as a report: the name is checked beside its field, and the report page shows the same rows', async () => {
    const { page } = browser;
    const shown = await cellsOf(page, 'section[aria-label="Results"] .rs-table');
    // It is saved into a folder chosen in the dialog.
    const folder = await api('POST', `/api/v1/deployments/${deploymentId}/folders`, { name: 'Finance' });
    await page.getByRole('button', { name: 'Save as report' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save as report' });
    await dialog.waitFor();
    const name = dialog.getByLabel('Name');
    await expect.poll(() => name.evaluate((e) => e === document.activeElement)).toBe(true);
    // An empty name: the server's problem is shown beside the field, nothing is saved.
    await page.keyboard.press('Enter');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const problemId = await name.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toMatch(/\S/);
    await browser.screenshot('sql-03-save-refused');
    // (the refusal was a 400 in the console, on purpose)
    browser.errors.length = 0;
    const before = await api('GET', `/api/v1/deployments/${deploymentId}/reports?first=1000`);

    await name.fill('Amount by status');
    const saveIn = dialog.getByLabel('Save in');
    await expect.poll(() => saveIn.locator('option', { hasText: 'Finance' }).count()).toBe(1);
    await saveIn.selectOption({ label: 'Finance' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    const after = await api('GET', `/api/v1/deployments/${deploymentId}/reports?first=1000`);
    expect(after.items.length).toBe(before.items.length + 1);
    const report = after.items.find((r: { name: string }) => r.name === 'Amount by status');
    expect(report.sqlQuery).toBe(query);
    expect(report.folderId).toBe(folder.id);
    expect(report.preferences.columnFormats).toEqual({ amount: { type: 'currency' } });
    expect(report.spec.mark).toEqual({ type: 'bar' });

    await page.getByRole('status').getByText('Saved “Amount by status”.').waitFor();
    await page.getByRole('link', { name: 'Open the report' }).click();
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}/reports/${report.id}`);
    await page.getByRole('heading', { name: 'Amount by status', level: 1 }).waitFor();
    await page.locator('section[aria-label="Results"][data-state="drawn"]').waitFor();
    // The report's rows are the API's for the same query, read as in the editor: the members'
    // titles over the columns, amounts as money.
    const onReport = await cellsOf(page, '.report-table');
    expect(onReport).toEqual(shown);
    expect(onReport).toEqual(await expectedCells(query));
    expect(await page.$$eval('.report-table th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'Status',
      'Total order amount',
    ]);
    expect(await page.locator('.report-chart svg .mark-rect path').count()).toBe(shown.length);
    expect(browser.errors).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('sql-04-report');
  });

  it('works at phone width', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${web.baseUrl}/sql/${deploymentId}`);
    // The draft is kept on this browser.
    await expect.poll(() => editor(page).textContent()).toBe(query);
    await editor(page).focus();
    await page.keyboard.press('Control+Enter');
    await results(page, 'ready');
    await page.locator('section[aria-label="Results"] .rs-chart-box[data-state="drawn"]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    const wide = await page.$$eval('body *', (all) =>
      all
        .filter((e) => e.getBoundingClientRect().right > 391)
        .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
        .slice(0, 12),
    );
    expect(overflow, wide.join('\n')).toBeLessThanOrEqual(390);
    await expect.poll(() => page.getByRole('button', { name: 'Save as report' }).isVisible()).toBe(true);
    expect(browser.errors).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('sql-05-phone');
  });

  it('offers a viewer no SQL editor, and says why', async () => {
    const viewer = await signedInUser(web.server, 'viewer');
    const session = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    try {
      const [cookieName, value] = viewer.cookie.split('=');
      await session.context.addCookies([{ name: cookieName, value, url: web.baseUrl }]);
      const { page } = session;
      await page.goto(`${web.baseUrl}/sql/${deploymentId}`);
      await page.getByText('The SQL editor needs the developer role').waitFor();
      const sections = page.getByRole('navigation', { name: 'Sections' });
      await sections.getByRole('link', { name: 'Workspace' }).waitFor();
      expect(await sections.getByRole('link', { name: 'SQL' }).count()).toBe(0);
    } finally {
      await session.close();
    }
  });
});
