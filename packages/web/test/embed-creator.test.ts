import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDashboard } from '../../server/src/bootstrap/demo-dashboard.ts';
import { bearer } from '../../server/test/harness.ts';
import {
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

/**
 * Creator mode on the embed page (issue 12; spec 4.3 rules 1 and 2), in Debian's chromium against
 * a real server: a creator of tenant `acme` saves a copy of the host's dashboard and shares it with
 * its tenant group `ops`; a colleague in `ops` finds it under "Your team's dashboards" and opens it
 * with its charts drawn; a creator of tenant `bolt` never sees it nor `acme`'s groups; a session
 * without creator mode shows no creator controls at all.
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
   * Opens the embed page on the host's dashboard with `sessionId`, in a page of its own, and
   * waits for its charts; the embed token the page redeemed comes back for checks over HTTP.
   */
  async function open(sessionId: string): Promise<{ page: Page; token: string }> {
    const page = await browser.context.newPage();
    const redeemed = page.waitForResponse((r) => r.url().endsWith('/api/v1/embed/session/token'));
    await page.goto(`${origin}/embed/dashboard/${publicId}?session=${sessionId}`);
    const token = (await (await redeemed).json()).token as string;
    await waitForDrawn(page);
    return { page, token };
  }

  /** The team list once complete (not busy), as the names of its entries. */
  async function teamList(page: Page) {
    const nav = page.getByRole('navigation', { name: "Your team's dashboards" });
    await nav.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: 20_000 });
    return nav.getByRole('button').allTextContents();
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
    expect(await teamList(page)).toEqual(['Demo shop']);
    // The host's dashboard is not hers to share: only a copy is.
    expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Save a copy' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toBe(`Saved “${copyName}” to your team's space.`);
    // The copy opens in the same page, with the same token: another public id, charts drawn.
    await page.waitForURL((url) => url.pathname !== `/embed/dashboard/${publicId}`);
    copyPublicId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(copyPublicId).toMatch(/^[0-9A-Za-z]+$/);
    expect(copyPublicId).not.toBe(publicId);
    await waitForDrawn(page);
    expect((await teamList(page)).sort()).toEqual(['Demo shop', copyName].sort());
    const current = page.getByRole('button', { name: copyName });
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
    await saveScreenshot(page, 'embed-creator-share');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await saveScreenshot(page, 'embed-creator-copy');
    expect(browser.errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('lets a colleague in the group open the shared copy with its charts drawn', async () => {
    expect(copyPublicId).not.toBe('');
    const { page } = await open(await creator('acme', 'bob', ['ops']));
    expect((await teamList(page)).sort()).toEqual(['Demo shop', copyName].sort());
    await page.getByRole('button', { name: copyName }).click();
    await page.waitForURL(`${origin}/embed/dashboard/${copyPublicId}`);
    await waitForDrawn(page);
    expect(await page.getByRole('button', { name: copyName }).getAttribute('aria-current')).toBe('page');
    // Shared with him to view: he may save a copy of his own, not share Ada's.
    expect(await page.getByRole('button', { name: 'Save a copy' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
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
    expect(await teamList(page)).toEqual(['Demo shop']);
    // Its own copy, in its own space: its Share dialog offers bolt's group only.
    await page.getByRole('button', { name: 'Save a copy' }).click();
    await page.waitForURL((url) => url.pathname !== `/embed/dashboard/${publicId}`);
    const own = new URL(page.url()).pathname.split('/').pop();
    expect(own).not.toBe(copyPublicId);
    await waitForDrawn(page);
    await page.getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: `Share “${copyName}”` });
    const radios = dialog.getByRole('radio');
    await radios.first().waitFor();
    expect(await radios.count()).toBe(1);
    const offered = await dialog.getByRole('group', { name: 'Share with a group' }).innerText();
    expect(offered).toContain('crew of bolt');
    expect(offered).not.toContain('ops');
    expect(offered).not.toContain('everyone');
    await saveScreenshot(page, 'embed-creator-other-tenant');
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
});

/** Waits until every tile of the dashboard has drawn; fails fast on a tile in error. */
async function waitForDrawn(page: Page) {
  await page.waitForFunction(
    (count) => {
      const tiles = [...document.querySelectorAll('.tsr-tile[data-state]')];
      const failed = tiles.find((t) => t.getAttribute('data-state') === 'error');
      if (failed) throw new Error(`widget ${failed.getAttribute('data-widget-id')}: ${failed.textContent}`);
      return tiles.length === count && tiles.every((t) => t.getAttribute('data-state') === 'drawn');
    },
    widgetCount,
    { timeout: 45_000 },
  );
}
