/**
 * Dashboard rendering benchmark (DESIGN.md "Notifications and rendering": rendering needs no
 * browser). The six-widget demo dashboard ("Demo shop", bootstrap/demo-dashboard.ts) on the
 * sample data, rendered as a scheduled notification renders it (DashboardRenderer: the six
 * widgets' queries under the owner's security context, Vega-Lite to SVG, resvg to PNG or pdfkit
 * to PDF), against what a browser-based renderer would do in the same run: headless Debian
 * Chromium (playwright-core) signed in to the web viewer, opening the same dashboard page,
 * waiting until every tile says `data-state="drawn"`, and taking a full-page screenshot.
 *
 *   node --import tsx bench/render/run.ts [--out DIR]
 *
 * Measured, on a PGlite store and then on PostgreSQL when reachable (bench/lib/each-store.ts):
 * - in process: `renderer.render()` to PNG and to PDF, median of N after two warm-up runs;
 * - browser, warm: one browser and one signed-in page kept open, navigation to the dashboard's
 *   address until the screenshot is taken (median of N, after one unmeasured view);
 * - browser, cold: a new browser launched, a context with the signed-in session's cookies,
 *   navigation, drawing and the screenshot (median of TESSERA_BENCH_COLD runs; closing the
 *   browser afterwards is not counted).
 * The three are interleaved run by run, so that load from elsewhere falls on each side alike.
 * Both sides read the same rows through the same server's query cache: the sample orders cube
 * goes stale every 10 seconds, shorter than one run of the loop, so each side is measured right
 * after an unmeasured pass over the widgets' queries, and the query executions that still fall in
 * measured runs are printed per side (0: the ratios compare the drawing and the browser, not the
 * query engine). Printed:
 * absolute medians, and the ratio browser / in process for PNG and PDF, warm and cold (target:
 * at least 5x). The in-process stages of the six-widget fixture (no queries) follow, to see where
 * the renderer's own time goes.
 *
 * `--out DIR` writes the last PNG, PDF and browser screenshot of each store there, to look at.
 * Env: TESSERA_BENCH_ITERATIONS (default 15), TESSERA_BENCH_COLD (default 5),
 * TESSERA_SAMPLE_SCALE (default 1: 1,000,000 orders), TESSERA_BENCH_RENDER_DIR (where the sample
 * database is generated once and reused, default $TMPDIR/tessera-bench-render),
 * TESSERA_CHROMIUM (default /usr/bin/chromium).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Browser, chromium, type Page } from 'playwright-core';
import { seedDemoDashboard } from '../../packages/server/src/bootstrap/demo-dashboard.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import {
  ensureSampleDatabase,
  sampleScaleFromEnv,
} from '../../packages/server/src/datasources/sample/generate.ts';
import type { QueryExecutor } from '../../packages/server/src/modules/data/executor.ts';
import type { RenderedDashboardFile } from '../../packages/server/src/modules/notifications/renderer.ts';
import { sampleDashboard } from '../../packages/server/src/render/__fixtures__/sample-dashboard.ts';
import { renderDashboard, toPdf, toPng } from '../../packages/server/src/render/index.ts';
import { ensureWebBuild } from '../../packages/web/scripts/ensure-build.ts';
import { chromiumFlags, chromiumPath } from '../../packages/web/test/chromium.ts';
import { type Engine, onEachStore } from '../lib/each-store.ts';
import { printRatio } from '../lib/ratio-report.ts';
import { iterations, median } from '../lib/stats.ts';
import { startTessera, type TesseraServer } from '../lib/tessera-server.ts';

const coldRuns = Number(process.env.TESSERA_BENCH_COLD ?? 5);
/** Wide enough for the viewer's `lg` breakpoint (1200), the width the renderer lays out at. */
const viewport = { width: 1280, height: 900 };
const widgets = 6;
const target = 5;

async function time<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

/** A tile of the page as the check below reads it (this project compiles without DOM types). */
type Tile = { getAttribute(name: string): string | null };

/**
 * True once every tile of the dashboard is drawn; throws when one shows an error. A function, not
 * a string: the page's Content-Security-Policy has no 'unsafe-eval'.
 */
function allDrawn(count: number): boolean {
  const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Tile> } })
    .document;
  const tiles = [...doc.querySelectorAll('.tsr-tile[data-state]')];
  if (tiles.length !== count) return false;
  const failed = tiles.find((t) => t.getAttribute('data-state') === 'error');
  if (failed) throw new Error(`widget ${failed.getAttribute('data-widget-id')} failed`);
  return tiles.every((t) => t.getAttribute('data-state') === 'drawn');
}

/** Navigation to the dashboard until its full-page screenshot is taken. */
async function screenshot(page: Page, url: string): Promise<Buffer> {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(allDrawn, widgets, { timeout: 60_000 });
  return page.screenshot({ fullPage: true, animations: 'disabled' });
}

function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumFlags });
}

const ms = (x: number) => `${x.toFixed(0)} ms`;

async function measureStore(engine: Engine, server: TesseraServer, out: string | null): Promise<void> {
  const { seeded, services } = server;
  const deploymentId = seeded.demoDeploymentId as number;
  const board = await seedDemoDashboard(services, {
    tenantId: seeded.tenantId,
    userId: seeded.adminUserId,
    deploymentId,
  });

  // In process, as the notification scheduler renders (its owner's security context).
  const request = {
    tenantId: seeded.tenantId,
    deploymentId,
    dashboardPublicId: board.publicId,
    subject: { kind: 'user' as const, userId: seeded.adminUserId },
  };
  const render = (format: 'png' | 'pdf') =>
    services.notifications.renderer.render({ ...request, filters: null, timeGrains: null, format });
  // Both sides must read cached rows. The sample model's orders cube has `refresh_key: every: 10
  // second`, shorter than one run of the loop below (two renders, a warm and a cold browser), so
  // whichever side came first after the rows went stale paid for the queries: the in-process side,
  // always. Each side is now measured right after an unmeasured pass that empties the result cache
  // and fills it again (fresh for 10 seconds from then) with what both sides read under the same
  // user's security context: the six widgets' queries (the renderer's and the viewer's cache keys
  // are the same) and the dimension values of the viewer's filter controls (the renderer has none).
  // The engine executions that still fall in measured runs are printed per side.
  const executor = (services.data as unknown as { deps: { executor: QueryExecutor } }).deps.executor;
  const viewer = await services.dashboardData.viewers.user(seeded.tenantId, seeded.adminUserId, 'admin');
  const prime = async () => {
    executor.clear();
    await Promise.all([
      services.notifications.renderer.draw({ ...request, filters: null, timeGrains: null }),
      services.dashboardData.dimensionValues(viewer, deploymentId, board.publicId, {
        filters: [],
        limit: 500,
      }),
    ]);
  };
  const misses = { inProcess: 0, warm: 0, cold: 0 };
  const counted = async <T>(side: keyof typeof misses, run: () => Promise<T>): Promise<T> => {
    await prime();
    const before = executor.executions;
    const value = await run();
    misses[side] += executor.executions - before;
    return value;
  };
  const inProcess = { png: [] as number[], pdf: [] as number[] };
  let files = null as { png: RenderedDashboardFile; pdf: RenderedDashboardFile } | null;
  const renderBoth = async () => {
    const png = await time(() => render('png'));
    const pdf = await time(() => render('pdf'));
    if (png.value.failedWidgets.length + pdf.value.failedWidgets.length > 0)
      throw new Error(`widgets failed: ${JSON.stringify(png.value.failedWidgets)}`);
    files = { png: png.value, pdf: pdf.value };
    return { png: png.ms, pdf: pdf.ms };
  };

  // The web viewer in Chromium, signed in through the sign-in page as a person would.
  const url = `${server.base}/dashboards/${deploymentId}/${board.publicId}`;
  const browser = await launch();
  const browserVersion = browser.version();
  const browserTimes = { warm: [] as number[], cold: [] as number[] };
  let shot: Buffer | null = null;
  try {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByLabel('Email').fill(seeded.adminEmail);
    await page.getByLabel('Password').fill(seeded.createdAdminPassword as string);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url);
    const session = await context.storageState();
    // Unmeasured: the bundle into the browser's cache, the first queries, the first compiles.
    await screenshot(page, url);
    await renderBoth();
    await renderBoth();
    // Interleaved run by run, so that load from elsewhere on the machine falls on both sides alike.
    for (let i = 0; i < iterations; i++) {
      const ours = await counted('inProcess', renderBoth);
      inProcess.png.push(ours.png);
      inProcess.pdf.push(ours.pdf);
      const run = await counted('warm', () => time(() => screenshot(page, url)));
      browserTimes.warm.push(run.ms);
      shot = run.value;
      if (i >= coldRuns) continue;
      let fresh: Browser | null = null;
      const cold = await counted('cold', () =>
        time(async () => {
          fresh = await launch();
          const context = await fresh.newContext({
            viewport,
            locale: 'en-US',
            timezoneId: 'UTC',
            storageState: session,
          });
          return screenshot(await context.newPage(), url);
        }),
      );
      await (fresh as Browser | null)?.close();
      browserTimes.cold.push(cold.ms);
    }
  } finally {
    await browser.close();
  }

  const png = median(inProcess.png);
  const pdf = median(inProcess.pdf);
  const warm = median(browserTimes.warm);
  const cold = median(browserTimes.cold);
  console.log(
    `${engine}: Demo shop, ${widgets} widgets; in process ${files?.png.width} x ${files?.png.height} px; ` +
      `${browserVersion} at ${viewport.width} px wide; ${iterations} runs (cold: ${coldRuns})`,
  );
  const row = (name: string, value: string) => console.log(`  ${name.padEnd(58)} ${value}`);
  row('in process: dashboard to PNG (queries, SVG, resvg)', ms(png));
  row('in process: dashboard to PDF (queries, SVG, pdfkit)', ms(pdf));
  row('Chromium, warm: navigation to full-page screenshot', ms(warm));
  row('Chromium, cold: browser launch to full-page screenshot', ms(cold));
  const describe = (x: number) => `median ${ms(x)}`;
  const options = (ours: string, kind: string) => ({
    describe,
    rate: (x: number) => 1 / x,
    digits: 1,
    labels: {
      base: `Chromium, ${kind}`,
      ours,
      ratio: `ratio Chromium ${kind} / ${ours} (target >= ${target})`,
    },
  });
  printRatio(engine, warm, png, options('PNG', 'warm'));
  printRatio(engine, cold, png, options('PNG', 'cold'));
  printRatio(engine, warm, pdf, options('PDF', 'warm'));
  printRatio(engine, cold, pdf, options('PDF', 'cold'));
  const slowest = warm / Math.max(png, pdf);
  row(
    'query executions in measured runs (0: all cached)',
    `in process ${misses.inProcess}, warm ${misses.warm}, cold ${misses.cold}`,
  );
  row(`target: at least ${target}x faster than the warm browser`, slowest >= target ? 'met' : 'NOT MET');

  if (out && files) {
    mkdirSync(out, { recursive: true });
    const name = engine.toLowerCase();
    writeFileSync(path.join(out, `${name}-demo-shop.png`), files.png.bytes);
    writeFileSync(path.join(out, `${name}-demo-shop.pdf`), files.pdf.bytes);
    if (shot) writeFileSync(path.join(out, `${name}-chromium.png`), shot);
  }
}

/** Where the renderer's own time goes: the six-widget fixture (no queries), stage by stage. */
async function fixtureStages(): Promise<void> {
  const stages = { svg: [] as number[], png: [] as number[], pdf: [] as number[] };
  for (let i = 0; i < iterations + 2; i++) {
    const svg = await time(() => renderDashboard(sampleDashboard()));
    const png = await time(() => toPng(svg.value.svg));
    const pdf = await time(() => toPdf(svg.value.svg));
    if (i < 2) continue;
    stages.svg.push(svg.ms);
    stages.png.push(png.ms);
    stages.pdf.push(pdf.ms);
  }
  console.log(`in-process stages, six-widget fixture without queries, median of ${iterations}:`);
  console.log(`  SVG (Vega-Lite compile, vega drawing, layout) ${ms(median(stages.svg))}`);
  console.log(`  PNG from the SVG (resvg)                      ${ms(median(stages.png))}`);
  console.log(`  PDF from the SVG (pdfkit, svg-to-pdfkit)      ${ms(median(stages.pdf))}`);
}

async function main() {
  const outIndex = process.argv.indexOf('--out');
  const out = outIndex > 0 ? process.argv[outIndex + 1] : null;
  await ensureWebBuild((line) => console.error(line));
  const dataDir = process.env.TESSERA_BENCH_RENDER_DIR ?? path.join(os.tmpdir(), 'tessera-bench-render');
  const scale = sampleScaleFromEnv();
  await ensureSampleDatabase(sampleDatabaseFile(dataDir), scale, (line) =>
    process.stderr.write(`\r${line}   `),
  );
  process.stderr.write('\n');
  console.log(`bench/render: sample data at scale ${scale}, node ${process.version}`);
  await onEachStore({ name: 'render', poolSize: 10 }, async (engine, store) => {
    const server = await startTessera(store, 'render', { dataDir });
    try {
      await measureStore(engine, server, out);
    } finally {
      await server.close();
    }
  });
  await fixtureStages();
  if (out) console.log(`written to ${out}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
