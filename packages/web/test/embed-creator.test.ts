import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { bearer } from '../../server/test/harness.ts';
import {
  artifactsDir,
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  saveScreenshot,
  startBrowserServer,
} from './browser.ts';

const widgetCount = 6;
const copyName = 'Copy of Demo shop';
const renamed = 'Acme revenue board';
const notFoundText = 'This dashboard does not exist or is not available to this session.';

/**
 * Creator mode on the embed page (issue 12; spec 4.3 rules 1 and 2), in Debian's chromium against
 * a real server: a creator of tenant `acme` saves a copy of the host's dashboard and shares it with
 * its tenant group `ops`; a colleague in `ops` finds it under "Your team's dashboards" and opens it
 * with its charts drawn; a creator of tenant `bolt` never sees it nor `acme`'s groups; a session
 * without creator mode shows no creator controls at all. Back and Forward move between the
 * dashboards opened in the page; the owner renames its copy, removes the share (the colleague then
 * sees it no more) and deletes it (its address then answers "not found").
 */
describeInBrowser('embed page in creator mode', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let origin: string;
  let publicId: string;
  /** The copy acme's creator saved (its dashboard's public id), once the first test has run. */
  let copyPublicId = '';

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) {
    const res = await web.server.app.inject({
      method,
      url,
      headers: bearer(web.server.adminKey),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  /** A one-time session of the host's server for this user (spec 4.3 generate-session). */
  async function session(body: Record<string, unknown>): Promise<string> {
    const made = await api('POST', '/api/v1/embed/generate-session', {
      deploymentId: web.server.demoDeploymentId,
      ...body,
    });
    return made.sessionId;
  }
  const creator = (embedTenantName: string, externalId: string, tenantGroups: string[]) =>
    session({
      externalId,
      creatorMode: true,
      embedTenantName,
      tenantGroups,
      tenantGroupDefinitions: tenantGroups.map((name) => ({
        name,
        description: `${name} of ${embedTenantName}`,
      })),
    });

  /**
   * Opens the embed page on a dashboard (the host's unless `at` says) with `sessionId`, in a page of
   * its own, and waits for its charts unless `drawn` is false; the embed token the page redeemed
   * comes back for checks over HTTP, and the paths the page was answered 404 for are recorded.
   */
  async function open(
    sessionId: string,
    { at = publicId, drawn = true }: { at?: string; drawn?: boolean } = {},
  ): Promise<{ page: Page; token: string; notFound: string[] }> {
    const page = await browser.context.newPage();
    const notFound: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) notFound.push(new URL(r.url()).pathname);
    });
    const redeemed = page.waitForResponse((r) => r.url().endsWith('/api/v1/embed/session/token'));
    await page.goto(`${origin}/embed/dashboard/${at}?session=${sessionId}`);
    const token = (await (await redeemed).json()).token as string;
    if (drawn) await waitForDrawn(page, at);
    return { page, token, notFound };
  }

  /**
   * Both lists once complete (not busy), as the names of their entries: the tenant's space ("Your
   * team's dashboards") and what the host shared with the tenant ("Shared with your team").
   */
  async function lists(page: Page) {
    const team = page.getByRole('navigation', { name: "Your team's dashboards" });
    await team.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: 20_000 });
    const host = page.getByRole('navigation', { name: 'Shared with your team' });
    return {
      team: await team.getByRole('button').allTextContents(),
      host: await host.getByRole('button').allTextContents(),
    };
  }

  /**
   * Checks a page's expected 404 answers: there were some, each for one of `paths` (the addresses of
   * what is gone or hidden). Console lines Chromium may log for them are taken out of the session's
   * record, once checked to be about a 404 and nothing else.
   */
  function takeNotFoundErrors(from: number, notFound: string[], paths: RegExp) {
    const logged = browser.errors.splice(from);
    for (const line of logged) expect(line).toContain('404');
    expect(notFound.length).toBeGreaterThan(0);
    for (const path of notFound) expect(path).toMatch(paths);
  }

  /** The page's notice for a dashboard it cannot show (no dashboard drawn). */
  async function notFoundNotice(page: Page) {
    const notice = page.getByRole('alert').filter({ hasText: 'Cannot open this dashboard' });
    await notice.waitFor({ timeout: 20_000 });
    expect(await page.locator('.tsr-dashboard').count()).toBe(0);
    return notice.textContent();
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    origin = new URL(web.baseUrl).origin;
    const { server } = web;
    const board = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    publicId = board.publicId;
    // A global group, which a creator must never be offered.
    await api('POST', '/api/v1/groups', { name: 'everyone' });
    // The tenants and their groups come into being with their first sessions (never opened here).
    await creator('acme', 'setup-acme', ['ops']);
    await creator('bolt', 'setup-bolt', ['crew']);
    // The host shares its dashboard with both tenants (Dashboard Embed Access), so that their
    // creators may clone it from the shared workspace.
    for (const embedTenantName of ['acme', 'bolt'])
      await api(
        'PUT',
        `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${board.workbookId}/embed-access`,
        {
          embedTenantName,
          action: 'read',
        },
      );
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 1400 } });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it("saves a copy into the tenant's space, opens it, and shares it with a tenant group", async () => {
    const { page } = await open(await creator('acme', 'ada', ['ops']));
    // Nothing of the tenant's yet; the host's dashboard is listed apart, as the host's.
    expect(await lists(page)).toEqual({ team: [], host: ['Demo shop'] });
    // The host's dashboard is not hers to share, rename or delete: only a copy is.
    for (const name of ['Share', 'Rename', 'Delete'])
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);

    await page.getByRole('button', { name: 'Save a copy' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe(`Saved “${copyName}” to your team's space.`);
    // The copy opens in the same page, with the same token: another public id, charts drawn.
    await page.waitForURL((url) => url.pathname !== `/embed/dashboard/${publicId}`);
    copyPublicId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(copyPublicId).toMatch(/^[0-9A-Za-z]+$/);
    expect(copyPublicId).not.toBe(publicId);
    await waitForDrawn(page, copyPublicId);
    await expect
      .poll(() => lists(page), { timeout: 20_000 })
      .toEqual({ team: [copyName], host: ['Demo shop'] });
    const current = page.getByRole('button', { name: copyName, exact: true });
    expect(await current.getAttribute('aria-current')).toBe('page');

    // Share, by keyboard: the dialog offers acme's own group only (not bolt's, not the global one).
    await page.getByRole('button', { name: 'Share' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Share “${copyName}”` });
    await dialog.waitFor();
    const radios = dialog.getByRole('radio');
    await radios.first().waitFor();
    expect(await radios.count()).toBe(1);
    expect(await dialog.getByRole('group', { name: 'Share with a group' }).textContent()).toContain(
      'ops of acme',
    );
    await dialog.getByRole('radio', { name: /ops/ }).focus();
    await page.keyboard.press('Space');
    expect(await dialog.getByRole('radio', { name: /ops/ }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Share' }).click();
    await expect
      .poll(() => dialog.getByRole('status').textContent(), { timeout: 20_000 })
      .toBe('Shared with ops.');
    await dialog.getByText('Can view').waitFor();
    await dialogScreenshot(page, 'embed-creator-share');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await saveScreenshot(page, 'embed-creator-copy');
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('lets a colleague in the group open the shared copy with its charts drawn', async () => {
    expect(copyPublicId).not.toBe('');
    const { page } = await open(await creator('acme', 'bob', ['ops']));
    expect(await lists(page)).toEqual({ team: [copyName], host: ['Demo shop'] });
    await page.getByRole('button', { name: copyName, exact: true }).click();
    await page.waitForURL(`${origin}/embed/dashboard/${copyPublicId}`);
    await waitForDrawn(page, copyPublicId);
    expect(await page.getByRole('button', { name: copyName, exact: true }).getAttribute('aria-current')).toBe(
      'page',
    );
    // Shared with him to view: he may save a copy of his own, not share, rename or delete Ada's.
    expect(await page.getByRole('button', { name: 'Save a copy' }).count()).toBe(1);
    for (const name of ['Share', 'Rename', 'Delete'])
      expect(await page.getByRole('button', { name }).count(), name).toBe(0);
    const marks = await page.evaluate(() =>
      [...document.querySelectorAll('.tsr-tile')].map(
        (tile) =>
          tile.querySelectorAll('svg g.role-mark > *').length +
          tile.querySelectorAll('table tbody tr').length +
          (tile.querySelector('.tsr-figure-value')?.textContent?.trim() ? 1 : 0),
      ),
    );
    expect(marks).toHaveLength(widgetCount);
    for (const count of marks) expect(count).toBeGreaterThan(0);
    await saveScreenshot(page, 'embed-creator-colleague');
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it("shows another tenant's creator neither the copy nor the tenant's groups", async () => {
    expect(copyPublicId).not.toBe('');
    const { page, token } = await open(await creator('bolt', 'dee', ['crew']));
    expect(await lists(page)).toEqual({ team: [], host: ['Demo shop'] });
    // Its own copy, in its own space: its Share dialog offers bolt's group only.
    await page.getByRole('button', { name: 'Save a copy' }).click();
    await page.waitForURL((url) => url.pathname !== `/embed/dashboard/${publicId}`);
    const own = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(own).not.toBe(copyPublicId);
    await waitForDrawn(page, own);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: `Share “${copyName}”` });
    const radios = dialog.getByRole('radio');
    await radios.first().waitFor();
    expect(await radios.count()).toBe(1);
    const offered = await dialog.getByRole('group', { name: 'Share with a group' }).innerText();
    expect(offered).toContain('crew of bolt');
    expect(offered).not.toContain('ops');
    expect(offered).not.toContain('everyone');
    await dialogScreenshot(page, 'embed-creator-other-tenant');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // Nor does its token reach the copy by its address: the copy is acme's (404, not even 403).
    const answer = await fetch(`${origin}/api/v1/embed/dashboard/${copyPublicId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(404);
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('shows a session without creator mode no creator controls', async () => {
    const { page } = await open(await session({ externalId: 'eve', embedTenantName: 'acme' }));
    expect(await page.getByRole('navigation', { name: "Your team's dashboards" }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save a copy' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    await saveScreenshot(page, 'embed-creator-viewer');
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('moves Back and Forward between the dashboards opened in the page, without a reload', async () => {
    expect(copyPublicId).not.toBe('');
    const { page } = await open(await creator('acme', 'ada', ['ops']));
    let redemptions = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/v1/embed/session/token')) redemptions += 1;
    });
    // A mark on this document: a reload would start a new one without it.
    await page.evaluate(() => {
      (window as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    const sameDocument = () =>
      page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument);
    const current = (name: string) =>
      page.getByRole('button', { name, exact: true }).getAttribute('aria-current');
    expect(await lists(page)).toEqual({ team: [copyName], host: ['Demo shop'] });

    // Opened from the team list: a new entry in the history.
    await page.getByRole('button', { name: copyName, exact: true }).click();
    await page.waitForURL(`${origin}/embed/dashboard/${copyPublicId}`);
    await waitForDrawn(page, copyPublicId);
    // Saving a copy opens it too: a second entry (a copy of the copy, in her space).
    await page.getByRole('button', { name: 'Save a copy' }).click();
    await page.waitForURL((url) => url.pathname !== `/embed/dashboard/${copyPublicId}`);
    const second = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(second).not.toBe(publicId);
    await waitForDrawn(page, second);

    await page.goBack();
    await waitForDrawn(page, copyPublicId);
    expect(new URL(page.url()).pathname).toBe(`/embed/dashboard/${copyPublicId}`);
    expect(await current(copyName)).toBe('page');
    // The "Saved" notice was about the copy of the copy: not said on this page.
    expect(await page.getByRole('status').first().textContent()).toBe('');
    await page.goBack();
    await waitForDrawn(page, publicId);
    expect(new URL(page.url()).pathname).toBe(`/embed/dashboard/${publicId}`);
    expect(await current('Demo shop')).toBe('page');
    await saveScreenshot(page, 'embed-creator-back');
    await page.goForward();
    await waitForDrawn(page, copyPublicId);
    expect(new URL(page.url()).pathname).toBe(`/embed/dashboard/${copyPublicId}`);

    // One document, one redemption, and the session never back in the address.
    expect(await sameDocument()).toBe(true);
    expect(redemptions).toBe(0);
    expect(new URL(page.url()).search).toBe('');
    expect(browser.errors).toEqual([]);
    // The copy of the copy is not the subject of the tests that follow: it goes, through the API.
    const workbooks = await api(
      'GET',
      `/api/v1/deployments/${web.server.demoDeploymentId}/workbooks?first=100`,
    );
    const extra = workbooks.items.find((w: { name: string }) => w.name === `Copy of ${copyName}`);
    expect(extra).toBeDefined();
    const gone = await web.server.app.inject({
      method: 'DELETE',
      url: `/api/v1/deployments/${web.server.demoDeploymentId}/workbooks/${extra.id}`,
      headers: bearer(web.server.adminKey),
    });
    expect(gone.statusCode).toBe(200);
    await page.close();
  }, 120_000);

  it('renames a copy it owns, by keyboard; the team list shows the new name', async () => {
    expect(copyPublicId).not.toBe('');
    const { page } = await open(await creator('acme', 'ada', ['ops']), { at: copyPublicId });
    expect(await lists(page)).toEqual({ team: [copyName], host: ['Demo shop'] });
    await page.getByRole('button', { name: 'Rename' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Rename “${copyName}”` });
    await dialog.waitFor();
    const field = dialog.getByLabel('Name');
    // The field has the focus: typing replaces the selected name.
    await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true);
    // An empty name is refused here, saying why, and nothing changes.
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    expect(await dialog.getByRole('alert').textContent()).toBe('Enter a name.');
    await page.keyboard.type(renamed);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe(`Renamed “${copyName}” to “${renamed}”.`);
    await expect
      .poll(() => lists(page), { timeout: 20_000 })
      .toEqual({ team: [renamed], host: ['Demo shop'] });
    expect(await page.getByRole('button', { name: renamed, exact: true }).getAttribute('aria-current')).toBe(
      'page',
    );
    await saveScreenshot(page, 'embed-creator-rename');
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('removes a share it made; the colleague then sees the copy no more', async () => {
    expect(copyPublicId).not.toBe('');
    const { page } = await open(await creator('acme', 'ada', ['ops']), { at: copyPublicId });
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: `Share “${renamed}”` });
    const shares = dialog.getByRole('region', { name: 'Shared with' });
    await shares.waitFor();
    expect(await shares.getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('ops')]);
    await dialog.getByText('Can view').waitFor();
    await dialogScreenshot(page, 'embed-creator-shares');
    // By keyboard: the control names the group it stops sharing with.
    await shares.getByRole('button', { name: 'Stop sharing with ops' }).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => dialog.getByRole('status').textContent(), { timeout: 20_000 })
      .toBe('Stopped sharing with ops.');
    await shares.waitFor({ state: 'detached' });
    expect(await dialog.getByText('Can view').count()).toBe(0);
    // Focus stays in the dialog, so that the keyboard goes on from there.
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await dialogScreenshot(page, 'embed-creator-unshared');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(browser.errors).toEqual([]);
    await page.close();

    // Bob, in `ops`: not in his list, its address is "not found", and its reports are his no more.
    const bob = await open(await creator('acme', 'bob', ['ops']));
    expect(await lists(bob.page)).toEqual({ team: [], host: ['Demo shop'] });
    const reports = await fetch(`${origin}/api/v1/deployments/${web.server.demoDeploymentId}/reports`, {
      headers: { authorization: `Bearer ${bob.token}` },
    });
    expect((await reports.json()).items).toEqual([]);
    await bob.page.close();
    const from = browser.errors.length;
    const direct = await open(await creator('acme', 'bob', ['ops']), { at: copyPublicId, drawn: false });
    expect(await notFoundNotice(direct.page)).toContain(notFoundText);
    await saveScreenshot(direct.page, 'embed-creator-unshared-colleague');
    takeNotFoundErrors(from, direct.notFound, new RegExp(`^/api/v1/embed/dashboard/${copyPublicId}$`));
    await direct.page.close();
  }, 120_000);

  it('deletes a copy it owns after a confirm step; its address then shows "not found"', async () => {
    expect(copyPublicId).not.toBe('');
    const dep = web.server.demoDeploymentId;
    const workbookId = (await api('GET', `/api/v1/deployments/${dep}/workbooks?first=100`)).items.find(
      (w: { name: string }) => w.name === renamed,
    ).id;
    const { page, notFound } = await open(await creator('acme', 'ada', ['ops']));
    await page.getByRole('button', { name: renamed, exact: true }).click();
    await waitForDrawn(page, copyPublicId);

    // The confirm step has the focus on Cancel: Enter alone deletes nothing.
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete “${renamed}”?` });
    await confirm.waitFor();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'hidden' });
    expect(await lists(page)).toEqual({ team: [renamed], host: ['Demo shop'] });
    await waitForDrawn(page, copyPublicId);

    const from = browser.errors.length;
    await page.getByRole('button', { name: 'Delete' }).click();
    await confirm.waitFor();
    await dialogScreenshot(page, 'embed-creator-delete-confirm');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe(`Deleted “${renamed}”.`);
    expect(await notFoundNotice(page)).toContain(notFoundText);
    expect(new URL(page.url()).pathname).toBe(`/embed/dashboard/${copyPublicId}`);
    await expect.poll(() => lists(page), { timeout: 20_000 }).toEqual({ team: [], host: ['Demo shop'] });
    await saveScreenshot(page, 'embed-creator-deleted');

    // Back returns to the dashboard before it, drawn; Forward to the deleted one's "not found".
    await page.goBack();
    await waitForDrawn(page, publicId);
    await page.goForward();
    expect(new URL(page.url()).pathname).toBe(`/embed/dashboard/${copyPublicId}`);
    expect(await notFoundNotice(page)).toContain(notFoundText);
    // The only failed loads are the deleted workbook's and its dashboard's addresses.
    takeNotFoundErrors(
      from,
      notFound,
      new RegExp(
        `^/api/v1/(embed/dashboard/${copyPublicId}|deployments/${dep}/(workbooks/${workbookId}|permissions))$`,
      ),
    );
    expect(browser.errors).toEqual([]);
    await page.close();

    // Over HTTP with the admin key: the workbook and its dashboard are gone.
    const answer = await web.server.app.inject({
      method: 'GET',
      url: `/api/v1/embed/dashboard/${copyPublicId}`,
      headers: bearer(web.server.adminKey),
    });
    expect(answer.statusCode).toBe(404);
  }, 120_000);
});

/**
 * A PNG of the viewport with a modal dialog open: a full-page capture redraws the charts behind the
 * dialog's backdrop while it is taken, so that they show blank or squeezed (a capture artefact: the
 * same tiles stay drawn at full width in the page, as a viewport capture shows).
 */
async function dialogScreenshot(page: Page, name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: path.join(artifactsDir, `${name}.png`), animations: 'disabled' });
}

/**
 * Waits until the dashboard `id` is the one shown and every one of its tiles has drawn; fails fast
 * on a tile in error.
 */
async function waitForDrawn(page: Page, id: string) {
  await page.waitForFunction(
    ({ count, id }) => {
      const root = document.querySelector('.tsr-dashboard');
      if (root?.getAttribute('data-public-id') !== id) return false;
      const tiles = [...root.querySelectorAll('.tsr-tile[data-state]')];
      const failed = tiles.find((t) => t.getAttribute('data-state') === 'error');
      if (failed) throw new Error(`widget ${failed.getAttribute('data-widget-id')}: ${failed.textContent}`);
      return tiles.length === count && tiles.every((t) => t.getAttribute('data-state') === 'drawn');
    },
    { count: widgetCount, id },
    { timeout: 45_000 },
  );
}
