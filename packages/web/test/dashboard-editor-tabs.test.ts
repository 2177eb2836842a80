import type { DashboardDraft, Widget } from '@tessera/dashboard';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

const password = 'tabs and grains';
const desktop = { width: 1280, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Issue 23 item 1, the editor's time-grain switchers, tabs and theme: each edited in the browser,
 * saved in the draft, named in the publish diff, and seen in the viewer (the grain a switcher
 * starts at, the tabs as a keyboard-usable tablist with the chosen tab in the address, every tab
 * in the print view) and, for the theme, on the editor's grid as it is typed.
 */
describeInBrowser('dashboard editor: time-grain switchers, tabs and theme', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let workbookId: number;
  let monthly: { id: number };
  let byStatus: { id: number };

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }
  const base = () => `/api/v1/deployments/${deploymentId}`;
  const editUrl = () => `${web.baseUrl}/workspace/${deploymentId}/workbooks/${workbookId}/edit`;
  const serverDraft = async (): Promise<DashboardDraft> =>
    (await api('GET', `${base()}/workbooks/${workbookId}`)).dashboardDraft;
  const saved = async (page: Page) => {
    try {
      await page.locator('[data-save-state="saved"]').waitFor({ timeout: 15_000 });
    } catch (error) {
      const status = await page.locator('[data-save-state]').textContent();
      throw new Error(`The editor says "${status}" rather than that all is saved`, { cause: error });
    }
  };
  /** Publishes the draft from the editor; returns the diff's text as the dialog showed it. */
  async function publish(page: Page, title: string, version: number): Promise<string> {
    await page.getByRole('button', { name: 'Publish…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the dashboard' });
    const diff = dialog.getByRole('region', { name: 'Changes to publish' });
    await diff.waitFor();
    const text = (await diff.textContent()) ?? '';
    await dialog.getByLabel('Title').fill(title);
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await page.getByText(`Published version ${version}.`).waitFor();
    return text;
  }
  const viewerUrl = async () => {
    const wb = await api('GET', `${base()}/workbooks/${workbookId}`);
    return `${web.baseUrl}/dashboards/${deploymentId}/${wb.publishedDashboard.publicId}`;
  };

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    workbookId = (await api('POST', `${base()}/workbooks`, { name: 'Tabbed' })).id;
    monthly = await api('POST', `${base()}/reports`, {
      name: 'Orders by month',
      jsonQuery: JSON.stringify({
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      }),
      workbookId,
    });
    byStatus = await api('POST', `${base()}/reports`, {
      name: 'Orders by status',
      jsonQuery: JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.status'] }),
      workbookId,
    });
    const at = (x: number) => ({ x, y: 0, w: 6, h: 6 });
    await api('PUT', `${base()}/workbooks/${workbookId}/dashboard`, {
      dashboardDraft: {
        widgets: [
          { id: 'trend', type: 'CHART', position: at(0), config: { reportId: monthly.id } },
          { id: 'status', type: 'CHART', position: at(6), config: { reportId: byStatus.id } },
        ],
      },
    });
    browser = await openBrowser(web.baseUrl, { viewport: desktop });
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    const { page } = browser;
    await page.goto(editUrl());
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Edit:/, level: 1 }).waitFor();
    browser.errors.splice(0);
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('adds, edits and removes a time-grain switcher; the viewer starts at its grain', async () => {
    const { page } = browser;
    const panel = page.getByRole('region', { name: 'Time-grain switchers' });
    await panel.getByText('Automatic: viewers get a switcher').waitFor();
    const form = panel.getByRole('form', { name: 'Add a time-grain switcher' });
    // Bad input is named beside its field and adds nothing.
    await form.getByLabel('Time dimension').fill('created at');
    for (const g of ['Day', 'Week', 'Month', 'Quarter', 'Year'])
      await form.getByRole('checkbox', { name: g }).uncheck();
    await form.getByRole('button', { name: 'Add switcher' }).click();
    await form.getByText('Name a time dimension as cube.member').waitFor();
    await form.getByText('Offer at least one grain').waitFor();
    expect(await panel.locator('[data-grain-switcher]').count()).toBe(0);

    await form.getByLabel('Time dimension').fill('orders.created_at');
    for (const g of ['Week', 'Month', 'Quarter']) await form.getByRole('checkbox', { name: g }).check();
    await form.getByLabel('Starts at').selectOption('week');
    await form.getByRole('button', { name: 'Add switcher' }).click();
    const item = panel.locator('[data-grain-switcher="orders.created_at"]');
    await item.waitFor();
    // Edited in place: a grain more.
    await item.getByRole('checkbox', { name: 'Year' }).check();
    await saved(page);
    expect((await serverDraft()).settings?.timeGrains).toEqual([
      { member: 'orders.created_at', grains: ['week', 'month', 'quarter', 'year'], defaultGrain: 'week' },
    ]);
    await browser.screenshot('dashboard-editor-grains-desktop');

    const diff = await publish(page, 'Tabbed board', 1);
    expect(diff).toContain('Time-grain switchers added');
    expect(diff).toContain('orders.created_at: week, month, quarter, year (starts at week)');

    // The viewer offers the switcher's grains and starts at its default: the chart is by week.
    const viewer = await browser.context.newPage();
    await viewer.goto(await viewerUrl());
    const select = viewer.locator('[data-control="orders.created_at"][data-kind="grain"] select');
    await expect.poll(() => select.inputValue(), { timeout: 15_000 }).toBe('week');
    expect(await select.locator('option').allTextContents()).toEqual(['Week', 'Month', 'Quarter', 'Year']);
    await viewer.getByRole('heading', { name: 'Orders by week' }).waitFor({ timeout: 15_000 });
    await viewer.close();

    // Removed: the diff says so.
    await item.getByRole('button', { name: 'Remove the time-grain switcher on orders.created_at' }).click();
    await panel.getByText('No time-grain switchers').waitFor();
    await saved(page);
    expect((await serverDraft()).settings?.timeGrains).toEqual([]);
    await page.getByRole('button', { name: 'Publish…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the dashboard' });
    await expect
      .poll(() => dialog.getByRole('region', { name: 'Changes to publish' }).textContent())
      .toContain('Time-grain switchers removed');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // Undo brings it back.
    await page.keyboard.press('Control+z');
    await item.waitFor();
    await saved(page);
  });

  it('adds, renames, reorders and deletes tabs and moves a widget to one; the viewer shows them', async () => {
    const { page } = browser;
    const panel = page.getByRole('region', { name: 'Tabs' });
    await panel.getByLabel('New tab’s name').fill('Details');
    await panel.getByRole('button', { name: 'Add tab' }).click();
    const tablist = page.getByRole('tablist', { name: 'Dashboard tabs' });
    await expect.poll(() => tablist.getByRole('tab').allTextContents()).toEqual(['Overview', 'Details']);
    // The new tab is the one shown, empty; the widgets there were are on Overview.
    expect(await tablist.getByRole('tab', { name: 'Details' }).getAttribute('aria-selected')).toBe('true');
    await page.getByText('No widgets on this tab yet').waitFor();
    await tablist.getByRole('tab', { name: 'Overview' }).click();
    await expect.poll(() => page.locator('.tsr-edit-tile').count()).toBe(2);

    // Move the status chart to Details: the grid follows it there.
    await page.locator('.tsr-edit-tile[data-widget-id="status"] .tsr-edit-name').click();
    await page.getByRole('combobox', { name: 'Tab', exact: true }).selectOption({ label: 'Details' });
    await expect.poll(() => tablist.getByRole('tab', { selected: true }).textContent()).toBe('Details');
    await expect
      .poll(() => page.locator('.tsr-edit-tile').evaluateAll((t) => t.map((e) => e.dataset.widgetId)))
      .toEqual(['status']);

    // Rename, add one more and move it first-but-one, add and delete an empty one.
    await panel.getByLabel('Name of tab 2').fill('Breakdown');
    await panel.getByLabel('New tab’s name').fill('Trends');
    await panel.getByRole('button', { name: 'Add tab' }).click();
    await panel.getByRole('button', { name: 'Move Trends earlier' }).click();
    await panel.getByLabel('New tab’s name').fill('Scratch');
    await panel.getByRole('button', { name: 'Add tab' }).click();
    await panel.getByRole('button', { name: 'Delete the tab Scratch' }).click();
    await expect
      .poll(() => tablist.getByRole('tab').allTextContents())
      .toEqual(['Overview', 'Trends', 'Breakdown']);
    await saved(page);
    const draft = await serverDraft();
    const tabs = draft.settings?.tabs as { id: string; title: string }[];
    expect(tabs.map((t) => t.title)).toEqual(['Overview', 'Trends', 'Breakdown']);
    const tabOf = (id: string) => (draft.widgets as Widget[]).find((w) => w.id === id)?.config?.tabId;
    expect([tabOf('trend'), tabOf('status')]).toEqual([tabs[0].id, tabs[2].id]);
    await browser.screenshot('dashboard-editor-tabs-desktop');

    const diff = await publish(page, 'Tabbed board', 2);
    expect(diff).toContain('Tabs added');
    expect(diff).toContain('Overview, Trends, Breakdown');
    expect(diff).toContain('Orders by status (place, moved to tab “Breakdown”)');
    expect(diff).not.toContain('Orders by month');

    // The viewer: a tablist used by keyboard, the chosen tab in the address.
    const viewer = await browser.context.newPage();
    const url = await viewerUrl();
    await viewer.goto(url);
    const vtabs = viewer.getByRole('tablist', { name: 'Dashboard tabs' });
    await vtabs.getByRole('tab').first().waitFor();
    await expect
      .poll(() => vtabs.getByRole('tab').allTextContents())
      .toEqual(['Overview', 'Trends', 'Breakdown']);
    const panelEl = viewer.getByRole('tabpanel', { name: 'Overview' });
    await panelEl.locator('.tsr-tile').first().waitFor();
    expect(await panelEl.locator('.tsr-tile-title').allTextContents()).toEqual(['Orders by week']);
    await vtabs.getByRole('tab', { name: 'Overview' }).focus();
    await viewer.keyboard.press('ArrowRight');
    await viewer
      .getByRole('tabpanel', { name: 'Trends' })
      .getByText('This tab has no widgets yet.')
      .waitFor();
    expect(await viewer.evaluate(() => document.activeElement?.textContent)).toBe('Trends');
    expect(new URL(viewer.url()).searchParams.get('tab')).toBe(tabs[1].id);
    await viewer.keyboard.press('End');
    const breakdown = viewer.getByRole('tabpanel', { name: 'Breakdown' });
    await breakdown.locator('.tsr-tile-title').first().waitFor();
    expect(await breakdown.locator('.tsr-tile-title').allTextContents()).toEqual(['Orders by status']);
    expect(await vtabs.getByRole('tab', { selected: true }).getAttribute('tabindex')).toBe('0');
    expect(await vtabs.getByRole('tab', { name: 'Overview' }).getAttribute('tabindex')).toBe('-1');
    await viewer.keyboard.press('ArrowRight');
    expect(await vtabs.getByRole('tab', { selected: true }).textContent()).toBe('Overview');
    await viewer.keyboard.press('ArrowLeft');
    // A link to the chosen tab opens it.
    await viewer.reload();
    await viewer.getByRole('tabpanel', { name: 'Breakdown' }).locator('.tsr-tile-title').waitFor();
    await saveScreenshot(viewer, 'dashboard-viewer-tabs-desktop');

    // The print view prints every tab, each under its title.
    await viewer.getByRole('link', { name: 'Print view' }).click();
    await viewer.locator('.tsr-print-grid').waitFor();
    await expect
      .poll(() => viewer.locator('.tsr-print-grid h2').allTextContents(), { timeout: 15_000 })
      .toEqual(['Overview', 'Trends', 'Breakdown']);
    expect(await viewer.locator('.tsr-print-grid .tsr-tile-title').allTextContents()).toEqual([
      'Orders by week',
      'Orders by status',
    ]);
    await saveScreenshot(viewer, 'dashboard-print-tabs-desktop');
    await viewer.close();

    // At phone width the tabs stay on the page and usable.
    const small = await openBrowser(web.baseUrl, { viewport: phone });
    try {
      await small.context.addCookies(await browser.context.cookies());
      await small.page.goto(`${url}?tab=${tabs[2].id}`);
      await small.page.getByRole('tabpanel', { name: 'Breakdown' }).locator('.tsr-tile-title').waitFor();
      const right = await small.page.getByRole('tablist').evaluate((e) => e.getBoundingClientRect().right);
      expect(right).toBeLessThanOrEqual(phone.width);
      await small.screenshot('dashboard-viewer-tabs-phone');
      await small.page.goto(editUrl());
      await small.page.getByRole('region', { name: 'Tabs' }).waitFor();
      // The editor opens on the phone's own layout, not the 12-column one.
      expect(await small.page.getByLabel('Layout for').inputValue()).toBe('xxs');
      await small.screenshot('dashboard-editor-tabs-phone');
      expect(small.errors).toEqual([]);
    } finally {
      await small.close();
    }

    // Deleting a tab with widgets asks first; undo brings tab and widget back.
    await panel.getByRole('button', { name: 'Delete the tab Breakdown' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete the tab Breakdown?' });
    await confirm.getByText('widget goes with it').waitFor();
    await confirm.getByRole('button', { name: 'Delete tab' }).click();
    await expect.poll(() => tablist.getByRole('tab').allTextContents()).toEqual(['Overview', 'Trends']);
    await saved(page);
    expect(((await serverDraft()).widgets ?? []).map((w) => w.id)).toEqual(['trend']);
    await page.keyboard.press('Control+z');
    await expect
      .poll(() => tablist.getByRole('tab').allTextContents())
      .toEqual(['Overview', 'Trends', 'Breakdown']);
    await saved(page);
    expect(((await serverDraft()).widgets ?? []).map((w) => w.id)).toEqual(['trend', 'status']);
  });

  it('edits the theme with a live preview and field errors beside the fields', async () => {
    const { page } = browser;
    const panel = page.getByRole('region', { name: 'Theme' });
    const tileBg = () =>
      page
        .locator('.tsr-edit-tile')
        .first()
        .evaluate((e) => getComputedStyle(e).backgroundColor);
    const before = await tileBg();
    await panel.getByText('Widgets', { exact: true }).click();
    const bg = panel.locator('[data-theme-path="widgets.backgroundColor"]');
    await bg.getByLabel('Background color', { exact: true }).fill('light orange');
    await bg.getByText('Not a CSS color').waitFor();
    expect(await bg.getByLabel('Background color', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    expect(await tileBg()).toBe(before);
    // The palette picker writes its #rrggbb into the field, which clears the error.
    await bg.getByLabel('Background color: pick from a palette').fill('#fff4e6');
    await expect.poll(tileBg).toBe('rgb(255, 244, 230)');
    expect(await bg.getByLabel('Background color', { exact: true }).inputValue()).toBe('#fff4e6');
    expect(await bg.getByText('Not a CSS color').count()).toBe(0);
    // And a colour typed by name shows in the picker.
    const border = panel.locator('[data-theme-path="widgets.border.color"]');
    await border.getByLabel('Border color', { exact: true }).fill('teal');
    await expect
      .poll(() => border.getByLabel('Border color: pick from a palette').inputValue())
      .toBe('#008080');
    await border.getByLabel('Border color', { exact: true }).fill('');
    const radius = panel.locator('[data-theme-path="widgets.border.radius"]');
    await radius.getByRole('textbox').fill('round');
    await radius.getByText('Not a valid CSS border-radius value').waitFor();
    await radius.getByRole('textbox').fill('0');
    await expect
      .poll(() =>
        page
          .locator('.tsr-edit-tile')
          .first()
          .evaluate((e) => getComputedStyle(e).borderTopLeftRadius),
      )
      .toBe('0px');
    await panel.getByLabel('Primary color', { exact: true }).fill('#c2410c');
    await saved(page);
    expect((await serverDraft()).theme).toEqual({
      primaryColor: '#c2410c',
      widgets: { backgroundColor: '#fff4e6', border: { radius: '0' } },
    });
    await browser.screenshot('dashboard-editor-theme-desktop');
    const diff = await publish(page, 'Tabbed board', 3);
    expect(diff).toContain('Theme');
    // Undo takes the last value back off the grid.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+z');
    await saved(page);
    expect((await serverDraft()).theme?.primaryColor).toBeUndefined();
    expect(browser.errors).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });
});
