import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../../server/test/harness.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'the usage page';

/**
 * Settings > Usage (issue 25 item 5), as an admin uses it: a dashboard opened in the app shows as
 * viewed, one nobody opened as unused, the slowest SQL run first; reached and followed by
 * keyboard; at desktop and phone width.
 */
describeInBrowser('settings: usage', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let viewed: string;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  async function publish(name: string): Promise<string> {
    const d = `/api/v1/deployments/${web.server.demoDeploymentId}`;
    const wb = await api('POST', `${d}/workbooks`, { name });
    const report = await api('POST', `${d}/reports`, {
      name: 'one',
      sqlQuery: 'SELECT 1',
      workbookId: wb.id,
    });
    const board = await api('POST', `${d}/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        title: name,
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 4, h: 3 }, config: { reportId: report.id } }],
      },
    });
    return board.publicId;
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    viewed = await publish('Quarterly revenue');
    await publish('Forgotten board');
    for (const ms of [120, 4200, 860])
      await api('POST', `/api/v1/deployments/${web.server.demoDeploymentId}/query-history`, {
        sql: `SELECT ${ms} AS slow_query_marker`,
        rowCount: 1,
        durationMs: ms,
      });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/dashboards/${web.server.demoDeploymentId}/${viewed}`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(web.server.adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Opening the dashboard in the app is what records the view.
    await page.getByRole('heading', { name: 'Quarterly revenue' }).first().waitFor();
    await web.server.services.dashboardViews.settled();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('shows the dashboard just viewed, the unused one and the slowest query', async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/settings/usage`);
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();

    const mostViewed = page.getByRole('table', { name: 'Most viewed dashboards' });
    const row = mostViewed.getByRole('row').filter({ hasText: 'Quarterly revenue' });
    await row.waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('1');
    await expect.poll(() => mostViewed.getByRole('row').count()).toBe(2);

    const unused = page.getByRole('table', { name: 'Unused dashboards' });
    await unused.getByRole('row').filter({ hasText: 'Forgotten board' }).waitFor();
    expect(await unused.getByText('Quarterly revenue').count()).toBe(0);
    expect(await unused.getByRole('row').filter({ hasText: 'Forgotten board' }).textContent()).toContain(
      'Never',
    );

    const slowest = page.getByRole('table', { name: 'Slowest queries' });
    const firstRun = slowest.getByRole('row').nth(1);
    await firstRun.waitFor();
    expect(await firstRun.textContent()).toContain('SELECT 4200');
    // The app's number format: a thousands separator.
    expect(await firstRun.textContent()).toContain('4,200');

    const active = page.getByRole('table', { name: 'Active users by day' });
    await active.getByRole('row').nth(1).waitFor();
    expect(await active.getByRole('row').nth(1).locator('td').nth(1).textContent()).toBe('1');
    await browser.screenshot('settings-usage-01-desktop');
  });

  it('is reached and followed by keyboard', async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/settings/audit-log`);
    const nav = page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Usage' });
    await nav.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${web.baseUrl}/settings/usage`);
    const link = page
      .getByRole('table', { name: 'Most viewed dashboards' })
      .getByRole('link', { name: 'Quarterly revenue' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${web.baseUrl}/dashboards/${web.server.demoDeploymentId}/${viewed}`);
    await page.getByRole('heading', { name: 'Quarterly revenue' }).first().waitFor();
  });

  it('works at phone width', async () => {
    const { page } = browser;
    await web.server.services.dashboardViews.settled();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${web.baseUrl}/settings/usage`);
    const row = page
      .getByRole('table', { name: 'Most viewed dashboards' })
      .getByRole('row')
      .filter({ hasText: 'Quarterly revenue' });
    // Opened twice now: at sign-in and by keyboard above (a usage result is reused up to 5 s).
    await expect
      .poll(
        async () => {
          await page.reload();
          await row.waitFor();
          return row.locator('td').nth(2).textContent();
        },
        { timeout: 15_000, interval: 1_000 },
      )
      .toBe('2');
    await page.getByRole('table', { name: 'Slowest queries' }).getByRole('row').nth(1).waitFor();
    await browser.screenshot('settings-usage-02-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const unexpected = browser.errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of 401/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});
