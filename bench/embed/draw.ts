/**
 * bench/embed/draw.ts: time from navigation until every chart of a 6-widget dashboard has drawn on
 * the embed page, in headless Debian Chromium (playwright-core), against the physical floor
 * measured in the same run: a bare Fastify route serving a static HTML page with 6 inline SVG
 * charts, timed from navigation to its `load` event.
 *
 * Each Tessera run is what a host application's page view costs the browser: navigation to
 * `/embed/dashboard/{publicId}?session=...` with a fresh session (created beforehand, as the host's
 * server does), the bundle, the session redeemed for a token, the dashboard read, six widget-data
 * queries on the sample data (scale 1: 1,000,000 orders) and the demo dashboard's six widgets drawn
 * (five Vega-Lite charts and a table), until every tile says `data-state="drawn"`. Both times are read inside the page, relative to the navigation's
 * start (`performance.now()`), so the harness's own overhead is not counted.
 *
 * cold: a new browser context per run (empty HTTP cache); warm: the next page view in the same
 * context (the bundle cached; the session, token and queries are new; the query cache of the
 * server is warm after the first run).
 *
 *   node --import tsx bench/embed/draw.ts
 *   TESSERA_BENCH_ITERATIONS=30 node --import tsx bench/embed/draw.ts
 *
 * Env: TESSERA_BENCH_ITERATIONS (default 15 runs of each kind), TESSERA_BENCH_EMBED_DIR (data
 * directory holding the generated sample database, reused between runs).
 */
import Fastify from 'fastify';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ensureWebBuild } from '../../packages/web/scripts/ensure-build.ts';
import { chromiumFlags, chromiumPath } from '../../packages/web/test/chromium.ts';
import { benchDataDir, startDemoServer } from '../lib/demo-server.ts';
import { iterations, median } from '../lib/stats.ts';

const widgetCount = 6;

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

/** The floor: six inline SVG charts in one static page, no script, from a bare Fastify route. */
function staticPage(): string {
  const chart = (i: number) => {
    const bars = Array.from({ length: 8 }, (_, j) => {
      const h = 20 + ((i * 37 + j * 53) % 140);
      return `<rect x="${20 + j * 45}" y="${180 - h}" width="30" height="${h}" fill="#4c78a8"/>`;
    }).join('');
    return `<figure><figcaption>Chart ${i + 1}</figcaption><svg width="400" height="200" viewBox="0 0 400 200" role="img"><line x1="15" y1="180" x2="390" y2="180" stroke="#888"/>${bars}</svg></figure>`;
  };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Baseline</title>
<style>body{font-family:sans-serif;display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:8px}figure{margin:0;border:1px solid #ddd}</style>
</head><body>${Array.from({ length: widgetCount }, (_, i) => chart(i)).join('')}</body></html>`;
}

async function startBaseline(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  const html = staticPage();
  app.get('/', (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${base}/`, close: () => app.close() };
}

/**
 * Records, inside the page, the first moment every tile of the dashboard is drawn: a
 * MutationObserver over the document, installed before the page's own scripts run.
 */
const drawnProbe = `(() => {
  const check = () => {
    if (window.__drawnAt !== undefined) return;
    const tiles = document.querySelectorAll('[data-state]');
    if (tiles.length < ${widgetCount}) return;
    for (const tile of tiles) {
      const state = tile.getAttribute('data-state');
      if (state === 'error') { window.__drawnAt = -1; return; }
      if (state !== 'drawn') return;
    }
    window.__drawnAt = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
})();`;

/** Where the time of one embed page view went, each a moment after navigation start (ms). */
interface Phases {
  /** The page's scripts loaded and run (DOMContentLoaded). */
  scripts: number;
  /** The session redeemed: the token's answer received. */
  token: number;
  /** The dashboard read with the token. */
  dashboard: number;
  /** The last widget's rows received. */
  rows: number;
  /** Every tile drawn. */
  drawn: number;
}
const phaseNames: (keyof Phases)[] = ['scripts', 'token', 'dashboard', 'rows', 'drawn'];
const phases: Phases[] = [];
/** Read in the page as a string: tsx would wrap named functions in a helper the page lacks. */
const phaseProbe = `(() => {
  const resources = performance.getEntriesByType('resource');
  const end = (test) => Math.max(0, ...resources.filter((r) => test(new URL(r.name).pathname)).map((r) => r.responseEnd));
  return {
    scripts: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
    token: end((p) => p === '/api/v1/embed/session/token'),
    dashboard: end((p) => p.startsWith('/api/v1/embed/dashboard/')),
    rows: end((p) => p.endsWith('/data')),
  };
})()`;

async function timeEmbed(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    () => (window as unknown as { __drawnAt?: number }).__drawnAt,
    null,
    {
      timeout: 60_000,
      polling: 50,
    },
  );
  const at = (await handle.jsonValue()) as number;
  if (at < 0) throw new Error('a widget answered with an error');
  const marks = (await page.evaluate(phaseProbe)) as Omit<Phases, 'drawn'>;
  phases.push({ ...marks, drawn: at });
  return at;
}

async function timeStatic(page: Page, url: string, reload: boolean): Promise<number> {
  if (reload) await page.reload({ waitUntil: 'load' });
  else await page.goto(url, { waitUntil: 'load' });
  return page.evaluate(
    () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
  );
}

async function newContext(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(drawnProbe);
  return { context, page: await context.newPage() };
}

interface Figures {
  cold: number[];
  warm: number[];
}

async function measure(
  browser: Browser,
  one: (page: Page, warm: boolean) => Promise<number>,
): Promise<Figures> {
  const figures: Figures = { cold: [], warm: [] };
  // One unmeasured round first: the server's first queries and the browser's first process.
  {
    const { context, page } = await newContext(browser);
    await one(page, false);
    await context.close();
  }
  for (let i = 0; i < iterations; i++) {
    const { context, page } = await newContext(browser);
    figures.cold.push(await one(page, false));
    figures.warm.push(await one(page, true));
    await context.close();
  }
  return figures;
}

function line(label: string, xs: number[]): string {
  return `${label.padEnd(26)} median ${median(xs).toFixed(0).padStart(5)} ms   p95 ${p95(xs).toFixed(0).padStart(5)} ms`;
}

async function main() {
  await ensureWebBuild((l) => console.error(l));
  const tessera = await startDemoServer({
    dataDir: benchDataDir('TESSERA_BENCH_EMBED_DIR', 'tessera-bench-embed'),
  });
  const baseline = await startBaseline();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? chromiumPath,
    args: chromiumFlags,
  });
  try {
    const floor = await measure(browser, (page, warm) => timeStatic(page, baseline.url, warm));
    const embed = await measure(browser, async (page) => timeEmbed(page, await tessera.embedUrl()));
    console.log(
      `bench/embed draw: navigation until all ${widgetCount} charts drawn, ${iterations} runs each, headless ${browser.version()}, node ${process.version}`,
    );
    console.log(line('baseline static, cold', floor.cold));
    console.log(line('baseline static, warm', floor.warm));
    console.log(line('Tessera embed, cold', embed.cold));
    console.log(line('Tessera embed, warm', embed.warm));
    const each = (name: keyof Phases) => phases.map((p) => p[name]);
    console.log(
      `Tessera embed phases, median ms after navigation (all runs): ${phaseNames.map((n) => `${n} ${median(each(n)).toFixed(0)}`).join(', ')}`,
    );
    for (const kind of ['cold', 'warm'] as const)
      console.log(
        `ratio Tessera / baseline, ${kind}: median ${(median(embed[kind]) / median(floor[kind])).toFixed(1)}x, p95 ${(p95(embed[kind]) / p95(floor[kind])).toFixed(1)}x`,
      );
  } finally {
    await browser.close();
    await baseline.close();
    await tessera.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
