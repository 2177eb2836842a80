import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, userWithKey } from '../../server/test/harness.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const password = 'sharing is caring, within reason';

/**
 * The Share dialog (issue 23 item 4) against a real server: an admin shares a workbook with a
 * group from its page, sees the access it inherits from its folder, changes and removes grants;
 * a member of the group then opens the workbook, a non-member is refused (403, spec 5: the credential is valid, not authorized for the item).
 */
describeInBrowser('sharing folders, workbooks and reports (issue 23 item 4)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let workbook: { id: number };
  let member: { email: string; key: string };
  let outsider: { email: string; key: string };

  async function api(method: 'GET' | 'POST' | 'PUT', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }
  const base = () => `/api/v1/deployments/${deploymentId}`;
  const workbookUrl = () => `${web.baseUrl}/workspace/${deploymentId}/workbooks/${workbook.id}`;
  /** The workbook's group grants (its creator's own grant aside). */
  const grants = async () =>
    (
      (await api('GET', `${base()}/permissions?type=WORKBOOK&id=${workbook.id}`)).items as {
        groupId: number | null;
        level: string;
      }[]
    ).filter((g) => g.groupId !== null);

  async function viewer() {
    const made = await userWithKey(web.server, 'viewer');
    await api('PUT', `/api/v1/users/${made.user.id}/password`, { password });
    return { id: made.user.id as number, email: made.user.email as string, key: made.key };
  }

  async function signIn(session: BrowserSession, email: string, next: string) {
    await session.page.goto(next);
    await session.page.waitForURL(/\/sign-in\?next=/);
    await session.page.getByLabel('Email').fill(email);
    await session.page.getByLabel('Password').fill(password);
    await session.page.getByRole('button', { name: 'Sign in' }).click();
    await session.page.waitForURL(next);
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    const folder = await api('POST', `${base()}/folders`, { name: 'Finance' });
    workbook = await api('POST', `${base()}/workbooks`, { name: 'Quarterly board', folderId: folder.id });
    const analysts = await api('POST', '/api/v1/groups', { name: 'Analysts' });
    const auditors = await api('POST', '/api/v1/groups', { name: 'Auditors' });
    const m = await viewer();
    await api('POST', `/api/v1/groups/${analysts.id}/members`, { userId: m.id });
    member = m;
    outsider = await viewer();
    // The folder's own grant, which the workbook inherits.
    await api('PUT', `${base()}/permissions`, {
      type: 'FOLDER',
      id: folder.id,
      groupId: auditors.id,
      level: 'view',
    });
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await signIn(browser, admin.email, workbookUrl());
    // (the 401 before signing in is a console error of its own, on purpose)
    browser.errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('shares a workbook with a group from its page, and shows what it inherits from its folder', async () => {
    const { page } = browser;
    const asMember = () =>
      web.server.app.inject({ url: `${base()}/workbooks/${workbook.id}`, headers: bearer(member.key) });
    // Spec 5: a valid credential not authorized for the item is a 403 (the item exists).
    expect((await asMember()).statusCode).toBe(403);

    await page.getByRole('heading', { name: 'Quarterly board', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Share…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share “Quarterly board”' });
    // Its creator's own manage grant is listed, as any other.
    const own = dialog.getByRole('region', { name: 'Access to this item' });
    await own.locator('.share-who', { hasText: 'Tessera Admin' }).waitFor();
    expect(await own.getByLabel('Access of Tessera Admin', { exact: true }).inputValue()).toBe('manage');
    const inherited = dialog.getByRole('region', { name: 'Inherited access' });
    await inherited.getByText('Group: Auditors').waitFor();
    expect(await inherited.textContent()).toContain('Can view');
    expect(await inherited.textContent()).toContain('through the folder “Finance”');

    await expect.poll(() => dialog.locator('option', { hasText: 'Group: Analysts' }).count()).toBe(1);
    await dialog.getByLabel('Person or group').selectOption({ label: 'Group: Analysts' });
    await dialog.getByLabel('Access', { exact: true }).selectOption('view');
    await dialog.getByRole('button', { name: 'Share' }).click();
    await own.locator('.share-who', { hasText: 'Group: Analysts' }).waitFor();
    expect(await grants()).toMatchObject([{ level: 'view' }]);
    expect((await asMember()).statusCode).toBe(200);
    await browser.screenshot('share-01-dialog');

    // The level changes in place; the change is the server's.
    await own.getByLabel('Access of Group: Analysts', { exact: true }).selectOption('edit');
    await expect.poll(async () => (await grants())[0]?.level).toBe('edit');
    expect(browser.errors).toEqual([]);
  });

  it('opens for a member of the group; a non-member is refused', async () => {
    const asMember = await openBrowser(web.baseUrl);
    const asOutsider = await openBrowser(web.baseUrl, { viewport: { width: 390, height: 844 } });
    try {
      await signIn(asMember, member.email, workbookUrl());
      await asMember.page.getByRole('heading', { name: 'Quarterly board', level: 1 }).waitFor();
      await signIn(asOutsider, outsider.email, workbookUrl());
      await asOutsider.page.getByText('This workbook could not be opened').waitFor();
      expect(
        (
          await web.server.app.inject({
            url: `${base()}/workbooks/${workbook.id}`,
            headers: bearer(outsider.key),
          })
        ).statusCode,
      ).toBe(403);
      await asOutsider.screenshot('share-02-outsider-phone');
    } finally {
      await asMember.close();
      await asOutsider.close();
    }
  });

  it('removes the grant, and the member loses access; at phone width the dialog fits', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    const dialog = page.getByRole('dialog', { name: 'Share “Quarterly board”' });
    await dialog.getByRole('button', { name: 'Remove the access of Group: Analysts' }).click();
    await dialog.locator('.share-who', { hasText: 'Group: Analysts' }).waitFor({ state: 'detached' });
    expect(await grants()).toEqual([]);
    const status = await web.server.app.inject({
      url: `${base()}/workbooks/${workbook.id}`,
      headers: bearer(member.key),
    });
    expect(status.statusCode).toBe(403);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await browser.screenshot('share-03-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
