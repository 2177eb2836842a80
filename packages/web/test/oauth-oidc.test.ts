import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../../server/test/harness.ts';
import { startOidcProvider, type TestOidcProvider } from '../../server/test/oidc-provider.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  startBrowserServer,
} from './browser.ts';

const adminPassword = 'admin password for oauth pages';

/**
 * Issue 22 items 6 to 8 in Chromium, against a real OpenID provider on loopback: sign-in to the
 * web app through the provider, the admin pages for OAuth integrations and OIDC token configs,
 * and a user's connected accounts (connect through the provider, disconnect), at desktop and
 * phone width.
 */
describeInBrowser('web app: OpenID sign-in, OAuth integrations, OIDC and connected accounts', () => {
  let web: BrowserServer;
  let idp: TestOidcProvider;
  let browser: BrowserSession;

  /**
   * Lets the page reach the provider as well as the server. Watched rather than intercepted: with
   * request interception on, Chromium drops the cookies of redirect responses, which the provider's
   * sign-in needs (its resume cookie).
   */
  async function allowProvider(session: BrowserSession) {
    await session.context.unrouteAll();
    const allowed = new Set([new URL(web.baseUrl).origin, idp.issuer]);
    session.context.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith('data:') && !url.startsWith('blob:') && !allowed.has(new URL(url).origin))
        session.offOrigin.push(url);
    });
  }

  async function shoot(name: string) {
    const { page } = browser;
    await page.setViewportSize({ width: 1280, height: 800 });
    await browser.screenshot(`${name}-desktop`);
    await page.setViewportSize({ width: 390, height: 844 });
    await browser.screenshot(`${name}-phone`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} overflows the phone's width`).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  beforeAll(async () => {
    assertWebBuilt();
    // Native clients (RFC 8252 section 7.3): a loopback redirect URI matches any port.
    idp = await startOidcProvider([
      {
        client_id: 'tessera-web',
        client_secret: 'web client secret',
        application_type: 'native',
        redirect_uris: [
          'http://127.0.0.1/api/v1/session/oidc/callback',
          'http://127.0.0.1/api/v1/oauth/callback',
        ],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ]);
    idp.account({ sub: 'erin', email: 'erin@idp.test', name: 'Erin Example', groups: ['analysts'] });
    web = await startBrowserServer({
      oidc: {
        issuer: idp.issuer,
        clientId: 'tessera-web',
        clientSecret: 'web client secret',
        scopes: 'openid email profile groups',
        groupsClaim: 'groups',
        defaultRole: 'viewer',
        audience: 'tessera-web',
        displayName: 'Example IdP',
      },
    });
    await web.server.app.inject({
      method: 'PUT',
      url: `/api/v1/users/${web.server.adminUserId}/password`,
      headers: bearer(web.server.adminKey),
      payload: { password: adminPassword },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await idp?.close();
  });

  it('lets an admin add an OAuth integration, with field errors beside the fields', async () => {
    browser = await openBrowser(web.baseUrl);
    const { page } = browser;
    const admin = (
      await web.server.app.inject({
        method: 'GET',
        url: `/api/v1/users/${web.server.adminUserId}`,
        headers: bearer(web.server.adminKey),
      })
    ).json();
    await page.goto(`${web.baseUrl}/sign-in?next=/settings/oauth-integrations`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(adminPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'OAuth integrations', level: 1 }).waitFor();
    await page.getByText('No OAuth integrations yet.').waitFor();

    await page.getByRole('button', { name: 'Add integration' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add OAuth integration' });
    await dialog.getByLabel('Name').fill('Example IdP data');
    await dialog.getByLabel('Authorization URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // The server's problems, each beside its field.
    await expect.poll(() => dialog.getByLabel('Authorization URL').getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByLabel('Token URL').getAttribute('aria-invalid')).toBe('true');
    await shoot('oauth-integrations-dialog-errors');

    await dialog.getByLabel('Authorization URL').fill(`${idp.issuer}/auth`);
    await dialog.getByLabel('Token URL').fill(`${idp.issuer}/token`);
    await dialog.getByLabel('Revocation URL (optional)').fill(`${idp.issuer}/token/revocation`);
    await dialog.getByLabel('Client ID').fill('tessera-web');
    await dialog.getByLabel('Client secret').fill('web client secret');
    expect(await dialog.getByLabel('Redirect URI').inputValue()).toBe(`${web.baseUrl}/api/v1/oauth/callback`);
    await dialog.getByLabel('Scopes').fill('openid email offline_access');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Added Example IdP data.' }).waitFor();
    await page
      .getByRole('list', { name: 'OAuth integrations' })
      .locator('.settings-list-name')
      .filter({ hasText: /^Example IdP data$/ })
      .waitFor();
    expect(await page.content()).not.toContain('web client secret');
    await shoot('oauth-integrations');
  });

  it('lets an admin add a deployment token config on the OpenID Connect page', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'OpenID Connect' }).click();
    await page.getByRole('heading', { name: 'OpenID Connect', level: 1 }).waitFor();
    await page.getByText('Example IdP', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add token config' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add token config' });
    await dialog.getByLabel('Name').fill('Warehouse');
    await dialog.getByLabel('Target env variable').fill('WAREHOUSE_TOKEN');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await dialog.getByLabel('Name').fill('warehouse');
    await dialog.getByLabel('Audience').selectOption('custom');
    await dialog.getByLabel('Custom audience').fill('https://warehouse.example.com');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('list', { name: 'Token configs' })
      .locator('.settings-list-name')
      .filter({ hasText: /^warehouse$/ })
      .waitFor();
    await page.getByText('audience https://warehouse.example.com · into WAREHOUSE_TOKEN').waitFor();
    await shoot('oidc');
    await browser.close();
  });

  it('signs a user in through the provider, connects their account and disconnects it', async () => {
    browser = await openBrowser(web.baseUrl);
    await allowProvider(browser);
    const { page } = browser;
    idp.signInAs('erin');
    await page.goto(`${web.baseUrl}/sign-in`);
    await page.getByRole('link', { name: 'Sign in with Example IdP' }).waitFor();
    await shoot('sign-in-with-provider');
    await page.getByRole('link', { name: 'Sign in with Example IdP' }).click();
    await page.waitForURL(`${web.baseUrl}/`).catch(async (error) => {
      throw new Error(`stuck at ${page.url()}: ${(await page.textContent('body'))?.slice(0, 500)}`, {
        cause: error,
      });
    });
    // Signed out, the sign-in page's question "who is signed in?" is answered 401: not an error.
    browser.errors.length = 0;
    await page.goto(`${web.baseUrl}/settings/connected-accounts`);
    await page.getByRole('heading', { name: 'Connected accounts', level: 1 }).waitFor();
    // A viewer sees their own pages only.
    expect(await page.getByRole('link', { name: 'OAuth integrations' }).count()).toBe(0);
    await page.getByRole('heading', { name: 'Example IdP data' }).waitFor();
    await page.getByText('Not connected').waitFor();

    await page.getByRole('button', { name: 'Connect Example IdP data' }).click();
    await page.waitForURL(/\/settings\/connected-accounts\?connected=\d+$/);
    await page.getByRole('status').filter({ hasText: 'Connected to Example IdP data.' }).waitFor();
    await page.getByRole('button', { name: 'Disconnect Example IdP data' }).waitFor();
    await shoot('connected-accounts');

    await page.getByRole('button', { name: 'Disconnect Example IdP data' }).click();
    await page
      .getByRole('alertdialog', { name: 'Disconnect Example IdP data?' })
      .getByRole('button', { name: 'Disconnect' })
      .click();
    await page.getByText('Disconnected from Example IdP data; the provider revoked the token.').waitFor();
    await page.getByText('Not connected').waitFor();
    expect(browser.errors).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });
});
