/**
 * Browser tests' harness: a real Tessera server listening on loopback (a fresh store, seeded as
 * on first start, serving the built web app) and Debian's chromium driven by playwright-core
 * (DESIGN.md "Chosen libraries": never `npx playwright install`), headless, a fresh context per session.
 * Every request the page makes is watched: one that leaves the server's origin is refused and
 * recorded, and so are console errors (a CSP violation is one) and uncaught page errors.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, inject } from 'vitest';
import type { Config } from '../../server/src/config/config.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { countSetup } from '../../server/test/setup-counters.ts';
import { chromiumFlags, chromiumPath } from './chromium.ts';

/** Where screenshots go (gitignored): look at them after a run. */
export const artifactsDir = fileURLToPath(new URL('./artifacts/', import.meta.url));

export function chromiumAvailable(): boolean {
  return existsSync(chromiumPath);
}

/**
 * `describe` for browser tests: skipped, and said so plainly, when chromium is not installed
 * (CI installs it: .ci/run). When the web bundle failed to build (global setup), the tests run
 * and fail with the build's error rather than test a stale bundle.
 */
export function describeInBrowser(name: string, body: () => void) {
  if (!chromiumAvailable()) {
    console.warn(
      `SKIPPED browser tests "${name}": no chromium at ${chromiumPath}. Install it with ` +
        '`apt-get install -y chromium` (or set TESSERA_CHROMIUM to its path).',
    );
    describe.skip(`${name} (skipped: chromium not installed)`, body);
    return;
  }
  describe(name, body);
}

/** Throws the web bundle's build error, if global setup could not build it. */
export function assertWebBuilt() {
  const error = inject('webBuildError');
  if (error) throw new Error(`The web app did not build (packages/web), so it cannot be tested:\n${error}`);
}

export interface BrowserServer {
  server: TestServer;
  /** `http://127.0.0.1:<port>`, the only origin the page may talk to. */
  baseUrl: string;
  close(): Promise<void>;
}

/** A Tessera server on a fresh store, listening on 127.0.0.1 on a free port. */
export async function startBrowserServer(overrides: Partial<Config> = {}): Promise<BrowserServer> {
  // The generated sample data at its smallest: browser tests are about the page, not the engine.
  process.env.TESSERA_SAMPLE_SCALE ??= '0.002';
  const server = await startTestServer(overrides);
  const baseUrl = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return { server, baseUrl, close: () => server.close() };
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send to another origin (refused). */
  offOrigin: string[];
  /** Console errors (CSP violations among them) and uncaught exceptions, in order. */
  errors: string[];
  /** Saves a full-page PNG under test/artifacts/ and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

const browserKey = Symbol.for('tessera.test.chromium');
type WithBrowser = typeof globalThis & { [browserKey]?: Promise<Browser> };

/**
 * One Chromium per test worker (issue 20): a worker runs many browser test files in turn, and
 * each session is a context of its own in it (cookies, storage and cache of its own, as a fresh
 * profile has). Playwright closes it when the worker exits.
 */
function sharedChromium(): Promise<Browser> {
  const holder = globalThis as WithBrowser;
  const running = holder[browserKey];
  if (running) return running.then((b) => (b.isConnected() ? b : launchChromium(holder)));
  return launchChromium(holder);
}

function launchChromium(holder: WithBrowser): Promise<Browser> {
  countSetup('browsers');
  const launching = chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumFlags });
  holder[browserKey] = launching;
  return launching;
}

/** A fresh browser context, one page, watching what leaves `baseUrl`'s origin. */
export async function openBrowser(
  baseUrl: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserSession> {
  const browser = await sharedChromium();
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const origin = new URL(baseUrl).origin;
  const offOrigin: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) {
      await route.continue();
      return;
    }
    offOrigin.push(url);
    await route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return {
    context,
    page,
    offOrigin,
    errors,
    screenshot: (name) => saveScreenshot(page, name),
    close: () => context.close(),
  };
}

/** Saves a full-page PNG of `page` as test/artifacts/<name>.png. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  return file;
}
