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

const adminPassword = 'correct horse battery staple';
const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };

/**
 * Issue 22 item 8: the Settings pages of users, roles and the user's own profile, by keyboard and
 * at phone width, with the API's field errors beside the fields.
 */
describeInBrowser('settings: users, roles, profile', () => {
  let web: BrowserServer;
  let browser: BrowserSession;

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** Both widths of the page as it is now, for a person to look at. */
  async function shots(name: string) {
    const { page } = browser;
    await browser.screenshot(`settings-${name}-desktop`);
    await page.setViewportSize(phone);
    await browser.screenshot(`settings-${name}-phone`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} scrolls sideways at phone width`).toBeLessThanOrEqual(0);
    await page.setViewportSize(desktop);
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password: adminPassword });
    browser = await openBrowser(web.baseUrl);
    const { page } = browser;
    await page.goto(`${web.baseUrl}/sign-in`);
    await page.getByLabel('Email').fill(web.server.adminEmail);
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/workspace/);
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('asks the first admin for an address mail can reach, and shows the refusal beside the field', async () => {
    const { page } = browser;
    const prompt = page.locator('.email-prompt');
    await prompt.waitFor();
    expect(await prompt.textContent()).toContain('No mail can reach admin@localhost');
    await prompt.getByRole('link', { name: 'Give your email address' }).click();
    await page.waitForURL(`${web.baseUrl}/settings/profile`);
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    expect(await page.getByLabel('Given name').inputValue()).toBe('Tessera');
    expect(await page.getByLabel('Family name').inputValue()).toBe('Admin');
    // The server's answer for an address no mail reaches, beside the Email field.
    await page.getByLabel('Email').fill('admin@intranet');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.locator('.field-error').first().waitFor();
    const emailError = page.locator('#' + (await page.getByLabel('Email').getAttribute('aria-describedby')));
    await emailError.waitFor();
    expect(await emailError.textContent()).toContain('an address mail can reach');
    expect(await page.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    // A wrong current password, beside its field.
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password (at least 12 characters)').fill('a new long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('is not your current password').waitFor();
    await shots('profile-errors');

    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile is saved.').waitFor();
    expect((await api('GET', `/api/v1/users/${web.server.adminUserId}`)).email).toBe('owner@example.com');
    expect(await page.getByText('No mail can reach').count()).toBe(0);
    await page.getByLabel('Current password').fill(adminPassword);
    await page.getByLabel('New password (at least 12 characters)').fill('an even longer password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    await shots('profile-saved');
  });

  it('invites a user by keyboard, with the refusal beside the field, then edits their role', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'Users' }).waitFor();
    // The address given on the Profile page ended the prompt on every page.
    expect(await page.locator('.email-prompt').count()).toBe(0);
    // Keyboard only: the button opens the dialog, the email field has the focus, Tab moves on.
    await page.getByRole('button', { name: 'Invite user' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Invite user' });
    await dialog.waitFor();
    await page.keyboard.type('not-an-address');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Grace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Hopper');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('short');
    await page.keyboard.press('Enter');
    await dialog.locator('.field-error').first().waitFor();
    const errorOf = async (label: string) => {
      const id = await dialog.getByLabel(label).getAttribute('aria-describedby');
      return id ? dialog.locator(`#${id}`).textContent() : null;
    };
    expect(await errorOf('Email')).toMatch(/email/i);
    expect(await errorOf('Initial password')).toMatch(/12/);
    await shots('users-invite-errors');

    await dialog.getByLabel('Email').fill('grace@example.com');
    await dialog.getByLabel('Initial password').fill('grace password 2024');
    await dialog.getByLabel('Role').selectOption('developer');
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Grace Hopper can now sign in as grace@example.com.').first().waitFor();
    const row = page
      .getByRole('list', { name: 'Users' })
      .getByRole('listitem')
      .filter({ hasText: 'Grace Hopper' });
    expect(await row.textContent()).toContain('Developer');

    // Edit: a name taken by nobody, a role, and an email another user has (409 said in the dialog).
    await row.getByRole('button', { name: 'Edit Grace Hopper' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Grace Hopper' });
    await edit.getByLabel('Email').fill('owner@example.com');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.getByRole('alert').waitFor();
    expect(await edit.getByRole('alert').textContent()).toMatch(/already exists/);
    await edit.getByLabel('Email').fill('grace.hopper@example.com');
    await edit.getByLabel('Family name').fill('Brewster Hopper');
    await edit.getByLabel('Role').selectOption('viewer');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved Grace Brewster Hopper.').first().waitFor();
    const edited = page.getByRole('listitem').filter({ hasText: 'Grace Brewster Hopper' });
    expect(await edited.textContent()).toContain('Viewer');
    expect(await edited.textContent()).toContain('grace.hopper@example.com');
    await shots('users-list');
  });

  it('deactivates a user: their key stops working at once, and they can be activated again', async () => {
    const { page } = browser;
    const users = (await api('GET', '/api/v1/users?first=100')).items as { id: number; email: string }[];
    const grace = users.find((u) => u.email === 'grace.hopper@example.com');
    const key = (await api('POST', '/api/v1/api-keys', { name: 'grace', userId: grace?.id })).key as string;
    const asGrace = () =>
      web.server.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(key) });
    expect((await asGrace()).statusCode).toBe(200);
    const row = page.getByRole('listitem').filter({ hasText: 'Grace Brewster Hopper' });
    await row.getByRole('button', { name: 'Deactivate Grace Brewster Hopper' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Deactivate Grace Brewster Hopper?' });
    await shots('users-deactivate-confirm');
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByText('Deactivated').waitFor();
    expect((await asGrace()).statusCode).toBe(401);
    await shots('users-deactivated');
    await row.getByRole('button', { name: 'Activate Grace Brewster Hopper' }).click();
    await page.getByText('is active again').first().waitFor();
    expect(await row.getByText('Deactivated').count()).toBe(0);
  });

  it('creates, edits and deletes a custom role, and assigns it on the Users page', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByText('No custom roles yet.').waitFor();
    await page.getByRole('button', { name: 'New role' }).click();
    const dialog = page.getByRole('dialog', { name: 'New role' });
    await dialog.getByLabel('Name').fill('Developer');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const nameError = async () => {
      const id = await dialog.getByLabel('Name').getAttribute('aria-describedby');
      return id ? dialog.locator(`#${id}`).textContent() : null;
    };
    await dialog.locator('.field-error').waitFor();
    expect(await nameError()).toContain('built-in role');
    await shots('roles-error');
    await dialog.getByLabel('Name').fill('Demo builders');
    await dialog.getByLabel('Description').fill('Build on the demo');
    await dialog.getByLabel('Account-wide').selectOption('view');
    await dialog.getByLabel('Demo').check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = page
      .getByRole('list', { name: 'Roles' })
      .getByRole('listitem')
      .filter({ hasText: 'Demo builders' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Viewer everywhere; builds on Demo');
    await shots('roles-list');

    await row.getByRole('button', { name: 'Edit Demo builders' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Demo builders' });
    await edit.getByLabel('Account-wide').selectOption('develop');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved the role Demo builders.').first().waitFor();
    expect(await row.textContent()).toContain('Developer everywhere');

    // Assign it on the Users page.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click();
    const grace = page.getByRole('listitem').filter({ hasText: 'Grace Brewster Hopper' });
    await grace.getByRole('button', { name: 'Edit Grace Brewster Hopper' }).click();
    const editUser = page.getByRole('dialog', { name: 'Edit Grace Brewster Hopper' });
    await editUser.getByLabel('Demo builders').check();
    await editUser.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved Grace Brewster Hopper.').first().waitFor();
    await grace.getByText('Demo builders').waitFor();

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Roles' }).click();
    await row.getByRole('button', { name: 'Delete Demo builders' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Demo builders?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('No custom roles yet.').waitFor();
    // The refusals above are answers the pages show; nothing else went wrong in the page.
    expect(browser.errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
  });

  it('creates a key scoped to one deployment, shows it once, and revokes it', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('list', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    // No name: the server's answer beside the Name field.
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.locator('.field-error').waitFor();
    const id = await dialog.getByLabel('Name').getAttribute('aria-describedby');
    expect(await dialog.locator(`#${id}`).textContent()).toBeTruthy();
    await shots('api-keys-error');
    await dialog.getByLabel('Name').fill('Nightly export');
    await dialog.getByLabel('Deployments', { exact: true }).selectOption('some');
    await dialog.getByLabel('Demo').check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new key Nightly export' });
    const secret = await shown.getByLabel('API key').inputValue();
    expect(secret).toMatch(/^tsk_/);
    await shots('api-keys-shown-once');
    await shown.getByRole('button', { name: 'Done' }).click();
    // The key works on its deployment only, and the page never shows it again.
    const demo = web.server.demoDeploymentId;
    const call = (url: string) => web.server.app.inject({ method: 'GET', url, headers: bearer(secret) });
    expect((await call(`/api/v1/deployments/${demo}/workbooks`)).statusCode).toBe(200);
    const row = page.getByRole('listitem').filter({ hasText: 'Nightly export' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Demo');
    expect(await page.content()).not.toContain(secret);
    await shots('api-keys-list');
    await row.getByRole('button', { name: 'Revoke Nightly export' }).click();
    await page
      .getByRole('alertdialog', { name: 'Revoke Nightly export?' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await page.getByText('Revoked the key Nightly export').first().waitFor();
    expect((await call(`/api/v1/deployments/${demo}/workbooks`)).statusCode).toBe(401);
    expect(await page.getByRole('listitem').filter({ hasText: 'Nightly export' }).count()).toBe(0);
  });

  it('creates a group, adds and removes a member, and deletes it', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await page.getByText('No groups yet.').waitFor();
    await page.getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    await dialog.getByLabel('Name').fill('   ');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.locator('.field-error').waitFor();
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await shots('groups-error');
    await dialog.getByLabel('Name').fill('Finance');
    await dialog.getByLabel('Description').fill('Month-end reporting');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = page
      .getByRole('list', { name: 'Groups' })
      .getByRole('listitem')
      .filter({ hasText: 'Finance' });
    await row.waitFor();
    expect(await row.textContent()).toContain('0 members');

    await row.getByRole('button', { name: 'Members of Finance' }).click();
    const members = page.getByRole('dialog', { name: 'Members of Finance' });
    await members.getByText('No members yet.').waitFor();
    await members
      .getByLabel('Add a member')
      .selectOption({ label: 'Grace Brewster Hopper (grace.hopper@example.com)' });
    await members.getByRole('button', { name: 'Add', exact: true }).click();
    await members
      .getByRole('button', { name: 'Remove Grace Brewster Hopper (grace.hopper@example.com)' })
      .waitFor();
    await shots('groups-members');
    await members.getByRole('button', { name: 'Done' }).click();
    await row.getByText('1 member').waitFor();
    await row.getByRole('button', { name: 'Members of Finance' }).click();
    await members
      .getByRole('button', { name: 'Remove Grace Brewster Hopper (grace.hopper@example.com)' })
      .click();
    await members.getByText('No members yet.').waitFor();
    await members.getByRole('button', { name: 'Done' }).click();
    await row.getByText('0 members').waitFor();
    await shots('groups-list');

    await row.getByRole('button', { name: 'Delete Finance' }).click();
    await page
      .getByRole('alertdialog', { name: 'Delete Finance?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('No groups yet.').waitFor();
  });
});
