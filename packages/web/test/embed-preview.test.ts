import type { FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { tokenFor } from '../../server/src/modules/data/test-support.ts';
import { bearer } from '../../server/test/harness.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'preview what they will see';

/**
 * "Preview embed…" on a published dashboard (issue 23 item 4), as an admin uses it: the demo
 * dashboard seen as an external user whose `country` attribute the model's row-level policy reads
 * (server/src/datasources/sample/model), and a bad attribute value refused beside its field.
 */
describeInBrowser('dashboard: embed preview', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let publicId: string;
  let countryLabel: string;
  /** Errors the page logged before the preview (the sign-in page's 401 for no session yet). */
  let errorsBefore = 0;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** `POST /cubejs-api/v1/load` with the admin's data token (no row-level filter of its own). */
  async function load(query: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const token = await tokenFor(web.server, deploymentId);
    const res = await web.server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  }

  /** An account user attribute of that name, created when the account lacks it; its field's label. */
  async function attribute(name: string, type: string, displayName: string): Promise<string> {
    const list = await api('GET', '/api/v1/user-attributes?first=1000');
    const found = list.items.find((a: { name: string }) => a.name === name);
    if (found) return found.displayName || found.name;
    await api('POST', '/api/v1/user-attributes', { name, type, displayName });
    return displayName;
  }

  const figure = (where: Page | FrameLocator) =>
    where.locator('[data-widget-id="revenue"] .tsr-figure-value').first();

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    const demo = await seedDemoDashboard(web.server.services, {
      tenantId: web.server.tenantId,
      userId: web.server.adminUserId,
      deploymentId,
    });
    publicId = demo.publicId;
    countryLabel = await attribute('country', 'string', 'Country');
    await attribute('discount_cap', 'number', 'Discount cap');
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/dashboards/${deploymentId}/${publicId}`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(web.server.adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Demo shop', level: 1 }).waitFor();
    errorsBefore = browser.errors.length;
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('shows the dashboard as an external user of one country, as /v1/load filters it', async () => {
    const { page } = browser;
    const countries = await load({
      dimensions: ['customers.country'],
      order: { 'customers.country': 'asc' },
    });
    const country = String(countries[0]['customers.country']);
    const [all] = await load({ measures: ['orders.total_amount'] });
    const [theirs] = await load({
      measures: ['orders.total_amount'],
      filters: [{ member: 'customers.country', operator: 'equals', values: [country] }],
    });
    expect(Number(theirs['orders.total_amount'])).toBeLessThan(Number(all['orders.total_amount']));
    await expect.poll(() => figure(page).textContent()).toBe(dollars(all['orders.total_amount']));

    // By keyboard: the button, the dialog's first field focused, Enter submits.
    await page.getByRole('button', { name: 'Preview embed…' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /Preview embed/ });
    await dialog.waitFor();
    const externalId = dialog.getByLabel('External user id');
    await expect.poll(() => externalId.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await externalId.inputValue()).toBe(`preview-${web.server.adminEmail.split('@')[0]}`);
    await dialog.getByLabel(countryLabel, { exact: true }).fill(country);
    await dialog.getByLabel(countryLabel, { exact: true }).press('Enter');

    const frame = page.frameLocator('iframe[title="Embed preview"]');
    await expect
      .poll(() => figure(frame).textContent(), { timeout: 20_000 })
      .toBe(dollars(theirs['orders.total_amount']));
    expect(await figure(page).textContent()).toBe(dollars(all['orders.total_amount']));
    const tab = await dialog.getByRole('link', { name: 'Open in a new tab' }).getAttribute('href');
    expect(tab).toMatch(new RegExp(`^/embed/dashboard/${publicId}\\?session=[0-9a-f]{32}$`));
    await expect
      .poll(() => frame.locator('.tsr-tile[data-state="drawn"]').count(), { timeout: 20_000 })
      .toBe(6);
    await browser.screenshot('embed-preview-01-desktop');
  });

  it('shows a bad attribute value beside its field', async () => {
    const { page } = browser;
    const dialog = page.getByRole('dialog', { name: /Preview embed/ });
    const cap = dialog.getByLabel('Discount cap', { exact: true });
    await cap.fill('plenty');
    await dialog.getByRole('button', { name: 'Preview again' }).click();
    await expect.poll(() => cap.getAttribute('aria-invalid')).toBe('true');
    const problemId = (await cap.getAttribute('aria-describedby'))?.split(' ').pop();
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toBe('must be a number');
    await browser.screenshot('embed-preview-02-error');
  });

  it('fills a phone width, and Escape closes it', async () => {
    const { page } = browser;
    const dialog = page.getByRole('dialog', { name: /Preview embed/ });
    const frame = page.frameLocator('iframe[title="Embed preview"]');
    await page.setViewportSize({ width: 390, height: 844 });
    const box = await dialog.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(380);
    await expect.poll(() => frame.locator('.tsr-tile[data-state="drawn"]').count()).toBe(6);
    await browser.screenshot('embed-preview-03-phone');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Only the refused preview's 400 was logged.
    expect(browser.errors.slice(errorsBefore).filter((e) => !e.includes('status of 400'))).toEqual([]);
  });
});

/** The demo figure's format: whole US dollars (its report's column format). */
function dollars(value: unknown): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 0,
    maximumFractionDigits: 0,
  }).format(Number(value));
}
