import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Frame, Page, Response } from 'playwright-core';
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

const hostScript = fileURLToPath(new URL('../../../examples/embed-host/server.mjs', import.meta.url));
const widgetCount = 6;

interface Host {
  origin: string;
  close(): Promise<void>;
}

/**
 * The example host application (examples/embed-host) as a customer runs it: its own Node process,
 * on `localhost` (another origin than Tessera's 127.0.0.1), with Tessera's address and an API key.
 */
async function startHost(env: Record<string, string>): Promise<Host> {
  const child: ChildProcess = spawn(process.execPath, [hostScript], {
    env: { PATH: process.env.PATH ?? '', HOST: 'localhost', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`embed host did not start: ${output}`)), 15_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/localhost:\d+)\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`embed host exited (${code}): ${output}`)));
  });
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The embed page's frame inside the host page, once it has its document. */
async function embedFrame(page: Page): Promise<Frame> {
  const element = await page.waitForSelector('#tessera-embed');
  const frame = await element.contentFrame();
  if (!frame) throw new Error('the iframe has no frame');
  return frame;
}

/** Waits until every tile of the dashboard has drawn; fails fast on a tile in error, and says which tile lagged. */
async function waitForDrawn(frame: Frame) {
  try {
    await frame.waitForFunction(
      (count) => {
        const tiles = [...document.querySelectorAll('.tsr-tile[data-state]')];
        const failed = tiles.find((t) => t.getAttribute('data-state') === 'error');
        if (failed) throw new Error(`widget ${failed.getAttribute('data-widget-id')}: ${failed.textContent}`);
        return tiles.length === count && tiles.every((t) => t.getAttribute('data-state') === 'drawn');
      },
      widgetCount,
      { timeout: 45_000 },
    );
  } catch (error) {
    const states = await frame
      .evaluate(() => ({
        embed: document.querySelector('.embed-root')?.getAttribute('data-embed-state'),
        tiles: [...document.querySelectorAll('.tsr-tile')].map(
          (t) => `${t.getAttribute('data-widget-id')}=${t.getAttribute('data-state')}`,
        ),
      }))
      .catch(() => 'unreadable');
    throw new Error(`${(error as Error).message}\npage state: ${JSON.stringify(states)}`);
  }
}

/** What each tile shows: data marks of a chart, rows of a table, or a figure. */
function tileContents(frame: Frame) {
  return frame.evaluate(() =>
    [...document.querySelectorAll('.tsr-tile')].map((tile) => ({
      id: tile.getAttribute('data-widget-id'),
      state: tile.getAttribute('data-state'),
      marks: tile.querySelectorAll('svg g.role-mark > *').length,
      rows: tile.querySelectorAll('table tbody tr').length,
      figure: tile.querySelector('.tsr-figure-value')?.textContent?.trim() ?? '',
    })),
  );
}

/** Where a page could keep a credential: its address, both storages and its cookies. */
function storageOfPage() {
  const read = (storage: () => Storage) => {
    try {
      return Object.entries(storage());
    } catch {
      return 'denied' as const;
    }
  };
  return {
    href: location.href,
    local: read(() => localStorage),
    session: read(() => sessionStorage),
    cookie: document.cookie,
  };
}

/** The values of one column of a table tile, by the member its header names. */
function columnValues(frame: Frame, widgetId: string, member: string) {
  return frame.evaluate(
    ({ widgetId, member }) => {
      const tile = document.querySelector(`.tsr-tile[data-widget-id="${widgetId}"]`);
      const headers = [...(tile?.querySelectorAll('thead th') ?? [])].map((th) => th.getAttribute('title'));
      const index = headers.indexOf(member);
      if (index < 0) throw new Error(`no column ${member} in ${headers.join(', ')}`);
      return [...(tile?.querySelectorAll('tbody tr') ?? [])].map(
        (tr) => tr.querySelectorAll('td')[index]?.textContent ?? '',
      );
    },
    { widgetId, member },
  );
}

describeInBrowser('embed page in a host application on another origin', () => {
  let web: BrowserServer;
  let browser: BrowserSession;
  let allowed: Host;
  let stranger: Host;
  let publicId: string;
  let tesseraOrigin: string;
  /** Requests to any origin but Tessera's and the hosts' (refused). */
  const offOrigin: string[] = [];

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

  /** Whether a session (by its id) has been redeemed, read from the store. */
  async function redeemed(sessionId: string) {
    const row = await web.server.store.db
      .selectFrom('embed_sessions')
      .select('redeemed_at')
      .where('session_hash', '=', createHash('sha256').update(sessionId).digest('hex'))
      .executeTakeFirstOrThrow();
    return row.redeemed_at !== null;
  }

  beforeAll(async () => {
    assertWebBuilt();
    web = await startBrowserServer();
    tesseraOrigin = new URL(web.baseUrl).origin;
    const { server } = web;
    const board = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    publicId = board.publicId;
    const env = {
      TESSERA_URL: web.baseUrl,
      TESSERA_API_KEY: server.adminKey,
      DEPLOYMENT_ID: String(server.demoDeploymentId),
      DASHBOARD_ID: publicId,
    };
    allowed = await startHost(env);
    stranger = await startHost(env);
    await api('PUT', '/api/v1/embed/settings', { frameAncestors: [allowed.origin] });

    // Tall enough for the whole dashboard: a cross-site frame is drawn only where it is on screen.
    browser = await openBrowser(allowed.origin, { viewport: { width: 1280, height: 1700 } });
    // Two origins take part here: the host's pages and Tessera's (the frame). Anything else is refused.
    const origins = new Set([allowed.origin, stranger.origin, tesseraOrigin]);
    await browser.context.unrouteAll();
    await browser.context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('data:') || url.startsWith('blob:') || origins.has(new URL(url).origin))
        return route.continue();
      offOrigin.push(url);
      return route.abort('blockedbyclient');
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await allowed?.close();
    await stranger?.close();
    await web?.close();
  });

  /** Opens the host page as `user` and waits for the embedded dashboard to draw; what it read comes back. */
  async function openAs(page: Page, user: string) {
    const widgetRows = new Map<string, unknown[]>();
    const tokenRequests: { cookie: string | undefined }[] = [];
    const tokens: string[] = [];
    const authorizations = new Set<string>();
    const pending: Promise<void>[] = [];
    const read = async (response: Response) => {
      const url = new URL(response.url());
      if (url.origin !== tesseraOrigin) return;
      if (url.pathname === '/api/v1/embed/session/token') {
        tokenRequests.push({ cookie: (await response.request().headerValue('cookie')) ?? undefined });
        if (response.ok()) tokens.push((await response.json()).token);
      }
      const widget = /\/widgets\/([^/]+)\/data$/.exec(url.pathname);
      if (widget && response.ok()) {
        widgetRows.set(decodeURIComponent(widget[1]), (await response.json()).data);
        authorizations.add((await response.request().headerValue('authorization')) ?? '');
      }
    };
    const onResponse = (response: Response) => void pending.push(read(response));
    page.on('response', onResponse);
    await page.goto(`${allowed.origin}/?user=${user}`);
    const frame = await embedFrame(page);
    await waitForDrawn(frame);
    page.off('response', onResponse);
    await Promise.all(pending);
    return { frame, widgetRows, tokenRequests, tokens, authorizations };
  }

  it('draws every chart of the dashboard with real rows inside the host page', async () => {
    const { page } = browser;
    const alice = await openAs(page, 'alice');
    expect(await page.locator('#user').textContent()).toBe('Alice');

    const tiles = await tileContents(alice.frame);
    expect(tiles).toHaveLength(widgetCount);
    for (const tile of tiles) {
      expect(tile.state, tile.id ?? '').toBe('drawn');
      expect(
        tile.marks + tile.rows + (tile.figure === '' ? 0 : 1),
        `${tile.id} shows nothing`,
      ).toBeGreaterThan(0);
    }
    // Every widget was read with rows, with the embed token as the only credential.
    expect([...alice.widgetRows.keys()].sort()).toEqual(tiles.map((t) => t.id).sort());
    for (const [id, rows] of alice.widgetRows) expect(rows.length, id).toBeGreaterThan(0);
    expect(alice.tokens).toHaveLength(1);
    expect([...alice.authorizations]).toEqual([`Bearer ${alice.tokens[0]}`]);
    expect(alice.tokenRequests).toEqual([{ cookie: undefined }]);

    // The embed theme the host asked for (spec 4.3 embedTheme) is the dashboard's primary colour.
    const primary = await alice.frame.evaluate(() =>
      getComputedStyle(document.querySelector('.tsr-dashboard') as Element).getPropertyValue('--tsr-primary'),
    );
    expect(primary.trim().toLowerCase()).toBe('#0f766e');
    // The frame fitted its content (the embed page reports its height to the host).
    const frameHeight = await page
      .locator('#tessera-embed')
      .evaluate((f) => f.getBoundingClientRect().height);
    const contentHeight = await alice.frame.evaluate(
      () => (document.querySelector('.embed-root') as Element).getBoundingClientRect().height,
    );
    expect(Math.abs(frameHeight - contentHeight)).toBeLessThanOrEqual(4);

    await saveScreenshot(page, 'embed-host-alice');
    expect(offOrigin).toEqual([]);
    expect(browser.errors).toEqual([]);
  }, 90_000);

  it('cross-filters the embedded dashboard by a clicked bar, kept out of the address (issue 23 item 3)', async () => {
    const { page } = browser;
    const { frame } = await openAs(page, 'alice');
    const figure = frame.locator('[data-widget-id="revenue"] .tsr-figure-value');
    const before = await figure.textContent();
    const address = frame.url();
    const bars = frame.locator('[data-widget-id="orders-by-status"] svg .mark-rect path');
    const picked = await bars.evaluateAll((paths) =>
      paths.map(
        (p) =>
          (p as unknown as { __data__: { datum: Record<string, string> } }).__data__.datum['orders.status'],
      ),
    );
    const index = picked.indexOf('completed');
    expect(index).toBeGreaterThanOrEqual(0);
    await bars.nth(index).click();
    const chip = frame.locator('.tsr-chip[data-chip="orders.status"]');
    await chip.waitFor();
    await frame.waitForFunction(
      (text) => document.querySelector('[data-widget-id="revenue"] .tsr-figure-value')?.textContent !== text,
      before,
    );
    await waitForDrawn(frame);
    expect(await bars.count()).toBe(1);
    expect(
      await frame.locator('[data-widget-id="recent-orders"] tbody tr td:nth-child(3)').allTextContents(),
    ).toEqual(expect.arrayContaining(['completed']));
    for (const status of await frame
      .locator('[data-widget-id="recent-orders"] tbody tr td:nth-child(3)')
      .allTextContents())
      expect(status).toBe('completed');
    // The host's address is the host's: the frame's stays as it was.
    expect(frame.url()).toBe(address);
    await saveScreenshot(page, 'embed-host-cross-filtered');
    await frame.getByRole('button', { name: 'Remove the filter Orders status: completed' }).click();
    await frame.waitForFunction(
      (text) => document.querySelector('[data-widget-id="revenue"] .tsr-figure-value')?.textContent === text,
      before,
    );
    expect(await chip.count()).toBe(0);
  }, 90_000);

  it('takes the session out of the address and keeps the token out of storage', async () => {
    const { page } = browser;
    const { frame, tokens } = await openAs(page, 'alice');
    const src = (await page.locator('#tessera-embed').getAttribute('src')) ?? '';
    const sessionId = new URL(src).searchParams.get('session') ?? '';
    expect(sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(await redeemed(sessionId)).toBe(true);
    const inside = await frame.evaluate(storageOfPage);
    expect(frame.url()).not.toContain('session=');
    expect(inside.href).toBe(`${tesseraOrigin}/embed/dashboard/${publicId}`);
    expect(inside.href).not.toContain(sessionId);
    expect(JSON.stringify([inside.local, inside.session, inside.cookie])).not.toContain(tokens[0]);
    // A framed page of another site may have no storage at all (the browser partitions or denies it).
    expect(inside.local === 'denied' || inside.local.length === 0, JSON.stringify(inside.local)).toBe(true);
    expect(inside.session === 'denied' || inside.session.length === 0, JSON.stringify(inside.session)).toBe(
      true,
    );
    expect(inside.cookie).toBe('');
    const cookies = await browser.context.cookies(tesseraOrigin);
    expect(JSON.stringify(cookies)).not.toContain(tokens[0]);

    // Opened directly (first party, where storage is there to use), it stores nothing either.
    const page2 = await browser.context.newPage();
    const { sessionId: direct } = await api('POST', '/api/v1/embed/generate-session', {
      deploymentId: web.server.demoDeploymentId,
      externalId: 'erin',
    });
    await page2.goto(`${tesseraOrigin}/embed/dashboard/${publicId}?session=${direct}`);
    await waitForDrawn(page2.mainFrame());
    expect(page2.url()).toBe(`${tesseraOrigin}/embed/dashboard/${publicId}`);
    expect(await page2.evaluate(storageOfPage)).toEqual({
      href: `${tesseraOrigin}/embed/dashboard/${publicId}`,
      local: [],
      session: [],
      cookie: '',
    });
    await page2.close();
  });

  it('shows two users with different attributes different rows', async () => {
    const { page } = browser;
    // The Revenue tile's figure, with the widget's: read before the page moves on to another user.
    const revenue = async (read: Awaited<ReturnType<typeof openAs>>) => {
      const tile = (await tileContents(read.frame)).find((t) => t.id === 'revenue');
      const rows = read.widgetRows.get('revenue') as Record<string, unknown>[];
      return { shown: tile?.figure ?? '', figure: Math.round(Number(rows[0]['orders.total_amount'])) };
    };
    const alice = await openAs(page, 'alice');
    const aliceCountries = await columnValues(alice.frame, 'recent-orders', 'customers.country');
    const aliceRevenue = await revenue(alice);
    await saveScreenshot(page, 'embed-host-alice-rows');
    const bob = await openAs(page, 'bob');
    expect(await page.locator('#user').textContent()).toBe('Bob');
    const bobCountries = await columnValues(bob.frame, 'recent-orders', 'customers.country');
    const bobRevenue = await revenue(bob);
    await saveScreenshot(page, 'embed-host-bob');

    // The demo model keeps a user with a `country` attribute to that country's customers.
    expect(aliceCountries.length).toBeGreaterThan(0);
    expect(bobCountries.length).toBeGreaterThan(0);
    expect(new Set(aliceCountries)).toEqual(new Set(['DE']));
    expect(new Set(bobCountries)).toEqual(new Set(['US']));
    const rowsOf = (read: typeof alice) => JSON.stringify(read.widgetRows.get('recent-orders'));
    expect(rowsOf(alice)).not.toBe(rowsOf(bob));
    // The Revenue figure too is each user's own (orders carry the policy through their customer),
    // and the tile shows the widget's figure in whole currency units.
    expect(aliceRevenue.shown).not.toBe(bobRevenue.shown);
    for (const r of [aliceRevenue, bobRevenue]) {
      expect(r.shown, JSON.stringify(r)).toMatch(/^\$[\d,]+$/);
      expect(Number(r.shown.replace(/[$,]/g, '')), JSON.stringify(r)).toBe(r.figure);
    }
    expect(browser.errors).toEqual([]);
  });

  it('is refused by the browser on a host origin the tenant does not allow', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${stranger.origin}/?user=alice`);
    const src = (await page.locator('#tessera-embed').getAttribute('src')) ?? '';
    const sessionId = new URL(src).searchParams.get('session') ?? '';
    await expect.poll(() => errors.join('\n'), { timeout: 15_000 }).toMatch(/frame-ancestors/);
    const frame = await embedFrame(page);
    // The frame holds the browser's error page, not Tessera's: nothing of the embed page ran.
    expect(await frame.evaluate(() => document.querySelector('.embed-root'))).toBeNull();
    expect(await redeemed(sessionId)).toBe(false);
    await saveScreenshot(page, 'embed-host-refused');
    await page.close();
  });

  it('explains an unknown, used or expired session, and a reload, on an error page', async () => {
    const page = await browser.context.newPage();
    const generate = async () =>
      (
        await api('POST', '/api/v1/embed/generate-session', {
          deploymentId: web.server.demoDeploymentId,
          externalId: 'carol',
        })
      ).sessionId as string;
    const notice = async () => {
      await page.waitForSelector('.embed-root[data-embed-state="failed"] .embed-notice');
      return page.locator('.embed-notice').getAttribute('data-code');
    };
    const url = (session: string) => `${tesseraOrigin}/embed/dashboard/${publicId}?session=${session}`;

    await page.goto(url('0'.repeat(32)));
    expect(await notice()).toBe('embed_session_invalid');
    expect(page.url()).not.toContain('session=');

    const used = await generate();
    await page.goto(url(used));
    await page.waitForSelector('.embed-root[data-embed-state="ready"]');
    await page.reload();
    // The session left the address, so a reload has none: the host must make a new one.
    expect(await notice()).toBe('missing_session');
    await page.goto(url(used));
    expect(await notice()).toBe('embed_session_redeemed');
    expect(await page.locator('.embed-notice p').textContent()).toContain('already been used');
    await saveScreenshot(page, 'embed-session-used');

    const stale = await generate();
    await web.server.store.db
      .updateTable('embed_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('session_hash', '=', createHash('sha256').update(stale).digest('hex'))
      .execute();
    await page.goto(url(stale));
    expect(await notice()).toBe('embed_session_expired');

    await page.goto(`${tesseraOrigin}/embed/dashboard/${publicId}`);
    expect(await notice()).toBe('missing_session');
    await page.close();
  });

  it('stops with a message when the token reaches the end of its life', async () => {
    const page = await browser.context.newPage();
    await page.clock.install();
    const { sessionId } = await api('POST', '/api/v1/embed/generate-session', {
      deploymentId: web.server.demoDeploymentId,
      externalId: 'dave',
    });
    await page.goto(`${tesseraOrigin}/embed/dashboard/${publicId}?session=${sessionId}`);
    await waitForDrawn(page.mainFrame());
    await page.clock.fastForward('23:59:00');
    expect(await page.locator('.embed-root').getAttribute('data-embed-state')).toBe('ready');
    await page.clock.fastForward('00:01:01');
    await page.waitForSelector('.embed-root[data-embed-state="ended"]');
    expect(await page.locator('.embed-notice').getAttribute('data-code')).toBe('credential_expired');
    expect(await page.locator('.tsr-tile').count()).toBe(0);
    await saveScreenshot(page, 'embed-token-expired');
    await page.close();
  });

  it('shows a chat panel under the dashboard only when the session allows dashboard chat', async () => {
    const open = async (showDashboardChat: boolean) => {
      const page = await browser.context.newPage();
      const { sessionId } = await api('POST', '/api/v1/embed/generate-session', {
        deploymentId: web.server.demoDeploymentId,
        externalId: `chat-${showDashboardChat}`,
        userAttributeDefinitions: [{ name: 'country', displayName: 'Country' }],
        userAttributes: [{ name: 'country', value: 'DE' }],
        settings: { showDashboardChat },
      });
      await page.goto(`${tesseraOrigin}/embed/dashboard/${publicId}?session=${sessionId}`);
      await waitForDrawn(page.mainFrame());
      return page;
    };
    const withChat = await open(true);
    const pageErrors: string[] = [];
    withChat.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())));
    withChat.on('pageerror', (e) => void pageErrors.push(e.message));
    const streams: Promise<string>[] = [];
    withChat.on('response', (r) => {
      if (r.url().endsWith('/chat/stream-chat-state')) streams.push(r.text());
    });
    await withChat.locator('.embed-chat .tsr-chat textarea').waitFor();
    await withChat.locator('.embed-chat .tsr-chat textarea').fill('Revenue by month in 2024');
    await withChat.keyboard.press('Enter');
    const turn = withChat.locator('.tsr-chat-turn').last();
    await withChat.locator('.tsr-chat-turn[data-turn-status="done"]').first().waitFor({ timeout: 60_000 });
    const chart = turn.locator('.tsr-chat-chart[data-chart-state="drawn"]');
    await chart.waitFor();
    // the streamed query ran as the embed user: only German customers' orders, one point per month
    const lines = (await Promise.all(streams))
      .join('\n')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    const sql = lines.filter((l) => l.toolCall?.name === 'serviceSqlApi' && l.toolCall.result).at(-1);
    const rows = JSON.parse(sql.toolCall.result).data as unknown[];
    expect(rows.length).toBeGreaterThan(0);
    expect(await chart.locator('svg .mark-symbol path').count()).toBe(rows.length);
    expect((await turn.locator('.tsr-chat-answer-text').innerText()).trim()).not.toBe('');
    await chart.scrollIntoViewIfNeeded();
    await saveScreenshot(withChat, 'embed-chat-answer');
    await withChat.close();

    const without = await open(false);
    expect(await without.locator('.tsr-chat').count()).toBe(0);
    expect(await without.locator('.embed-chat').count()).toBe(0);
    await without.close();
    expect(pageErrors).toEqual([]);
  });
});
