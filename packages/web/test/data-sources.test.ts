import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { bearer } from '../../server/test/harness.ts';
import { formatValue, toTable } from '../src/dashboard/rows.ts';
import {
  assertWebBuilt,
  type BrowserServer,
  type BrowserSession,
  describeInBrowser,
  openBrowser,
  saveScreenshot,
  startBrowserServer,
} from './browser.ts';

const password = 'data sources need care';
const postgresUrl = inject('postgresUrl') ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Issue 21 item 4 in the browser: add a PostgreSQL data source (a failing connection test on a
 * wrong port, then a passing one), pick its tables and generate a model, query it (the numbers on
 * screen are `/v1/load`'s), and edit the model on a branch with its errors shown as you type.
 */
describeInBrowser('data sources and models in the browser (issue 21 item 4)', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let admin: pg.Client;
  const url = new URL(postgresUrl);
  const schema = `web_ds_${process.pid}_${Date.now().toString(36)}`;
  let deploymentId = 0;
  const failed: string[] = [];

  async function api(method: 'POST' | 'PUT' | 'GET', path: string, payload?: Record<string, unknown>) {
    const res = await web.server.app.inject({
      method,
      url: path,
      headers: bearer(web.server.adminKey),
      payload,
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : null;
  }

  beforeAll(async () => {
    assertWebBuilt();
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.query(`CREATE TABLE ${schema}.shops (id integer PRIMARY KEY, city text NOT NULL)`);
    await admin.query(`CREATE TABLE ${schema}.sales (
      id integer PRIMARY KEY, shop_id integer NOT NULL REFERENCES ${schema}.shops (id), amount numeric(10,2))`);
    await admin.query(`INSERT INTO ${schema}.shops VALUES (1, 'Lyon'), (2, 'Oslo'), (3, 'Porto')`);
    await admin.query(`INSERT INTO ${schema}.sales VALUES
      (1, 1, 1250.50), (2, 1, 99.50), (3, 2, 700), (4, 3, 12.25), (5, 3, 8)`);

    web = await startBrowserServer();
    await api('PUT', `/api/v1/users/${web.server.adminUserId}/password`, { password });
    browser = await openBrowser(web.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = browser;
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await page.goto(`${web.baseUrl}/data-sources`);
    await page.waitForURL(/\/sign-in\?next=/);
    const user = await api('GET', `/api/v1/users/${web.server.adminUserId}`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${web.baseUrl}/data-sources`);
    // The session check before signing in answers 401, as it should.
    browser.errors.length = 0;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  const connection = (page: Page) => page.locator('.connection-status[data-ok]');

  it('adds a PostgreSQL source: a wrong port fails in words beside the field, the right one connects', async () => {
    const { page } = browser;
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Data' }).waitFor();
    await page.getByRole('link', { name: 'Add data source' }).click();
    await page.waitForURL(`${web.baseUrl}/data-sources/new`);
    await page.getByLabel('Name', { exact: true }).fill('Shops warehouse');
    await page.getByRole('radio', { name: /PostgreSQL/ }).check();
    await page.getByLabel('Host').fill(url.hostname);
    await page.getByLabel('Port').fill('1');
    await page.getByLabel('Database').fill(decodeURIComponent(url.pathname.slice(1)) || 'postgres');
    await page.getByLabel('User', { exact: true }).fill(decodeURIComponent(url.username) || 'postgres');
    if (url.password) await page.getByLabel('Password').fill(decodeURIComponent(url.password));
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => connection(page).getAttribute('data-ok')).toBe('false');
    expect(await connection(page).textContent()).toMatch(
      new RegExp(`Connection failed\\. Nothing accepts connections at ${url.hostname}:1`),
    );
    const port = page.getByLabel('Port');
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    await browser.screenshot('data-01-new-source-failed-desktop');

    await port.fill(url.port || '5432');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => connection(page).getAttribute('data-ok')).toBe('true');
    expect(await connection(page).textContent()).toMatch(/^Connected\./);
    await browser.screenshot('data-02-new-source-connected-desktop');

    await page.getByRole('button', { name: 'Save data source' }).click();
    await page.waitForURL(/\/data-sources\/\d+$/);
    deploymentId = Number(new URL(page.url()).pathname.split('/')[2]);
    const saved = await api('GET', `/api/v1/deployments/${deploymentId}`);
    expect(saved).toMatchObject({ name: 'Shops warehouse', creationStep: 'ready' });
  });

  it('picks the tables, sees their keys, and generates a model', async () => {
    const { page } = browser;
    // The saved settings can be tested with edits, which stay unsaved until saved.
    await page.getByText('Connection settings').click();
    const settings = page.locator('.source-settings');
    await settings.getByLabel('Port').fill('1');
    await settings.getByRole('button', { name: 'Test these settings' }).click();
    await expect
      .poll(() => settings.locator('.connection-status[data-ok]').getAttribute('data-ok'))
      .toBe('false');
    expect(await settings.getByLabel('Port').getAttribute('aria-invalid')).toBe('true');
    await browser.screenshot('data-03a-settings-failed-desktop');
    expect((await api('GET', `/api/v1/deployments/${deploymentId}`)).dataSource.port).toBe(
      Number(url.port || 5432),
    );
    await page.getByText('Connection settings').click();
    await page.getByLabel('Schema').selectOption(schema);
    const tables = page.getByRole('list', { name: `Tables of ${schema}` });
    await tables.getByText('sales', { exact: true }).waitFor();
    expect(
      await tables.locator('li', { hasText: 'shop_id' }).locator('abbr[title="foreign key"]').count(),
    ).toBe(1);
    await tables.getByRole('checkbox').nth(0).check();
    await tables.getByRole('checkbox').nth(1).check();
    await browser.screenshot('data-03-tables-desktop');
    await page.getByRole('button', { name: 'Generate model' }).click();
    await page.waitForURL(`${web.baseUrl}/data-sources/${deploymentId}/model`);
    await page.locator('.model-errors[data-valid="true"]').waitFor();
    const files = await api('GET', `/build/api/v1/deployments/${deploymentId}/data-model/files`);
    expect(files.items.map((f: { fileName: string }) => f.fileName).sort()).toEqual([
      'model/sales.yml',
      'model/shops.yml',
    ]);
  });

  it('queries the generated model: the numbers on screen are /v1/load’s', async () => {
    const { page } = browser;
    await page.getByLabel('Cube').selectOption('sales');
    await page.getByLabel('Measure').selectOption('sales.total_amount');
    await page.getByLabel('Group by').selectOption('shops.city');
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.locator('section[aria-label="Results"][data-state="drawn"]').waitFor();
    const cells = await page
      .locator('section[aria-label="Results"] tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('td,th')].map((c) => (c.textContent ?? '').trim())),
      );

    const { serviceApiToken } = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {});
    const res = await web.server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/load`,
      headers: { authorization: serviceApiToken },
      payload: {
        query: {
          measures: ['sales.total_amount'],
          dimensions: ['shops.city'],
          order: { 'shops.city': 'asc' },
          limit: 100,
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json();
    expect(answer.data).toEqual([
      { 'shops.city': 'Lyon', 'sales.total_amount': '1350.00' },
      { 'shops.city': 'Oslo', 'sales.total_amount': '700.00' },
      { 'shops.city': 'Porto', 'sales.total_amount': '20.25' },
    ]);
    const table = toTable({
      kind: 'semantic',
      annotation: answer.annotation,
      data: answer.data,
      totalRows: null,
    });
    const expected = table.rows.map((row) => table.columns.map((c) => formatValue(row[c.name], c, {})));
    expect(cells).toEqual(expected);
    await browser.screenshot('data-04-model-query-desktop');
  });

  it('edits on a branch: errors with file and line as you type, promote refused until it validates', async () => {
    const { page } = browser;
    await page.getByLabel('New branch').fill('dev-shops');
    await page.getByRole('button', { name: 'Create branch' }).click();
    await page.waitForURL(/branch=dev-shops/);
    await page
      .getByRole('navigation', { name: 'Model files' })
      .getByRole('button', { name: 'model/sales.yml' })
      .click();
    await page.locator('.model-errors[data-valid="true"]').waitFor();
    const editor = page.getByRole('textbox', { name: 'Contents of model/sales.yml' });
    await editor.click();
    await page.keyboard.press('Control+End');
    // A dimension with a type that does not exist, at the end of the file (the dimensions list).
    await page.keyboard.insertText('      - name: broken\n        sql: id\n        type: strng\n');
    const errors = page.getByRole('region', { name: 'Model errors' });
    await page.locator('.model-errors[data-valid="false"]').waitFor();
    expect(await errors.textContent()).toMatch(/model\/sales\.yml:\d+ .*sales\.broken/);
    await page.locator('.cm-lint-marker-error').first().waitFor();
    await browser.screenshot('data-05-branch-error-desktop');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Saved on dev-shops' }).count())
      .toBe(1);
    await page.getByRole('button', { name: 'Promote to main' }).click();
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'Not promoted' }).textContent())
      .toMatch(/Not promoted: model\/sales\.yml:\d+: sales\.broken/);
    const main = await api(
      'GET',
      `/build/api/v1/deployments/${deploymentId}/data-model/files?withContent=true`,
    );
    expect(JSON.stringify(main)).not.toContain('strng');

    // Fixed on the branch, it promotes.
    await editor.click();
    await page.keyboard.press('Control+End');
    for (let i = 0; i < 'rng\n'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.insertText('ring\n');
    await page.locator('.model-errors[data-valid="true"]').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Saved on dev-shops.' }).count())
      .toBe(1);
    // Committed on its git branch (issue 25 item 2): the status and the bar show the new head.
    await page.getByLabel('Commit message').fill('Fix the broken type');
    await page.getByRole('button', { name: 'Commit', exact: true }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/^Committed [0-9a-f]{7} on dev-shops\.$/);
    const committed = (await page.getByRole('status').textContent())!.slice(
      'Committed '.length,
      'Committed '.length + 7,
    );
    await page
      .locator('.branch-head')
      .filter({ hasText: `at ${committed}` })
      .waitFor();
    await browser.screenshot('data-05b-branch-commit-desktop');
    await page.getByRole('button', { name: 'Promote to main' }).click();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Promoted dev-shops to main.' }).count())
      .toBe(1);
    const promoted = await api(
      'GET',
      `/build/api/v1/deployments/${deploymentId}/data-model/files?withContent=true`,
    );
    expect(JSON.stringify(promoted)).toContain('name: broken');
    // The refused promotion is the one failed request (Chromium logs a 400 as a console error).
    expect(
      browser.errors.filter((e) => !/status of 400/.test(e)),
      failed.join('\n'),
    ).toEqual([]);
    expect(browser.offOrigin).toEqual([]);
  });

  it('offers Trino: a password without HTTPS is refused beside the Password field, at desktop and phone width', async () => {
    for (const [session, name] of [
      [browser, 'data-11-trino-password-needs-https-desktop'],
      [await openBrowser(web.baseUrl, { viewport: { width: 390, height: 844 } }), 'data-12-trino-phone'],
    ] as const) {
      const { page } = session;
      if (session !== browser) await session.context.addCookies(await browser.context.cookies());
      await page.goto(`${web.baseUrl}/data-sources/new`);
      await page.getByRole('radio', { name: /Trino/ }).check();
      await page.getByLabel('Host').fill('127.0.0.1');
      await page.getByLabel('User', { exact: true }).fill('analyst');
      await page.getByLabel('Catalog').fill('hive');
      await page.getByLabel('Password', { exact: true }).fill('not-sent-in-the-clear');
      await page.getByLabel('Use HTTPS').uncheck();
      await page.getByRole('button', { name: 'Test connection' }).click();
      const password = page.getByLabel('Password', { exact: true });
      await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('.data-source-field-password').textContent()).toMatch(
        /is sent over HTTPS only: turn HTTPS on \(ssl: true\)/,
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (session === browser) await browser.screenshot(name);
      else {
        await saveScreenshot(page, name);
        // the browser logs the refused test's 400 itself; nothing else may appear
        expect(session.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
        await session.close();
      }
      expect(overflow).toBeLessThanOrEqual(0);
    }
  });

  it("offers Databricks SQL: an HTTP path that is not a SQL warehouse's is refused beside its field", async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/data-sources/new`);
    await page.getByRole('radio', { name: /Databricks SQL/ }).check();
    await page.getByLabel('Workspace host', { exact: true }).fill('dbc-a1b2c3d4-e5f6.cloud.databricks.com');
    const path = page.getByLabel('HTTP path', { exact: true });
    await path.fill('/sql/protocolv1/o/1234/0123-456789-abcdef');
    await page.getByLabel('Access token', { exact: true }).fill('dapi-typed-for-the-test');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => path.getAttribute('aria-invalid')).toBe('true');
    const beside = await page.locator('.data-source-field-httpPath .field-error').textContent();
    expect(beside).toMatch(/^must be a SQL warehouse's HTTP path, \/sql\/1\.0\/warehouses\/<id>/);
    await browser.screenshot('data-14-databricks-path-refused');
    expect(browser.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
    browser.errors.length = 0;
  });

  it('offers Snowflake: a private key that does not read is refused beside its field', async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/data-sources/new`);
    await page.getByRole('radio', { name: /Snowflake/ }).check();
    await page.getByLabel('Account', { exact: true }).fill('myorg-myaccount');
    await page.getByLabel('User', { exact: true }).fill('TESSERA');
    const key = page.getByLabel('Private key (PEM)');
    expect(await key.evaluate((e) => e.tagName)).toBe('TEXTAREA');
    await key.fill('-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => key.getAttribute('aria-invalid')).toBe('true');
    const beside = await page.locator('.data-source-field-privateKey .field-error').textContent();
    expect(beside).toBeTruthy();
    // The refusal names the field, never what was typed into it.
    expect(beside).not.toContain('not a key');
    await browser.screenshot('data-13-snowflake-key-refused');
    expect(browser.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
    browser.errors.length = 0;
  });

  it("offers Athena with this server's AWS identity instead of a key, and says beside the box when the operator has not allowed it", async () => {
    const { page } = browser;
    browser.errors.length = 0;
    await page.goto(`${web.baseUrl}/data-sources/new`);
    await page.getByRole('radio', { name: /Athena/ }).check();
    await page.getByLabel('Region').fill('eu-west-1');
    await page.getByLabel('Database', { exact: true }).fill('analytics');
    await expect.poll(() => page.getByLabel('Access key id').count()).toBe(1);
    const box = page.getByLabel("Query as this server's own AWS identity (its IAM role)");
    await box.check();
    // no key to give: the key's fields leave the form (and the request)
    expect(await page.getByLabel('Access key id').count()).toBe(0);
    expect(await page.getByLabel('Secret access key').count()).toBe(0);
    await page.getByRole('button', { name: 'Test connection' }).click();
    // the box is marked, and the status line under the form says why in words
    const beside = page.locator('.field-checkbox', { has: box }).locator('.field-error');
    await expect.poll(() => beside.textContent()).toBe('Check this setting.');
    expect(await page.locator('.connection-status').textContent()).toMatch(
      /does not lend its own AWS identity.*TESSERA_AWS_SERVER_CREDENTIALS=1/,
    );
    await browser.screenshot('data-14-athena-server-identity-off');
    expect(browser.errors).toEqual([]);
  });

  it('offers BigQuery: a key that is no service account key JSON is refused beside its field', async () => {
    const { page } = browser;
    await page.goto(`${web.baseUrl}/data-sources/new`);
    await page.getByRole('radio', { name: /BigQuery/ }).check();
    await page.getByLabel('Project id', { exact: true }).fill('my-project-123456');
    await page.getByLabel('Dataset', { exact: true }).fill('analytics');
    const key = page.getByLabel('Service account key (JSON)');
    expect(await key.evaluate((e) => e.tagName)).toBe('TEXTAREA');
    await key.fill('{"type": "authorized_user", "refresh_token": "typed-not-shown"}');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => key.getAttribute('aria-invalid')).toBe('true');
    const beside = await page.locator('.data-source-field-credentials .field-error').textContent();
    expect(beside).toMatch(/is not a service account key JSON/);
    // The refusal names the field, never what was typed into it.
    expect(beside).not.toContain('typed-not-shown');
    await browser.screenshot('data-15-bigquery-key-refused');
    expect(browser.errors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([]);
    browser.errors.length = 0;
  });

  it('every page at phone width', async () => {
    const phone = await openBrowser(web.baseUrl, { viewport: { width: 390, height: 844 } });
    try {
      await phone.context.addCookies(await browser.context.cookies());
      for (const [name, path, ready] of [
        ['data-06-list-phone', '/data-sources', 'Shops warehouse'],
        ['data-07-new-source-phone', '/data-sources/new', 'Test connection'],
        ['data-08-tables-phone', `/data-sources/${deploymentId}`, 'Generate model'],
        ['data-09-model-phone', `/data-sources/${deploymentId}/model`, 'Run query'],
      ] as const) {
        await phone.page.goto(`${web.baseUrl}${path}`);
        await phone.page.getByRole('main').getByText(ready).first().waitFor();
        if (path.endsWith('/model')) await phone.page.locator('.model-errors[data-valid]').waitFor();
        const overflow = await phone.page.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        await saveScreenshot(phone.page, name);
        expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      }
      await browser.page.goto(`${web.baseUrl}/data-sources`);
      await browser.page.getByRole('main').getByText('Shops warehouse').waitFor();
      await browser.screenshot('data-10-list-desktop');
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});
