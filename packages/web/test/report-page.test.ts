import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { bearer, signedInUser } from '../../server/test/harness.ts';
import { formatValue, toTable } from '../src/dashboard/rows.ts';
import type { ColumnFormat } from '../src/dashboard/types.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'reports are for reading';

describeInBrowser('report page in the browser (issue 21)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let monthlyId: number;
  let folder: { id: number; name: string };

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** The report's rows as `POST /v1/load` answers them for its query, formatted as the page should. */
  async function expectedCells(reportId: number): Promise<string[][]> {
    const report = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${reportId}`);
    const { serviceApiToken } = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {});
    const res = await web.server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/load`,
      headers: { authorization: serviceApiToken },
      payload: { query: JSON.parse(report.jsonQuery) },
    });
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    const table = toTable({
      kind: 'semantic',
      annotation: answer.annotation,
      data: answer.data,
      totalRows: null,
    });
    const formats = (report.preferences.columnFormats ?? {}) as Record<string, ColumnFormat>;
    return table.rows.map((row) => table.columns.map((c) => formatValue(row[c.name], c, formats)));
  }

  const reportUrl = (id: number) => `${web.baseUrl}/workspace/${deploymentId}/reports/${id}`;
  const results = (page: Page, state = 'drawn') =>
    page.locator(`section[aria-label="Results"][data-state="${state}"]`).waitFor();

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    const demo = await seedDemoDashboard(web.server.services, {
      tenantId: web.server.tenantId,
      userId: web.server.adminUserId,
      deploymentId,
    });
    const monthly = demo.reportSnapshots.find((s) => s.name === 'Order amount by month');
    if (!monthly) throw new Error('the demo has no "Order amount by month" report');
    monthlyId = monthly.reportId;
    folder = await api('POST', `/api/v1/deployments/${deploymentId}/folders`, { name: 'Archive' });
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });

    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(reportUrl(monthlyId));
    await page.waitForURL(/\/sign-in\?next=/);
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(reportUrl(monthlyId));
    // The session check before sign-in answered 401: that one is expected.
    browser.errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('draws the report chart and its rows, formatted as the data API answers them', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'Order amount by month', level: 1 }).waitFor();
    await results(page);
    const expected = await expectedCells(monthlyId);
    expect(expected.length).toBeGreaterThan(1);
    // One point per month on the line.
    expect(await page.locator('.report-chart svg .mark-symbol path').count()).toBe(expected.length);
    const cells = await page.$$eval('.report-table tbody tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(cells).toEqual(expected);
    // A currency measure with its dollar sign, months as months.
    expect(cells[0][1]).toMatch(/^\$[\d,]+/);
    expect(cells[0][0]).not.toMatch(/T\d\d:/);
    // The query stays available, behind a disclosure.
    const details = page.locator('details.report-details');
    expect(await details.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    await details.locator('summary').click();
    await expect.poll(() => details.locator('pre').first().textContent()).toContain('orders.total_amount');
    await details.locator('summary').click();

    // A refresh keeps the rows on the page, dimmed and busy, until the new ones arrive: the
    // load is held back until the page has been looked at.
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
    await page.getByRole('button', { name: 'Refresh' }).click();
    await loading;
    const busy = page.locator(
      'section[aria-label="Results"][aria-busy="true"] .report-results-body.tsr-dimmed',
    );
    await busy.waitFor();
    expect(await busy.locator('.report-table tbody tr').count()).toBe(expected.length);
    expect(await busy.locator('.report-chart svg .mark-symbol path').count()).toBe(expected.length);
    release();
    await results(page);
    await page.unroute('**/cubejs-api/v1/load');
    expect(await page.locator('section[aria-label="Results"]').getAttribute('aria-busy')).toBe('false');
    expect(await page.locator('.report-table tbody tr').count()).toBe(expected.length);
    expect(browser.errors).toEqual([]);
    // (a full-page shot of a scrolled page draws the sticky top bar where the page was scrolled to)
    await page.evaluate(() => window.scrollTo(0, 0));
    await browser.screenshot('report-01-desktop');
  });

  it('renames: an empty name is refused beside the field, a good one is saved (keyboard only)', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Edit' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit report' });
    await dialog.waitFor();
    const name = dialog.getByLabel('Name');
    await expect.poll(() => name.evaluate((e) => e === document.activeElement)).toBe(true);
    await name.fill('');
    await page.keyboard.press('Enter');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const problemId = await name.getAttribute('aria-describedby');
    const problem = await page.locator(`[id="${problemId}"]`).textContent();
    expect(problem).toMatch(/\S/);
    await browser.screenshot('report-02-rename-refused');
    // Escape closes without saving.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const unchanged = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${monthlyId}`);
    expect(unchanged.name).toBe('Order amount by month');

    await page.getByRole('button', { name: 'Edit' }).click();
    await dialog.getByLabel('Name').fill('Monthly order amount');
    await dialog.getByLabel('Title').fill('Monthly order amount');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Monthly order amount', level: 1 }).waitFor();
    await page.getByRole('status').getByText('Saved “Monthly order amount”.').waitFor();
    const saved = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${monthlyId}`);
    expect([saved.name, saved.title]).toEqual(['Monthly order amount', 'Monthly order amount']);
  });

  it('moves the report into a folder', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Move' }).click();
    const dialog = page.getByRole('dialog', { name: /^Move/ });
    await dialog.getByLabel('Destination').selectOption(`folder:${folder.id}`);
    await dialog.getByRole('button', { name: 'Move' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('status').getByText('Moved to Archive.').waitFor();
    await page
      .getByRole('navigation', { name: 'Breadcrumb' })
      .getByRole('link', { name: 'Archive' })
      .waitFor();
    const moved = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${monthlyId}`);
    expect(moved.folderId).toBe(folder.id);
  });

  it('duplicates the report, then deletes the copy after a confirm step', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(`/reports/${monthlyId}`));
    const copyId = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('status').getByText('Duplicated as “Monthly order amount (copy)”.').waitFor();
    await page.getByRole('heading', { name: 'Monthly order amount (copy)', level: 1 }).waitFor();
    await results(page);
    const copy = await api('GET', `/api/v1/deployments/${deploymentId}/reports/${copyId}`);
    expect(copy.jsonQuery).toBe(
      (await api('GET', `/api/v1/deployments/${deploymentId}/reports/${monthlyId}`)).jsonQuery,
    );
    expect(copy.folderId).toBe(folder.id);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: /^Delete/ });
    await confirm.waitFor();
    // Cancel has the focus: Enter alone does not delete.
    await expect
      .poll(() =>
        confirm.getByRole('button', { name: 'Cancel' }).evaluate((e) => e === document.activeElement),
      )
      .toBe(true);
    await browser.screenshot('report-03-delete-confirm');
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await api('GET', `/api/v1/deployments/${deploymentId}/reports/${copyId}`);

    await page.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('“Monthly order amount (copy)” was deleted').waitFor();
    const gone = await web.server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${deploymentId}/reports/${copyId}`,
      headers: bearer(web.server.adminKey),
    });
    expect(gone.statusCode).toBe(404);
  });

  it("says what went wrong when the report's query fails", async () => {
    const { page } = browser;
    const bad = await api('POST', `/api/v1/deployments/${deploymentId}/reports`, {
      name: 'Misspelt measure',
      jsonQuery: JSON.stringify({ measures: ['orders.revenue_typo'] }),
    });
    await page.goto(reportUrl(bad.id));
    await results(page, 'error');
    const alert = page.locator('section[aria-label="Results"] [role="alert"]');
    expect(await alert.textContent()).toMatch(/The query failed: .*orders\.revenue_typo/);
    browser.errors.length = 0;
  });

  it('shows a viewer who may not edit the report no edit controls, and says why', async () => {
    const viewer = await signedInUser(web.server, 'viewer');
    await api('PUT', `/api/v1/deployments/${deploymentId}/permissions`, {
      type: 'REPORT',
      id: monthlyId,
      userId: viewer.user.id,
      level: 'view',
    });
    const session = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    try {
      const [name, value] = viewer.cookie.split('=');
      await session.context.addCookies([{ name, value, url: web.baseUrl }]);
      const { page } = session;
      await page.goto(reportUrl(monthlyId));
      await page.getByRole('heading', { name: 'Monthly order amount', level: 1 }).waitFor();
      await page.getByText('changing or copying reports needs the developer role').waitFor();
      for (const name of ['Edit', 'Duplicate', 'Move', 'Delete'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
      // A viewer gets no data-API token (it is a developer's): the report's rows come from the
      // report-data route, under the viewer's own security context, as /v1/load answers them.
      await results(page);
      const cells = await page.$$eval('.report-table tbody tr', (rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
      expect(cells).toEqual(await expectedCells(monthlyId));
      expect(await page.locator('.report-chart svg .mark-symbol path').count()).toBe(cells.length);
      await session.screenshot('report-05-viewer');
    } finally {
      await session.close();
    }
  });

  it('works at phone width', async () => {
    const { page } = browser;
    // (the rename's refusal above was a 400 in the console, on purpose)
    browser.errors.length = 0;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(reportUrl(monthlyId));
    await results(page);
    expect(await page.locator('.report-chart svg .mark-symbol path').count()).toBeGreaterThan(1);
    // Nothing wider than the screen but the table, which scrolls in its own box.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(overflow).toBeLessThanOrEqual(390);
    for (const name of ['Edit', 'Duplicate', 'Move', 'Delete']) {
      await expect.poll(() => page.getByRole('button', { name }).isVisible()).toBe(true);
    }
    expect(browser.errors).toEqual([]);
    await browser.screenshot('report-04-phone');
    // The edit dialog fits the screen and closes with Escape.
    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit report' });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await browser.screenshot('report-06-phone-edit');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });
});
