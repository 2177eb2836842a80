import {
  type Breakpoint,
  type DashboardDraft,
  gridSettings,
  placeWidgets,
  type Widget,
} from '@tessera/dashboard';
import type { Locator, Page } from 'playwright-core';
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

const password = 'drafts are for editing';
const desktop = { width: 1280, height: 900 };
const tablet = { width: 820, height: 1180 };

/**
 * Issue 23 items 1 and 2 in the browser: build a dashboard from two reports and a text widget,
 * move and resize at lg and check md, add a filter, publish with the diff, restore an earlier
 * version, undo and redo, and a second editor whose stale save is refused with the reason shown.
 */
describeInBrowser('dashboard editor in the browser', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let workbookId: number;
  let byStatus: { id: number };
  let revenue: { id: number };
  let second: { email: string; id: number };

  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }
  const base = () => `/api/v1/deployments/${deploymentId}`;
  const editUrl = () => `${web.baseUrl}/workspace/${deploymentId}/workbooks/${workbookId}/edit`;
  /** The draft as the server holds it. */
  const serverDraft = async (): Promise<{ draft: DashboardDraft; version: number }> => {
    const wb = await api('GET', `${base()}/workbooks/${workbookId}`);
    return { draft: wb.dashboardDraft ?? { widgets: [] }, version: wb.dashboardDraftVersion };
  };
  /** Waits for the editor to say that every change is saved; says what it says instead, if not. */
  const saved = async (page: Page) => {
    try {
      await page.locator('[data-save-state="saved"]').waitFor({ timeout: 15_000 });
    } catch (error) {
      const status = await page
        .locator('[data-save-state]')
        .textContent()
        .catch(() => null);
      throw new Error(`The editor says "${status}" rather than that all is saved`, { cause: error });
    }
  };

  async function signIn(page: Page, email: string) {
    await page.goto(editUrl());
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(editUrl());
    await page.getByRole('heading', { name: /^Edit:/, level: 1 }).waitFor();
  }
  /** The page's errors since sign-in (before it, the session check's 401 is expected). */
  const forget = (session: BrowserSession) => session.errors.splice(0);

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    const workbook = await api('POST', `${base()}/workbooks`, { name: 'Ops' });
    workbookId = workbook.id;
    byStatus = await api('POST', `${base()}/reports`, {
      name: 'Orders by status',
      jsonQuery: JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.status'] }),
      workbookId,
    });
    revenue = await api('POST', `${base()}/reports`, {
      name: 'Revenue',
      jsonQuery: JSON.stringify({ measures: ['orders.total_amount'] }),
      workbookId,
    });
    // A second editor of the same workbook, for the stale save.
    const email = `editor-${Date.now()}@example.com`;
    const user = await api('POST', '/api/v1/users', { email, username: email, role: 'developer' });
    await api('PUT', `/api/v1/users/${user.id}/password`, { password });
    await api('PUT', `${base()}/permissions`, {
      type: 'WORKBOOK',
      id: workbookId,
      userId: user.id,
      level: 'edit',
    });
    second = { email, id: user.id };

    browser = await openBrowser(web.baseUrl, { viewport: desktop });
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await signIn(browser.page, admin.email);
    forget(browser);
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('builds a dashboard from two reports and a text widget, saved as you go', async () => {
    const { page } = browser;
    const panel = page.getByRole('region', { name: 'Add a widget' });
    await panel.locator('option', { hasText: 'Revenue' }).waitFor({ state: 'attached' });
    await panel.getByLabel('Report').selectOption({ label: 'Orders by status' });
    await panel.getByRole('button', { name: 'Add chart' }).click();
    await panel.getByLabel('Report').selectOption({ label: 'Revenue' });
    await panel.getByRole('button', { name: 'Add chart' }).click();
    await panel.getByRole('button', { name: 'Add text' }).click();
    // The new text widget is selected: its Markdown is edited beside the grid, drawn sanitised.
    const text = page.getByLabel('Text (Markdown)');
    await text.fill('Counts are **live**. <script>window.pwned = 1</script>');
    await expect.poll(() => page.locator('.tsr-edit-tile .tsr-text strong').textContent()).toBe('live');
    expect(await page.locator('.tsr-edit-tile script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await saved(page);
    const { draft } = await serverDraft();
    expect((draft.widgets ?? []).map((w) => w.config?.reportId ?? w.type)).toEqual([
      byStatus.id,
      revenue.id,
      'TEXT',
    ]);
    expect(draft.widgets?.[2].config?.text).toContain('**live**');
    await browser.screenshot('dashboard-editor-01-desktop');
  });

  it('moves and resizes tiles at lg, and md follows (derived), and can be adjusted on its own', async () => {
    const { page } = browser;
    const before = (await serverDraft()).draft.widgets as Widget[];
    const [chart1, chart2, note] = before.map((w) => w.id);
    // Drag the second chart's grip to the right of the first.
    // The tile's top left goes one margin (16 px) right of the first tile's top right.
    const first = await box(tile(page, chart1));
    const moving = await box(tile(page, chart2));
    const grip = await box(tile(page, chart2).locator('.tsr-edit-grip'));
    const dx = first.x + first.width + 16 - moving.x;
    const dy = first.y - moving.y;
    await drag(page, grip, { x: grip.x + grip.width / 2 + dx, y: grip.y + grip.height / 2 + dy });
    // Widen the text widget to the whole grid by its resize handle.
    const handle = await box(tile(page, note).locator('..').locator('.react-resizable-handle'));
    const grid = await box(page.locator('.tsr-edit-grid'));
    await drag(page, handle, { x: grid.x + grid.width - 4, y: handle.y + handle.height / 2 });
    await saved(page);
    const after = (await serverDraft()).draft;
    const at = (id: string) => (after.widgets as Widget[]).find((w) => w.id === id)!;
    expect(at(chart2).position).toMatchObject({ x: 6, y: 0, w: 6 });
    expect(at(chart2).responsiveLayouts?.lg).toEqual(at(chart2).position);
    expect(at(note).position.w).toBe(12);

    // md: derived from lg (packages/dashboard placeWidgets), as the viewer will place it.
    await page.getByLabel('Layout for').selectOption('md');
    const expected = placeWidgets(after.widgets as Widget[], 'md', gridSettings(after.layout));
    expect(await tilePlaces(page, 'md', after)).toEqual(
      Object.fromEntries(expected.map(({ id, x, w }) => [id, { x, w }])),
    );
    expect(expected.find((p) => p.id === chart2)).toMatchObject({ x: 5, w: 5 });
    // Adjusted at md: the note gets its own md place; lg stays.
    const noteMd = await box(tile(page, note).locator('..').locator('.react-resizable-handle'));
    const mdGrid = await box(page.locator('.tsr-edit-grid'));
    await drag(page, noteMd, { x: mdGrid.x + mdGrid.width / 2, y: noteMd.y + noteMd.height / 2 });
    await saved(page);
    const adjusted = (await serverDraft()).draft.widgets as Widget[];
    const adjustedNote = adjusted.find((w) => w.id === note)!;
    expect(adjustedNote.responsiveLayouts?.md?.w).toBeLessThan(10);
    expect(adjustedNote.position.w).toBe(12);
    await browser.screenshot('dashboard-editor-02-md');
    // Back at lg, every tile is where lg places it: the md adjustment left lg alone.
    await page.getByLabel('Layout for').selectOption('lg');
    const lgDraft = (await serverDraft()).draft;
    const lgExpected = placeWidgets(lgDraft.widgets as Widget[], 'lg', gridSettings(lgDraft.layout));
    expect(await tilePlaces(page, 'lg', lgDraft)).toEqual(
      Object.fromEntries(lgExpected.map(({ id, x, w }) => [id, { x, w }])),
    );
  });

  it('adds a filter with a default and publishes with a diff, then the viewer uses the filter', async () => {
    const { page } = browser;
    const filters = page.getByRole('region', { name: 'Filters' });
    await filters.getByLabel('Member').fill('orders status');
    await filters.getByRole('button', { name: 'Add filter' }).click();
    // A bad member is named beside its field, and nothing is added.
    await expect.poll(() => filters.locator('.field-error').textContent()).toContain('cube.member');
    await filters.getByLabel('Member').fill('orders.status');
    await filters.getByLabel('Default value (optional)').fill('shipped');
    await filters.getByRole('button', { name: 'Add filter' }).click();
    await filters.locator('[data-filter="orders.status"]').waitFor();
    await saved(page);
    expect((await serverDraft()).draft.settings?.filters).toEqual([
      { member: 'orders.status', defaultValue: 'shipped' },
    ]);

    await page.getByRole('button', { name: 'Publish…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the dashboard' });
    const diff = dialog.getByRole('region', { name: 'Changes to publish' });
    await expect.poll(() => diff.textContent()).toContain('Widgets added');
    const diffText = (await diff.textContent()) ?? '';
    expect(diffText).toContain('Orders by status');
    expect(diffText).toContain('Revenue');
    expect(diffText).toContain('orders.status = shipped');
    await browser.screenshot('dashboard-editor-03-publish-diff-desktop');
    await dialog.getByLabel('Title').fill('Ops board');
    await dialog.getByLabel('Description').fill('First cut');
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 1.').waitFor();
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.locator('[data-version="1"]').waitFor();
    expect(await versions.locator('[data-version="1"]').textContent()).toContain('Ops board');

    // The published dashboard's viewer starts with the filter's default.
    const wb = await api('GET', `${base()}/workbooks/${workbookId}`);
    expect(wb.publishedDashboard).toMatchObject({
      versionNumber: 1,
      title: 'Ops board',
      description: 'First cut',
    });
    const viewer = await browser.context.newPage();
    await viewer.goto(`${web.baseUrl}/dashboards/${deploymentId}/${wb.publishedDashboard.publicId}`);
    const select = viewer.locator('[data-control="orders.status"] select');
    await expect.poll(() => select.inputValue(), { timeout: 15_000 }).toBe('shipped');
    await viewer.close();
  });

  it('publishes a second version, restores the first as the draft, and undoes and redoes it', async () => {
    const { page } = browser;
    const widgets = (await serverDraft()).draft.widgets as Widget[];
    const note = widgets[2].id;
    await tile(page, note)
      .getByRole('button', { name: /^Remove/ })
      .click();
    await expect.poll(() => page.locator('.tsr-edit-tile').count()).toBe(2);
    await page.getByRole('button', { name: 'Publish…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the dashboard' });
    await expect
      .poll(() => dialog.getByRole('region', { name: 'Changes to publish' }).textContent())
      .toContain('Widgets removed');
    await dialog.getByLabel('Title').fill('Ops board without notes');
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 2.').waitFor();
    await saved(page);

    // Open version 1 in the viewer: three tiles, the text among them.
    await page.getByRole('link', { name: 'Open version 1' }).click();
    await page.getByRole('heading', { name: 'Ops board: version 1' }).waitFor();
    await expect.poll(() => page.locator('.tsr-tile').count()).toBe(3);
    await page.getByRole('link', { name: 'Back to the editor' }).click();
    await page.getByRole('region', { name: 'Versions' }).locator('[data-version="2"]').waitFor();

    await page.getByRole('button', { name: 'Restore version 1 as the draft' }).click();
    await page.getByText('Version 1 is the draft now.').waitFor();
    await expect.poll(() => page.locator('.tsr-edit-tile').count()).toBe(3);
    expect(((await serverDraft()).draft.widgets ?? []).length).toBe(3);

    // Undo takes the restore back (and saves that), redo brings it again.
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('.tsr-edit-tile').count()).toBe(2);
    await saved(page);
    expect(((await serverDraft()).draft.widgets ?? []).length).toBe(2);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => page.locator('.tsr-edit-tile').count()).toBe(3);
    await saved(page);
    expect(((await serverDraft()).draft.widgets ?? []).length).toBe(3);
    // Removing the filter and moving a tile by keyboard are undone and redone too.
    const filters = page.getByRole('region', { name: 'Filters' });
    await filters.getByRole('button', { name: 'Remove the filter on orders.status' }).click();
    await saved(page);
    expect((await serverDraft()).draft.settings?.filters).toEqual([]);
    await page.keyboard.press('Control+z');
    await filters.locator('[data-filter="orders.status"]').waitFor();
    await saved(page);
    expect((await serverDraft()).draft.settings?.filters).toEqual([
      { member: 'orders.status', defaultValue: 'shipped' },
    ]);
    const firstId = widgets[0].id;
    const placeOf = async () =>
      ((await serverDraft()).draft.widgets as Widget[]).find((w) => w.id === firstId)?.position;
    const start = await placeOf();
    await tile(page, firstId).locator('.tsr-edit-name').click();
    await page.keyboard.press('ArrowDown');
    await saved(page);
    expect((await placeOf())?.y).toBe((start?.y ?? 0) + 1);
    await page.keyboard.press('Control+z');
    await saved(page);
    expect(await placeOf()).toEqual(start);
    await page.keyboard.press('Control+Shift+z');
    await saved(page);
  });

  it("refuses a second editor's stale save and says why, then reloads their draft", async () => {
    const { page } = browser;
    const other = await openBrowser(web.baseUrl, { viewport: tablet });
    try {
      await signIn(other.page, second.email);
      forget(other);
      await other.page.locator('.tsr-edit-tile').first().waitFor();
      // The first editor saves a change; the second, still on the older draft, then edits too.
      await page
        .getByRole('region', { name: 'Add a widget' })
        .getByRole('button', { name: 'Add heading' })
        .click();
      await saved(page);
      const count = ((await serverDraft()).draft.widgets ?? []).length;
      // The second editor is told of the first's save before making a change of their own.
      await other.page
        .getByRole('status')
        .filter({ hasText: 'Someone else saved this draft' })
        .waitFor({ timeout: 20_000 });
      await other.page
        .getByRole('region', { name: 'Add a widget' })
        .getByRole('button', { name: 'Add text' })
        .click();
      const alert = other.page.getByRole('alert').filter({ hasText: 'Your changes were not saved.' });
      await alert.waitFor({ timeout: 15_000 });
      expect(await alert.textContent()).toContain('saved by');
      await other.page.locator('[data-save-state="conflict"]').waitFor();
      // Nothing of theirs overwrote the first editor's draft.
      expect(((await serverDraft()).draft.widgets ?? []).length).toBe(count);
      await other.screenshot('dashboard-editor-04-conflict-tablet');
      await alert.getByRole('button', { name: 'Reload the draft' }).click();
      await expect.poll(() => other.page.locator('.tsr-edit-tile').count()).toBe(count);
      await other.page.locator('[data-save-state="saved"]').waitFor();
      // At tablet width nothing of the editor runs off the side of the page.
      const overflow = await other.page.evaluate(() =>
        [...document.querySelectorAll('.tsr-editor *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 5)
          .map((e) => `${e.tagName}.${e.className}`),
      );
      expect(overflow).toEqual([]);
      // At tablet width: the editor and the publish diff, for looking at.
      await other.screenshot('dashboard-editor-05-tablet');
      await other.page.getByRole('button', { name: 'Publish…' }).click();
      await other.page.getByRole('dialog', { name: 'Publish the dashboard' }).waitFor();
      await other.screenshot('dashboard-editor-06-publish-diff-tablet');
      // The refused save is a 409 the browser logs; nothing else went wrong.
      expect(other.errors.filter((e) => !e.includes('409'))).toEqual([]);
      expect(other.offOrigin).toEqual([]);
    } finally {
      await other.close();
    }
    expect(browser.errors.filter((e) => !e.includes('409'))).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });
});

function tile(page: Page, id: string): Locator {
  return page.locator(`.tsr-edit-tile[data-widget-id="${id}"]`);
}

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not on the page');
  return b;
}

/** A mouse drag from the middle of `from` to `to`, in steps, as a hand would. */
async function drag(
  page: Page,
  from: { x: number; y: number; width: number; height: number },
  to: { x: number; y: number },
) {
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 5, from.y + from.height / 2 + 5, { steps: 3 });
  await page.mouse.move(to.x, to.y, { steps: 15 });
  await page.mouse.up();
}

/** Each tile's column and width at breakpoint `b`, read from where the grid drew it. */
async function tilePlaces(page: Page, b: Breakpoint, draft: DashboardDraft) {
  const settings = gridSettings(draft.layout);
  const cols = settings.cols[b];
  const [marginX] = settings.margin;
  const grid = await box(page.locator('.tsr-edit-grid .react-grid-layout'));
  const padX = settings.containerPadding[0];
  const colWidth = (grid.width - 2 * padX - marginX * (cols - 1)) / cols;
  const places: Record<string, { x: number; w: number }> = {};
  for (const cell of await page.locator('.tsr-edit-tile').all()) {
    const id = (await cell.getAttribute('data-widget-id')) ?? '';
    const b2 = await box(cell.locator('..'));
    places[id] = {
      x: Math.round((b2.x - grid.x - padX) / (colWidth + marginX)),
      w: Math.round((b2.width + marginX) / (colWidth + marginX)),
    };
  }
  return places;
}
