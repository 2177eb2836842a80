/**
 * Dashboard rendering benchmark: the six-widget sample dashboard (1200 pixels wide) rendered to
 * PNG and to PDF in-process, without a browser (DESIGN.md "Notifications and rendering"). Prints
 * the median of N runs in milliseconds for each stage: the SVG (Vega-Lite compile and vega
 * drawing of every chart, layout), the PNG (resvg) and the PDF (pdfkit and svg-to-pdfkit), after
 * two warm-up runs.
 *
 *   node --import tsx bench/render/run.ts [--out DIR]
 *
 * `--out DIR` also writes the SVG, PNG and PDF there, to look at. Env: TESSERA_BENCH_ITERATIONS
 * (default 15).
 *
 * Baseline: when Debian's `chromium` is installed, the same SVG file is also screenshotted with
 * `chromium --headless --screenshot`, one browser start per image, as a renderer built on a
 * headless browser would pay per run; otherwise that row says it was skipped. The comparison with
 * the web viewer's own screenshot will be added once the web viewer exists.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sampleDashboard } from '../../packages/server/src/render/__fixtures__/sample-dashboard.ts';
import { renderDashboard, toPdf, toPng } from '../../packages/server/src/render/index.ts';
import { iterations, median } from '../lib/stats.ts';

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? null;

async function time<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

async function main() {
  const outIndex = process.argv.indexOf('--out');
  const out = outIndex > 0 ? process.argv[outIndex + 1] : null;

  const stages = { svg: [] as number[], png: [] as number[], pdf: [] as number[] };
  const totals = { png: [] as number[], pdf: [] as number[] };
  let last: { svg: string; png: Buffer; pdf: Buffer; width: number; height: number } = {
    svg: '',
    png: Buffer.alloc(0),
    pdf: Buffer.alloc(0),
    width: 0,
    height: 0,
  };
  for (let i = 0; i < iterations + 2; i++) {
    const svg = await time(() => renderDashboard(sampleDashboard()));
    const png = await time(() => toPng(svg.value.svg));
    const pdf = await time(() => toPdf(svg.value.svg));
    if (i >= 2) {
      stages.svg.push(svg.ms);
      stages.png.push(png.ms);
      stages.pdf.push(pdf.ms);
      totals.png.push(svg.ms + png.ms);
      totals.pdf.push(svg.ms + pdf.ms);
    }
    last = { ...svg.value, png: png.value, pdf: pdf.value };
  }

  const rows: [string, number | string][] = [
    ['SVG: compile and draw six widgets, lay out', median(stages.svg)],
    ['PNG from the SVG (resvg)', median(stages.png)],
    ['PDF from the SVG (pdfkit, svg-to-pdfkit)', median(stages.pdf)],
    ['dashboard to PNG, total', median(totals.png)],
    ['dashboard to PDF, total', median(totals.pdf)],
  ];

  if (chromium) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-render-'));
    const svgFile = path.join(dir, 'dashboard.svg');
    writeFileSync(svgFile, last.svg);
    const screenshot = () =>
      execFileSync(
        chromium,
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--hide-scrollbars',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          `--window-size=${last.width},${last.height}`,
          `--screenshot=${path.join(dir, 'chromium.png')}`,
          `file://${svgFile}`,
        ],
        { stdio: 'ignore' },
      );
    const shots: number[] = [];
    for (let i = 0; i < Math.min(iterations, 5) + 1; i++) {
      const { ms } = await time(screenshot);
      if (i > 0) shots.push(ms);
    }
    const browser = median(shots);
    rows.push(['baseline: chromium --headless --screenshot of the same SVG', browser]);
    rows.push([
      '  ratio, browser screenshot / in-process PNG',
      `${(browser / median(totals.png)).toFixed(1)}x`,
    ]);
  } else {
    rows.push(['baseline: chromium --headless --screenshot', 'skipped, chromium is not installed']);
  }

  console.log(`dashboard: six widgets, ${last.width} x ${last.height} pixels; median of ${iterations} runs`);
  for (const [name, value] of rows) {
    console.log(`${name.padEnd(62)} ${typeof value === 'number' ? `${value.toFixed(1)} ms` : value}`);
  }
  console.log(`PNG ${last.png.length} bytes, PDF ${last.pdf.length} bytes`);

  if (out) {
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'dashboard.svg'), last.svg);
    writeFileSync(path.join(out, 'dashboard.png'), last.png);
    writeFileSync(path.join(out, 'dashboard.pdf'), last.pdf);
    console.log(`written to ${out}`);
  }
}

await main();
