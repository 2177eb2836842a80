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

const password = 'the admin settings pages';

/**
 * Settings > Tenant settings, Embedding, Chat agents and Env variables (issue 22 item 8), as an
 * admin uses them: create, edit, the server's problem beside its field, delete, by keyboard; at
 * desktop and phone width. One server for all of them (every browser file costs CI time).
 */
describeInBrowser('settings: tenant, embedding, chat agents and env variables', () => {
  let web: BrowserServer;
  let browser: BrowserSession;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** The problem shown under a control (its `aria-describedby` names it). */
  async function problemOf(control: ReturnType<BrowserSession['page']['getByLabel']>) {
    await expect.poll(() => control.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await control.getAttribute('aria-describedby')) ?? '';
    const problemId = describedBy.split(' ').find((id) => id.endsWith('-problem')) as string;
    return browser.page.locator(`[id="${problemId}"]`).textContent();
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/settings/tenant`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(web.server.adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.baseUrl}/settings/tenant`);
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('saves tenant settings, with a bad time beside its field, and lists the regions', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'Tenant settings', level: 1 }).waitFor();
    const regions = page.getByRole('list', { name: 'Regions' });
    await regions.locator('li').first().waitFor();
    const time = page.getByLabel('Start (UTC)');
    await time.fill('25:00');
    // By keyboard: the checkbox toggles with Space, the form submits with Enter in a field.
    await page.getByLabel('Record the audit log').focus();
    await page.keyboard.press('Space');
    await page.getByLabel('Day').selectOption('friday');
    await time.press('Enter');
    expect(await problemOf(time)).toMatch(/match|pattern|HH/i);
    await browser.screenshot('settings-tenant-01-time-error');
    expect((await api('GET', '/api/v1/tenant/settings')).maintenanceWindowDay).toBe('sunday');

    await time.fill('03:30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The tenant settings are saved.' }).waitFor();
    const stored = await api('GET', '/api/v1/tenant/settings');
    expect(stored).toMatchObject({
      auditLogEnabled: true,
      maintenanceWindowDay: 'friday',
      maintenanceWindowTime: '03:30',
    });
    expect(await time.getAttribute('aria-invalid')).toBe('false');
    await browser.screenshot('settings-tenant-02-saved');
  });
});
