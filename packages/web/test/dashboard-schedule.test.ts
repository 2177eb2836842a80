import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { startMailbox } from '../../server/src/modules/notifications/test-support.ts';
import { bearer } from '../../server/test/harness.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'schedules are for sending';
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Scheduling and exporting from a dashboard page (issue 23 item 5), against a real server whose
 * scheduler runs (every second) and a real SMTP server in this process: the Schedule dialog
 * creates a notification with the view's filters, "Send now" delivers a PNG by mail, the run log
 * shows the delivery, and Export PNG downloads the rendered dashboard.
 */
describeInBrowser('dashboard page: schedule by email and export (issue 23 item 5)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let mailbox: Awaited<ReturnType<typeof startMailbox>>;
  let deploymentId: number;
  let publicId: string;

  async function api(method: 'GET' | 'PUT', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }
  const schedules = async () =>
    (await api('GET', `/api/v1/deployments/${deploymentId}/notifications?dashboardPublicId=${publicId}`))
      .items as Record<string, unknown>[];
  const pageUrl = (query = '') => `${web.baseUrl}/dashboards/${deploymentId}/${publicId}${query}`;

  beforeAll(async () => {
    assertWebBuilt();
    mailbox = await startMailbox();
    web = await startBrowserServer({
      smtpUrl: mailbox.url,
      scheduler: { disabled: false, intervalMs: 1000, concurrency: 2 },
    });
    deploymentId = web.server.demoDeploymentId;
    ({ publicId } = await seedDemoDashboard(web.server.services, {
      tenantId: web.server.tenantId,
      userId: web.server.adminUserId,
      deploymentId,
    }));
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(pageUrl('?f.orders.status=completed'));
    await page.waitForURL(/\/sign-in\?next=/);
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(pageUrl('?f.orders.status=completed'));
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await mailbox?.close();
  });

  it('schedules the filtered view by email: a bad address is named beside its field and leaves nothing behind', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Schedule…' }).click();
    const dialog = page.getByRole('dialog', { name: /^Schedule/ });
    await dialog.waitFor();
    await dialog.getByText('This dashboard has no schedule yet.').waitFor();
    expect(await dialog.getByLabel(/With the filters and time grains chosen now \(1\)/).isChecked()).toBe(
      true,
    );

    await dialog.getByLabel('Frequency').selectOption('DAILY');
    await dialog.getByLabel('Time', { exact: true }).fill('07:30');
    await dialog.getByLabel('Time zone').selectOption('Europe/London');
    const recipients = dialog.getByLabel('Recipients');
    await recipients.fill('not-an-address');
    await dialog.getByRole('button', { name: 'Add schedule' }).click();
    // Three requests (create, recipients refused, delete): a loaded machine takes its time.
    await expect.poll(() => recipients.getAttribute('aria-invalid'), { timeout: 20_000 }).toBe('true');
    const problemId = (await recipients.getAttribute('aria-describedby'))?.split(' ').pop();
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toMatch(/email|address/i);
    expect(await schedules()).toEqual([]);
    await browser.screenshot('schedule-01-refused');
    // (the refusal was a 400 in the console, on purpose)
    browser.errors.length = 0;

    await recipients.fill('team@example.com');
    await dialog.getByRole('button', { name: 'Add schedule' }).click();
    await dialog
      .getByRole('status')
      .getByText(/^Scheduled: .*07:30 AM.*\(Europe\/London\)\.$/)
      .waitFor();
    const [saved] = await schedules();
    expect(saved).toMatchObject({
      scheduleType: 'DAILY',
      hour: 7,
      minute: 30,
      timezone: 'Europe/London',
      notificationFormat: 'png',
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }],
    });
    const listed = await api(
      'GET',
      `/api/v1/deployments/${deploymentId}/notifications/${saved.id}/recipients`,
    );
    expect(listed.items.map((r: { email: string }) => r.email)).toEqual(['team@example.com']);
  });

  it('sends it now: the PNG arrives by mail and the run log shows the delivery', async () => {
    const { page } = browser;
    const dialog = page.getByRole('dialog', { name: /^Schedule/ });
    await dialog.getByRole('button', { name: /^Send now:/ }).click();
    const [mail] = await mailbox.waitFor(1, 60_000);
    expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain('team@example.com');
    const image = mail.attachments.find((a) => a.contentType === 'image/png');
    expect(image?.content.subarray(0, 8).equals(pngSignature)).toBe(true);
    const log = dialog.getByRole('list', { name: 'Run log' });
    await log.locator('li[data-state="succeeded"]').waitFor({ timeout: 30_000 });
    expect(await log.textContent()).toContain('team@example.com: sent');
    await browser.screenshot('schedule-02-sent');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('exports the view as a PNG file, rendered by the server', async () => {
    const { page } = browser;
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Export PNG' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.png$/);
    const bytes = readFileSync((await file.path()) as string);
    expect(bytes.subarray(0, 8).equals(pngSignature)).toBe(true);
    expect(bytes.length).toBeGreaterThan(10_000);
    expect(browser.errors).toEqual([]);
  });

  it('works at phone width', async () => {
    const phone = await openBrowser(web.baseUrl, { viewport: { width: 390, height: 844 } });
    try {
      await phone.context.addCookies(await browser.context.cookies());
      await phone.page.goto(pageUrl());
      await phone.page.getByRole('button', { name: 'Schedule…' }).click();
      const dialog = phone.page.getByRole('dialog', { name: /^Schedule/ });
      await dialog.getByRole('button', { name: /^Send now:/ }).waitFor();
      const width = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      await phone.screenshot('schedule-03-phone');
      // The dialog scrolls within the screen: its buttons are reached, and the form is usable.
      const add = dialog.getByRole('button', { name: 'Add schedule' });
      await add.scrollIntoViewIfNeeded();
      const box = await add.boundingBox();
      expect(box && box.y + box.height <= 844 && box.x + box.width <= 390).toBe(true);
      await phone.screenshot('schedule-04-phone-buttons');
    } finally {
      await phone.close();
    }
  });
});
