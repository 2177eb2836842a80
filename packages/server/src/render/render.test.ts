import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { extractText, getDocumentProxy } from 'unpdf';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleDashboard } from './__fixtures__/sample-dashboard.ts';
import { renderDashboard, toPdf, toPng } from './index.ts';
import { svgTexts } from './test-support.ts';
import type { RenderedDashboard } from './types.ts';

/**
 * The six-widget sample dashboard end to end: SVG, PNG and PDF. The reference image
 * `__fixtures__/sample-dashboard.png` was looked at by a person; after an intended change to how
 * dashboards look, look at the new image and rewrite it with
 * `UPDATE_RENDER_FIXTURES=1 npx vitest run packages/server/src/render/render.test.ts`.
 */
const reference = path.join(import.meta.dirname, '__fixtures__', 'sample-dashboard.png');

/**
 * Pixels allowed to differ from the reference (of 1200 x 762 = 914,400): room for anti-aliasing
 * noise, far below what one bar 10% shorter changes (over 5,000 pixels, checked below).
 */
const tolerance = 300;

function differingPixels(actual: Buffer, expected: Buffer, name: string): number {
  const a = PNG.sync.read(actual);
  const b = PNG.sync.read(expected);
  if (a.width !== b.width || a.height !== b.height) return Number.POSITIVE_INFINITY;
  const diff = new PNG({ width: a.width, height: a.height });
  const count = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold: 0.1 });
  if (count > tolerance) {
    // Left for whoever investigates a failure: the image drawn and where it differs.
    const dir = path.join(os.tmpdir(), 'tessera-render-diff');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${name}.png`), actual);
    writeFileSync(path.join(dir, `${name}-diff.png`), PNG.sync.write(diff));
  }
  return count;
}

describe('dashboard rendering without a browser (DESIGN.md "Notifications and rendering")', () => {
  let rendered: RenderedDashboard;
  let png: Buffer;
  let pdf: Buffer;
  beforeAll(async () => {
    rendered = await renderDashboard(sampleDashboard());
    png = toPng(rendered.svg);
    pdf = await toPdf(rendered.svg, { title: 'Sales overview' });
  });

  it('reports the widget that failed, and only that one, so the run can be marked partly failed', () => {
    expect(rendered.failedWidgets).toEqual([
      {
        id: 'churn-forecast',
        title: 'Churn forecast',
        error: 'Query failed: member "customers.churn_score" is not defined in the data model',
      },
    ]);
  });

  it("writes the failed widget's error into its tile instead of leaving it blank", () => {
    const text = svgTexts(rendered.svg).join(' ');
    expect(text).toContain('This widget could not be shown');
    expect(text).toContain('Query failed: member "customers.churn_score" is not defined in the data model');
  });

  it('says so in a tile whose query returned no rows, without counting it as failed', () => {
    expect(svgTexts(rendered.svg)).toContain('No data to show');
  });

  it('draws the titles, chart labels and values as text', () => {
    const texts = svgTexts(rendered.svg);
    for (const expected of [
      'Sales overview',
      'Revenue by region',
      'Revenue (USD)',
      'North',
      '$1,284,500',
      'Headlamp 400',
    ]) {
      expect(texts).toContain(expected);
    }
  });

  it('makes a PNG of the laid-out size', () => {
    const image = PNG.sync.read(png);
    // Page padding of 24 above and below everything. Header: a 30-pixel title line, a gap of 4,
    // one 18-pixel description line and 12 below it. Grid: 15 rows of 30, 14 margins of 12,
    // container padding 16 above and below.
    expect([image.width, image.height]).toEqual([
      1200,
      24 + (30 + 4 + 18 + 12) + (15 * 30 + 14 * 12 + 2 * 16) + 24,
    ]);
    expect([rendered.width, rendered.height]).toEqual([image.width, image.height]);
  });

  it('doubles the PNG in each direction at scale 2', () => {
    const image = PNG.sync.read(toPng(rendered.svg, { scale: 2 }));
    expect([image.width, image.height]).toEqual([rendered.width * 2, rendered.height * 2]);
  });

  it('matches the reference image', () => {
    if (process.env.UPDATE_RENDER_FIXTURES === '1' || !existsSync(reference)) writeFileSync(reference, png);
    expect(differingPixels(png, readFileSync(reference), 'sample-dashboard')).toBeLessThanOrEqual(tolerance);
  });

  it('does not match the reference when one bar is 10% shorter', async () => {
    const changed = sampleDashboard();
    const bars = changed.content['revenue-by-region'];
    if (!('rows' in bars)) throw new Error('the sample bar chart has rows');
    bars.rows[0] = { region: 'North', revenue: 378000 };
    const image = toPng((await renderDashboard(changed)).svg);
    expect(differingPixels(image, readFileSync(reference), 'sample-dashboard-changed')).toBeGreaterThan(
      tolerance * 3,
    );
  });

  it('makes a PDF whose text can be extracted: dashboard title, tile titles, axis labels', async () => {
    const document = await getDocumentProxy(new Uint8Array(pdf));
    const { text, totalPages } = await extractText(document, { mergePages: true });
    expect(totalPages).toBe(1);
    for (const expected of [
      'Sales overview',
      'Revenue by region',
      'Orders per month',
      'Revenue (USD)',
      'Region',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toContain('This widget could not be shown');
    // One page of the dashboard's own size, in points (0.75 per pixel).
    const page = await document.getPage(1);
    expect(page.view).toEqual([0, 0, 900, rendered.height * 0.75]);
  });

  it('draws the PDF as vectors with the shipped font embedded', () => {
    const raw = pdf.toString('latin1');
    expect(raw).not.toMatch(/\/Subtype\s*\/Image/);
    expect(raw).toMatch(/\/FontFile2/);
    expect(raw).toMatch(/\/BaseFont\s*\/[A-Z]{6}\+Inter-Regular/);
    expect(raw).toMatch(/\/BaseFont\s*\/[A-Z]{6}\+Inter-SemiBold/);
    // svg-to-pdfkit's fallback for fonts it was not given; none may be used.
    expect(raw).not.toMatch(/\/Helvetica/);
  });
});
