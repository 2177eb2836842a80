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
const viewerPassword = 'viewer password 2024';

describeInBrowser('web app: sign-in, workspace, sign-out', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let deploymentId: number;
  let adminEmail: string;
  let viewerEmail: string;
  const ids: Record<string, number> = {};
  let boardPublicId: string;

  /** Calls the management API with the admin key, as a script would. */
  async function api(method: 'POST' | 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({ method, url, headers: bearer(web.server.adminKey), payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    deploymentId = web.server.demoDeploymentId;
    const base = `/api/v1/deployments/${deploymentId}`;
    const admin = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    adminEmail = admin.email;
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password: adminPassword });
    ids.finance = (await api('POST', `${base}/folders`, { name: 'Finance' })).id;
    ids.revenue = (
      await api('POST', `${base}/workbooks`, { name: 'Revenue review', folderId: ids.finance })
    ).id;
    ids.report = (
      await api('POST', `${base}/reports`, {
        name: 'Monthly revenue',
        title: 'Monthly revenue',
        sqlQuery: 'SELECT 1',
        workbookId: ids.revenue,
        folderId: ids.finance,
      })
    ).id;
    ids.quarterly = (await api('POST', `${base}/workbooks`, { name: 'Quarterly overview' })).id;
    const board = await api('POST', `${base}/workbooks/${ids.quarterly}/publish`, {
      workbookId: ids.quarterly,
      title: 'Quarterly board',
      description: 'Revenue and orders by quarter',
      config: { title: 'Quarterly board', widgets: [] },
    });
    boardPublicId = board.publicId;
    // A viewer who may see one workbook and nothing else (spec: view < edit < manage).
    viewerEmail = `viewer-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const viewer = await api('POST', '/api/v1/users', {
      email: viewerEmail,
      username: viewerEmail,
      role: 'viewer',
      firstName: 'Vera',
    });
    ids.viewer = viewer.id;
    await api('PUT', `/api/v1/users/${viewer.id}/password`, { password: viewerPassword });
    await api('PUT', `${base}/permissions`, {
      type: 'WORKBOOK',
      id: ids.quarterly,
      userId: viewer.id,
      level: 'view',
    });
    browser = await openBrowser(web.baseUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  async function signIn(email: string, password: string) {
    const { page } = browser;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('sends a visitor to the sign-in page, and shows a wrong password as an error', async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/workspace`);
    await page.waitForURL(/\/sign-in\?next=%2Fworkspace$/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The email field has the focus: a keyboard user types at once.
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('sign-in-email');
    await browser.screenshot('01-sign-in');

    await signIn(adminEmail, 'not the password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The email or password is not correct.');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    // The password is cleared and focused for the next try.
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await browser.screenshot('02-wrong-password');
  });

  it('signs in with the right password, back to where the visitor was going, and lists the workspace', async () => {
    const { page } = browser;
    await signIn(adminEmail, adminPassword);
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}`);
    await page.getByRole('heading', { name: 'Workspace', level: 1 }).waitFor();
    const rows = page.locator('table.items tbody tr');
    await page.getByRole('link', { name: 'Finance' }).waitFor();
    const names = await rows.locator('.item-name').allTextContents();
    // Folders first, then workbooks and reports, as the API lists this level.
    expect(names[0]).toBe('Finance');
    expect(names).toContain('Quarterly overview');
    expect(names).not.toContain('Revenue review');
    expect(await page.locator('.user-menu').textContent()).toContain('admin');
    const picker = page.getByLabel('Deployment');
    expect(await picker.inputValue()).toBe(String(deploymentId));
    await browser.screenshot('03-workspace');
  });

  it('opens a folder, then a workbook with its report', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Finance' }).click();
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}/folders/${ids.finance}`);
    await page.getByRole('heading', { name: 'Finance', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Revenue review' }).click();
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}/workbooks/${ids.revenue}`);
    await page.getByRole('heading', { name: 'Revenue review', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Monthly revenue' }).waitFor();
    const crumbs = await page.locator('.breadcrumbs li').allTextContents();
    expect(crumbs).toEqual(['Workspace', 'Finance', 'Revenue review']);
    expect(await page.getByText('Not published yet.').count()).toBe(1);
    await browser.screenshot('04-workbook');
  });

  it('lists the published dashboards and opens one', async () => {
    const { page } = browser;
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Dashboards' })
      .click();
    await page.waitForURL(`${web.baseUrl}/dashboards/${deploymentId}`);
    const card = page.getByRole('link', { name: 'Quarterly board' });
    await card.waitFor();
    // Only published dashboards: the unpublished workbook has no card.
    expect(await page.locator('.dashboard-card').count()).toBe(1);
    await browser.screenshot('05-dashboards');
    await card.click();
    await page.waitForURL(`${web.baseUrl}/dashboards/${deploymentId}/${boardPublicId}`);
    await page.getByRole('heading', { name: 'Quarterly board', level: 1 }).waitFor();
    await browser.screenshot('06-dashboard');
  });

  it('signs out: the session ends on the server and the app asks to sign in again', async () => {
    const { page, context } = browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByText('You are signed out.').waitFor();
    await browser.screenshot('07-signed-out');
    const session = await context.request.get(`${web.baseUrl}/api/v1/session`);
    expect(session.status()).toBe(401);
    await page.goto(`${web.baseUrl}/workspace/${deploymentId}/workbooks/${ids.quarterly}`);
    await page.waitForURL(/\/sign-in\?next=/);
  });

  it('shows a viewer only what the API lets them see', async () => {
    const { page } = browser;
    // Still on the sign-in page of the deep link to the shared workbook: sign in, land there.
    await signIn(viewerEmail, viewerPassword);
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}/workbooks/${ids.quarterly}`);
    await page.getByRole('heading', { name: 'Quarterly overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Workspace', exact: true }).first().click();
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}`);
    await page.getByRole('link', { name: 'Quarterly overview' }).waitFor();
    const names = await page.locator('table.items tbody .item-name').allTextContents();
    expect(names).toEqual(['Quarterly overview']);
    await browser.screenshot('08-viewer-workspace');
    // A workbook the viewer was not given: the page says so instead of showing it.
    await page.goto(`${web.baseUrl}/workspace/${deploymentId}/workbooks/${ids.revenue}`);
    await page.getByText('This workbook could not be opened').waitFor();
    // The server's answer is final: no button offers to ask again.
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    await browser.screenshot('09-viewer-no-access');
    // The same app on a phone-sized screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${web.baseUrl}/workspace/${deploymentId}`);
    await page.getByRole('link', { name: 'Quarterly overview' }).waitFor();
    await browser.screenshot('10-viewer-workspace-narrow');
  });

  it('sends the user to sign in when the session ends while the app is open, then back', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    // An admin sets a new password: every session of the viewer ends on the server.
    const newPassword = 'a brand new viewer password';
    await api('PUT', `/api/v1/users/${ids.viewer}/password`, { password: newPassword });
    await page.getByRole('link', { name: 'Shared with me' }).click();
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/workspace/${deploymentId}/shared`);
    await browser.screenshot('11-session-ended');
    await signIn(viewerEmail, newPassword);
    await page.waitForURL(`${web.baseUrl}/workspace/${deploymentId}/shared`);
    await page.getByRole('link', { name: 'Quarterly overview' }).waitFor();
  });

  it('sent nothing off the origin and broke no content security rule', () => {
    expect(browser.offOrigin).toEqual([]);
    // Chromium logs each 4xx answer as a console error; the 401s (no session yet, wrong password,
    // signed out) and the viewer's refused workbook are answers the test asked for.
    const unexpected = browser.errors.filter(
      (e) => !/Failed to load resource: the server responded with a status of (401|403|404)/.test(e),
    );
    expect(unexpected).toEqual([]);
  });
});
