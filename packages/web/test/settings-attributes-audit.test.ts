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

const password = 'attributes and the audit log';

/**
 * Settings > User attributes, User values and Audit log (issue 22 items 3, 5 and 8), as an admin
 * uses them: create and edit a definition, see the server's problems beside the field, set a
 * user's value, then find those changes in the audit log, filtered; at desktop and phone width.
 */
describeInBrowser('settings: user attributes and the audit log', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let viewerId: number;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    const email = 'seller@example.com';
    viewerId = (
      await api('POST', '/api/v1/users', { email, username: email, firstName: 'Sam', lastName: 'Seller' })
    ).id;
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    await page.goto(`${web.baseUrl}/settings/user-attributes`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(web.server.adminEmail);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.baseUrl}/settings/user-attributes`);
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('creates a user attribute, shows a bad default beside its field, and edits one', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'User attributes', level: 1 }).waitFor();
    await page.getByText('No user attributes yet').waitFor();
    await page.getByRole('button', { name: 'New attribute' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user attribute' });
    await dialog.getByLabel('Name', { exact: true }).fill('has space');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const nameInput = dialog.getByLabel('Name', { exact: true });
    await expect.poll(() => nameInput.getAttribute('aria-invalid')).toBe('true');
    const nameProblem = await dialog.locator('.field-error').first().textContent();
    expect(nameProblem).toContain('only letters, digits and _');
    await browser.screenshot('settings-attributes-01-name-error');

    await nameInput.fill('level');
    await dialog.getByLabel('Type').selectOption('number');
    await dialog.getByLabel('Default value').fill('many');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const defaultInput = dialog.getByLabel('Default value');
    await expect.poll(() => defaultInput.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await defaultInput.getAttribute('aria-describedby')) ?? '';
    const problemId = describedBy.split(' ').find((id) => id.endsWith('-problem')) as string;
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toContain('must be a number');
    await browser.screenshot('settings-attributes-02-default-error');
    await defaultInput.fill('1');
    await dialog.getByLabel('Display name').fill('Level');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Level”.' }).waitFor();

    await page.getByRole('button', { name: 'New attribute' }).click();
    const second = page.getByRole('dialog', { name: 'New user attribute' });
    await second.getByLabel('Name', { exact: true }).fill('country');
    await second.getByLabel('Display name').fill('Country');
    await second.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Country”.' }).waitFor();

    await page.getByRole('button', { name: 'Edit Country' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Country' });
    expect(await edit.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await edit.getByLabel('Description').fill('Where the user sells');
    await edit.getByLabel('Default value').fill('DE');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved “Country”.' }).waitFor();
    await page.getByText('Where the user sells').waitFor();
    const rows = await page.locator('table.items tbody tr').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('Country');
    expect(rows[0]).toContain('DE');
    await browser.screenshot('settings-attributes-03-list');

    const stored = await api('GET', '/api/v1/user-attributes');
    expect(stored.items.map((a: { name: string; defaultValue: string }) => [a.name, a.defaultValue])).toEqual(
      [
        ['country', 'DE'],
        ['level', '1'],
      ],
    );
  });

  it("sets a user's values, with the server's problem beside the field", async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'User values' }).first().click();
    await page.getByRole('heading', { name: 'User values', level: 1 }).waitFor();
    await page.getByLabel('User').selectOption(String(viewerId));
    await page.waitForURL(/user-attribute-values\?user=/);
    const level = page.getByLabel('Level', { exact: true });
    await level.waitFor();
    await level.fill('lots');
    await page.getByRole('button', { name: 'Save Level' }).click();
    await expect.poll(() => level.getAttribute('aria-invalid')).toBe('true');
    expect(
      await page.locator('.value-form').filter({ has: level }).locator('.field-error').textContent(),
    ).toContain('must be a number');
    await browser.screenshot('settings-values-01-error');
    await level.fill('3');
    await page.getByRole('button', { name: 'Save Level' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved their Level.' }).waitFor();
    await page.getByLabel('Country', { exact: true }).fill('FR');
    await page.getByRole('button', { name: 'Save Country' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved their Country.' }).waitFor();
    await browser.screenshot('settings-values-02-saved');
    expect(await web.server.services.userAttributes.attributesOf(web.server.tenantId, viewerId)).toEqual({
      country: 'FR',
      level: 3,
    });
    // An empty value removes theirs: the default applies again.
    await page.getByLabel('Country', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save Country' }).click();
    await page.getByRole('status').filter({ hasText: 'the default DE applies' }).waitFor();
  });

  it('lists the changes in the audit log, filters them and exports them', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.locator('.audit-entry').first().waitFor();
    const actions = await page.locator('.audit-action').allTextContents();
    expect(actions.slice(0, 5)).toEqual([
      'user_attribute_value.set',
      'user_attribute_value.set',
      'user_attribute_value.set',
      'user_attribute.update',
      'user_attribute.create',
    ]);
    await browser.screenshot('settings-audit-01-list');

    await page.getByLabel('Action').fill('user_attribute.*');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=user_attribute/);
    await expect
      .poll(async () => [...new Set(await page.locator('.audit-action').allTextContents())].sort())
      .toEqual(['user_attribute.create', 'user_attribute.update']);
    const entry = page.locator('.audit-entry').filter({ hasText: 'user_attribute.update' });
    await entry.getByText('Before and after').click();
    const after = await entry.locator('pre').nth(1).textContent();
    expect(after).toContain('"defaultValue": "DE"');
    expect(await entry.textContent()).toContain(web.server.adminEmail);
    await browser.screenshot('settings-audit-02-filtered');

    const href = await page.getByRole('link', { name: 'Export JSON lines' }).getAttribute('href');
    expect(href).toContain('action=user_attribute.*');
    const exported = await page.evaluate(async (url) => (await fetch(url)).text(), href as string);
    const lines = exported
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.action).sort()).toEqual([
      'user_attribute.create',
      'user_attribute.create',
      'user_attribute.update',
    ]);
  });

  it('works at phone width', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${web.baseUrl}/settings/audit-log`);
    await page.locator('.audit-entry').first().waitFor();
    await browser.screenshot('settings-audit-03-phone');
    await page.goto(`${web.baseUrl}/settings/user-attributes`);
    await page.locator('table.items').waitFor();
    await page.getByRole('button', { name: 'Edit Level' }).click();
    await page.getByRole('dialog', { name: 'Edit Level' }).waitFor();
    await browser.screenshot('settings-attributes-04-phone-dialog');
    await page.keyboard.press('Escape');
    await page.goto(`${web.baseUrl}/settings/user-attribute-values?user=${viewerId}`);
    await page.getByLabel('Level', { exact: true }).waitFor();
    await browser.screenshot('settings-values-03-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The sign-in redirect (401) and the refused inputs above (400) are logged by the browser; nothing else.
    const unexpected = browser.errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of (400|401)/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});
