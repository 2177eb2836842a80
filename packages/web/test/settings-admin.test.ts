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
    const auditBefore = (await api('GET', '/api/v1/tenant/settings')).auditLogEnabled;
    // By keyboard: the checkbox toggles with Space, the form submits with Enter in a field.
    await page.getByLabel('Record the audit log').focus();
    await page.keyboard.press('Space');
    await page.getByLabel('Day', { exact: true }).selectOption('friday');
    await time.press('Enter');
    expect(await problemOf(time)).toMatch(/match|pattern|HH/i);
    await browser.screenshot('settings-tenant-01-time-error');
    expect((await api('GET', '/api/v1/tenant/settings')).maintenanceWindowDay).toBe('sunday');

    await time.fill('03:30');
    // The audit log's retention: a negative number of days is named beside its field.
    const retention = page.getByLabel('Keep audit entries for (days)');
    await retention.fill('-5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await problemOf(retention)).toMatch(/>=|minimum|0/);
    await retention.fill('90');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The tenant settings are saved.' }).waitFor();
    const stored = await api('GET', '/api/v1/tenant/settings');
    expect(stored).toMatchObject({
      auditLogEnabled: !auditBefore,
      maintenanceWindowDay: 'friday',
      maintenanceWindowTime: '03:30',
      auditLogRetentionDays: 90,
    });
    expect(await time.getAttribute('aria-invalid')).toBe('false');
    await browser.screenshot('settings-tenant-02-saved');
  });

  it('saves the embedding settings, with a bad origin beside its field', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Embedding' }).click();
    await page.getByRole('heading', { name: 'Embedding', level: 1 }).waitFor();
    const origins = page.getByLabel('Allowed origins');
    await origins.fill('https://app.example.com\nftp://nope');
    await page.getByRole('button', { name: 'Save embedding settings' }).click();
    expect(await problemOf(origins)).toContain('Line 2');
    await browser.screenshot('settings-embedding-01-origin-error');
    await origins.fill('https://app.example.com\nhttps://*.example.org');
    await page.getByLabel('Chat beside embedded dashboards').check();
    await page.getByRole('button', { name: 'Save embedding settings' }).click();
    await page.getByRole('status').filter({ hasText: 'The embedding settings are saved.' }).waitFor();
    expect(await api('GET', '/api/v1/embed/settings')).toMatchObject({
      frameAncestors: ['https://app.example.com', 'https://*.example.org'],
      showDashboardChat: true,
    });
  });

  it('adds, edits and deletes embed tenants and their groups, by keyboard', async () => {
    const { page } = browser;
    await page.getByText('No embed tenants yet.').waitFor();
    // Keyboard only: the button opens the dialog, the name field has the focus, Enter submits.
    await page.getByRole('button', { name: 'Add tenant' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add embed tenant' });
    await dialog.waitFor();
    await page.keyboard.type('Acme Corp');
    await page.keyboard.press('Enter');
    const name = dialog.getByLabel('Name', { exact: true });
    expect(await problemOf(name)).toMatch(/pattern/);
    await browser.screenshot('settings-embedding-02-tenant-error');
    await name.fill('acme');
    await dialog.getByLabel('Display name').fill('Acme Corp');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Added acme.' }).waitFor();
    const tenants = page.getByRole('list', { name: 'Embed tenants' });
    await tenants.getByText('Acme Corp · 0 users').waitFor();

    await page.getByRole('button', { name: 'Edit acme' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit acme' });
    expect(await edit.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await edit.getByLabel('Display name').fill('Acme Corporation');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved acme.' }).waitFor();
    await tenants.getByText('Acme Corporation · 0 users').waitFor();

    await page.getByRole('button', { name: 'Groups of acme' }).click();
    await page.waitForURL(/tenant=acme/);
    await page.getByText('No groups in this tenant yet.').waitFor();
    await page.getByRole('button', { name: 'Add group' }).click();
    const group = page.getByRole('dialog', { name: 'Add group to acme' });
    await group.getByLabel('Name', { exact: true }).fill('system:admins');
    await group.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => group.locator('.field-error, .form-error').first().textContent())
      .toMatch(/system:/);
    await group.getByLabel('Name', { exact: true }).fill('buyers');
    await group.getByLabel('Description').fill('People who buy');
    await group.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Added buyers.' }).waitFor();
    await page.getByRole('button', { name: 'Edit buyers' }).click();
    const editGroup = page.getByRole('dialog', { name: 'Edit buyers' });
    await editGroup.getByLabel('Description').fill('People who buy things');
    await editGroup.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('list', { name: 'Groups of acme' }).getByText('People who buy things').waitFor();
    await browser.screenshot('settings-embedding-03-tenants');

    // Delete asks first; Cancel has the focus, so Enter alone deletes nothing.
    await page.getByRole('button', { name: 'Delete buyers' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete buyers?' });
    await confirm.waitFor();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'hidden' });
    expect((await api('GET', '/api/v1/embed-tenants/acme/groups')).items).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete buyers' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete buyers?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Deleted buyers.' }).waitFor();
    expect((await api('GET', '/api/v1/embed-tenants/acme/groups')).items).toHaveLength(0);

    await page.getByRole('button', { name: 'Delete acme' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete acme?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Deleted acme.' }).waitFor();
    await page.getByText('No embed tenants yet.').waitFor();
    expect((await api('GET', '/api/v1/embed-tenants')).items).toHaveLength(0);
  });

  it('adds, edits and deletes chat agents of a deployment; their API key is never shown', async () => {
    const { page } = browser;
    const deploymentId = web.server.demoDeploymentId;
    const before = (await api('GET', '/api/v1/agents')).items.filter(
      (a: { deploymentId: number }) => a.deploymentId === deploymentId,
    ).length;
    await page.getByRole('link', { name: 'Chat agents' }).click();
    await page.getByRole('heading', { name: 'Chat agents', level: 1 }).waitFor();
    await page.getByLabel('Agents of deployment').selectOption(String(deploymentId));
    await page.waitForURL(/deployment=/);
    await page.getByRole('button', { name: 'Add agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add chat agent' });
    await dialog.getByLabel('Name', { exact: true }).fill('Sales helper');
    await dialog.getByLabel('Instructions').fill('Answer about sales.');
    await dialog.getByLabel('Brain').selectOption('openai');
    await dialog.getByLabel('Endpoint URL').fill('ftp://models.example.com');
    await dialog.getByLabel('Model').fill('gpt-test');
    await dialog.getByLabel('API key').fill('sk-very-secret-key');
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect(await problemOf(dialog.getByLabel('Endpoint URL'))).toMatch(/pattern|format|uri/i);
    await browser.screenshot('settings-agents-01-url-error');
    await dialog.getByLabel('Endpoint URL').fill('https://models.example.com/v1');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Added Sales helper.' }).waitFor();
    const list = page.getByRole('list', { name: 'Chat agents' });
    await list.getByText('gpt-test at https://models.example.com/v1 · API key set').waitFor();
    expect(await page.content()).not.toContain('sk-very-secret-key');

    await page.getByRole('button', { name: 'Edit Sales helper' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Sales helper' });
    expect(await edit.getByLabel('API key').inputValue()).toBe('');
    await edit.getByText('Set. Leave empty to keep it').waitFor();
    await edit.getByLabel('Name', { exact: true }).fill('Sales analyst');
    await edit.getByLabel('Model').fill('gpt-test-2');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved Sales analyst.' }).waitFor();
    await list.getByText('gpt-test-2 at https://models.example.com/v1 · API key set').waitFor();
    await browser.screenshot('settings-agents-02-list');
    const agents = (await api('GET', '/api/v1/agents')).items;
    const stored = agents.find((a: { name: string }) => a.name === 'Sales analyst');
    expect(stored).toMatchObject({
      deploymentId,
      brain: { kind: 'openai', model: 'gpt-test-2', hasApiKey: true },
    });
    expect(JSON.stringify(agents)).not.toContain('sk-very-secret-key');

    await page.getByRole('button', { name: 'Delete Sales analyst' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Sales analyst?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Deleted Sales analyst.' }).waitFor();
    const after = (await api('GET', '/api/v1/agents')).items.filter(
      (a: { deploymentId: number }) => a.deploymentId === deploymentId,
    );
    expect(after).toHaveLength(before);
  });

  it('sets, replaces and deletes env variables of a deployment; values are never shown', async () => {
    const { page } = browser;
    const deploymentId = web.server.demoDeploymentId;
    const url = `/api/v1/deployments/${deploymentId}/env-vars`;
    await page.getByRole('link', { name: 'Env variables' }).click();
    await page.getByRole('heading', { name: 'Env variables', level: 1 }).waitFor();
    await page.getByLabel('Variables of deployment').selectOption(String(deploymentId));
    await page.getByText('No env variables on this deployment yet.').waitFor();
    await page.getByRole('button', { name: 'Add variable' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add env variable' });
    await dialog.getByLabel('Name', { exact: true }).fill('1PASSWORD');
    await dialog.getByLabel('Value').fill('hunter2-first');
    await dialog.getByRole('button', { name: 'Save' }).click();
    expect(await problemOf(dialog.getByLabel('Name', { exact: true }))).toMatch(/pattern/);
    await browser.screenshot('settings-env-01-name-error');
    await dialog.getByLabel('Name', { exact: true }).fill('WAREHOUSE_PASSWORD');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Set WAREHOUSE_PASSWORD.' }).waitFor();
    const list = page.getByRole('list', { name: 'Env variables' });
    await list.getByText('Value set, never shown').waitFor();
    expect(await page.content()).not.toContain('hunter2');

    await page.getByRole('button', { name: 'Edit WAREHOUSE_PASSWORD' }).click();
    const edit = page.getByRole('dialog', { name: 'New value for WAREHOUSE_PASSWORD' });
    expect(await edit.getByLabel('Value').inputValue()).toBe('');
    await edit.getByRole('button', { name: 'Save' }).click();
    expect(await problemOf(edit.getByLabel('Value'))).toBe('is required');
    await edit.getByLabel('Value').fill('hunter2-second');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Set WAREHOUSE_PASSWORD.' }).waitFor();
    const values = await web.server.services.envVariableResolver.values(deploymentId);
    expect(values.get('WAREHOUSE_PASSWORD')).toBe('hunter2-second');
    expect((await api('GET', url)).items).toEqual([{ name: 'WAREHOUSE_PASSWORD', value: '[ENCRYPTED]' }]);
    await browser.screenshot('settings-env-02-list');

    await page.getByRole('button', { name: 'Delete WAREHOUSE_PASSWORD' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete WAREHOUSE_PASSWORD?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('status').filter({ hasText: 'Deleted WAREHOUSE_PASSWORD.' }).waitFor();
    await page.getByText('No env variables on this deployment yet.').waitFor();
    expect((await api('GET', url)).items).toEqual([]);
  });

  it("shows the user's new name in the top bar as soon as the profile is saved", async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    const menuName = page.locator('.user-menu .user-name');
    expect(await menuName.textContent()).not.toBe('Ada Admin');
    // The first admin's admin@localhost receives no mail: the profile asks for a real address.
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Given name').fill('Ada');
    await page.getByLabel('Family name').fill('Admin');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('status').filter({ hasText: 'Your profile is saved.' }).waitFor();
    await expect.poll(() => menuName.textContent()).toBe('Ada Admin');
  });

  it('works at phone width', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    const deploymentId = web.server.demoDeploymentId;
    await api('POST', '/api/v1/embed-tenants', {
      name: 'globex',
      displayName: 'Globex Corporation International',
    });
    await api('POST', '/api/v1/embed-tenants/globex/groups', {
      name: 'analysts',
      description: 'Reads every dashboard',
    });
    await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      env_variables: [{ name: 'A_RATHER_LONG_WAREHOUSE_PASSWORD_NAME', value: 'x' }],
    });
    const pages: [string, string][] = [
      ['tenant', 'Regions'],
      ['embedding?tenant=globex', 'Groups of globex'],
      [`chat-agents?deployment=${deploymentId}`, 'Chat agents'],
      [`env-variables?deployment=${deploymentId}`, 'Env variables'],
    ];
    for (const [path, list] of pages) {
      await page.goto(`${web.baseUrl}/settings/${path}`);
      await page.getByRole('list', { name: list }).locator('li').first().waitFor();
      await browser.screenshot(`settings-admin-phone-${path.split('?')[0]}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('dialog', { name: 'Add env variable' }).waitFor();
    await browser.screenshot('settings-admin-phone-dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    // The sign-in redirect (401) and the refused inputs above (400) are logged by the browser; nothing else.
    const unexpected = browser.errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of (400|401)/.test(e),
    );
    expect(unexpected).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });

  it('shows a developer the chat agents and env variable names, and no admin page or admin button', async () => {
    const deploymentId = web.server.demoDeploymentId;
    const email = 'dev@example.com';
    const devPassword = 'a developer password';
    await api('POST', '/api/v1/users', { email, username: email, role: 'developer', password: devPassword });
    const developer = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    try {
      const { page } = developer;
      await page.goto(`${web.baseUrl}/sign-in?next=/settings/env-variables?deployment=${deploymentId}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(devPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Env variables', level: 1 }).waitFor();
      await page.getByRole('list', { name: 'Env variables' }).locator('li').first().waitFor();
      expect(await page.getByRole('button', { name: 'Add variable' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0);
      const nav = page.getByRole('navigation', { name: 'Settings' });
      expect(await nav.getByRole('link', { name: 'Chat agents' }).count()).toBe(1);
      expect(await nav.getByRole('link', { name: 'Tenant settings' }).count()).toBe(0);
      expect(await nav.getByRole('link', { name: 'Embedding' }).count()).toBe(0);
      await nav.getByRole('link', { name: 'Chat agents' }).click();
      await page.getByRole('button', { name: 'Add agent' }).waitFor();
      await developer.screenshot('settings-admin-developer-agents');
    } finally {
      await developer.close();
    }
  });
});
