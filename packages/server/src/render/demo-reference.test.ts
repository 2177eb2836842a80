import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.ts';
import { seedDemoDashboard } from '../bootstrap/demo-dashboard.ts';
import { toPng } from './index.ts';

/**
 * Reference images of the demo dashboard ("Demo shop", bootstrap/demo-dashboard.ts) as a scheduled
 * notification renders it (DESIGN.md "Notifications and rendering"): through the notifications'
 * DashboardRenderer, on the generated sample data at scale 0.002 (fixed seed, fixed dates: the
 * rows never depend on the day the test runs), in UTC. Each render is compared with its PNG in
 * `__reference__/` by pixelmatch; when too many pixels differ, the render and a diff image (the
 * differing pixels in red) are written to packages/server/test/artifacts/render/ (gitignored).
 *
 * The metadata store (PGlite or PostgreSQL) holds only the dashboard; the rows come from DuckDB
 * and every text is drawn with the shipped font by resvg, so both stores give the same pixels.
 *
 * After an intended change to how dashboards look, regenerate the references, LOOK at them, and
 * commit them:
 *   TESSERA_UPDATE_REFERENCES=1 npx vitest run packages/server/src/render/demo-reference.test.ts
 */
process.env.TESSERA_SAMPLE_SCALE = '0.002';
// Vega reads the rows' times ("2024-01-01T00:00:00.000", no zone) as local time: fix the zone.
process.env.TZ = 'UTC';

const referenceDir = path.join(import.meta.dirname, '__reference__');
const artifactsDir = path.join(import.meta.dirname, '..', '..', 'test', 'artifacts', 'render');
const updating = process.env.TESSERA_UPDATE_REFERENCES === '1';

/** Spec 2.5's notification filter, as stored and as the renderer takes it. */
type Filter = { member: string; operator: 'equals'; value: string };

/** The dashboards kept as references: the demo as published, and as a German reader's mail shows it. */
const references: { name: string; filters: Filter[] | null }[] = [
  { name: 'demo-shop', filters: null },
  {
    name: 'demo-shop-country-de',
    filters: [{ member: 'customers.country', operator: 'equals', value: 'DE' }],
  },
];

/**
 * pixelmatch's per-pixel colour threshold (0.1, its default: anti-aliased edges of the same
 * shape match) and the pixels allowed to differ beyond it, of 1200 x 1344 = 1,612,800. Renders on
 * PGlite, on PostgreSQL and on repeated runs differ by 0 pixels (one font, one rasteriser); 8
 * leaves room for a few edge pixels of a resvg or font-hinting change and still catches the
 * smallest change a reader would notice: one digit of a 12-pixel table amount (8 to 9) differs
 * by 18 pixels. Measured when the references were made: the Revenue figure one digit off 104,
 * the Orders by status chart missing 22,200, the primary colour changed 122,439, another filter
 * 130,838; each is asserted below.
 */
const threshold = 0.1;
const tolerance = 8;

function compare(actual: Buffer, expected: Buffer, name: string): number {
  const a = PNG.sync.read(actual);
  const b = PNG.sync.read(expected);
  if (a.width !== b.width || a.height !== b.height) {
    writeArtifacts(name, actual, null);
    return Number.POSITIVE_INFINITY;
  }
  const diff = new PNG({ width: a.width, height: a.height });
  const count = pixelmatch(a.data, b.data, diff.data, a.width, a.height, { threshold });
  if (count > tolerance) writeArtifacts(name, actual, PNG.sync.write(diff));
  return count;
}

/** What whoever investigates a failure looks at: the image drawn, and where it differs. */
function writeArtifacts(name: string, actual: Buffer, diff: Buffer | null) {
  mkdirSync(artifactsDir, { recursive: true });
  writeFileSync(path.join(artifactsDir, `${name}.actual.png`), actual);
  if (diff) writeFileSync(path.join(artifactsDir, `${name}.diff.png`), diff);
}

function reference(name: string): Buffer {
  const file = path.join(referenceDir, `${name}.png`);
  if (!existsSync(file))
    throw new Error(`No reference image ${file}: make it with TESSERA_UPDATE_REFERENCES=1 (see the header)`);
  return readFileSync(file);
}

describe('the demo dashboard against its reference images', () => {
  let server: TestServer;
  let publicId: string;
  const svgs = new Map<string, string>();

  async function render(filters: Filter[] | null) {
    const file = await server.services.notifications.renderer.render({
      tenantId: server.tenantId,
      deploymentId: server.demoDeploymentId,
      dashboardPublicId: publicId,
      subject: { kind: 'user', userId: server.adminUserId },
      filters: filters as never,
      timeGrains: null,
      format: 'png',
    });
    expect(file.failedWidgets).toEqual([]);
    return file;
  }

  beforeAll(async () => {
    server = await startTestServer();
    const board = await seedDemoDashboard(server.services, {
      tenantId: server.tenantId,
      userId: server.adminUserId,
      deploymentId: server.demoDeploymentId,
    });
    publicId = board.publicId;
  });
  afterAll(() => server?.close());

  for (const { name, filters } of references) {
    it(`renders ${name} as its reference image, within ${tolerance} pixels`, async () => {
      const file = await render(filters);
      svgs.set(name, file.svg);
      if (updating) {
        mkdirSync(referenceDir, { recursive: true });
        writeFileSync(path.join(referenceDir, `${name}.png`), file.bytes);
      }
      expect(compare(file.bytes, reference(name), name)).toBeLessThanOrEqual(tolerance);
    });
  }

  it('tells the two references apart: a filter changes the picture beyond the tolerance', () => {
    expect(compare(reference('demo-shop-country-de'), reference('demo-shop'), 'de-vs-all')).toBeGreaterThan(
      tolerance * 10,
    );
  });

  it('catches another filter than the reference was drawn with', async () => {
    const cancelled = await render([{ member: 'orders.status', operator: 'equals', value: 'cancelled' }]);
    expect(compare(cancelled.bytes, reference('demo-shop'), 'demo-shop-altered-filter')).toBeGreaterThan(
      tolerance * 10,
    );
  });

  /** The reference render, altered as a regression would alter it, drawn again. */
  function altered(change: (svg: string) => string, label: string): number {
    const svg = svgs.get('demo-shop');
    if (!svg) throw new Error('the demo-shop render ran first');
    const changed = change(svg);
    expect(changed).not.toBe(svg);
    return compare(toPng(changed), reference('demo-shop'), `demo-shop-altered-${label}`);
  }

  it('catches one number changed: the last digit of an amount in the Recent orders table', () => {
    const count = altered(
      (svg) =>
        svg.replace(
          /(>\$[\d,]+\.\d)(\d)(<\/text>)/,
          (_, head: string, digit: string, tail: string) => `${head}${(Number(digit) + 1) % 10}${tail}`,
        ),
      'digit',
    );
    expect(count).toBeGreaterThan(tolerance);
  });

  it('catches the Revenue figure changed by one digit', () => {
    const count = altered(
      (svg) =>
        svg.replace(
          /(>\$[\d,]*)(\d)(<\/text>)/,
          (_, head: string, digit: string, tail: string) => `${head}${(Number(digit) + 1) % 10}${tail}`,
        ),
      'figure',
    );
    expect(count).toBeGreaterThan(tolerance);
  });

  it("catches a widget whose chart is missing (Orders by status's bars and axes not drawn)", () => {
    // The fourth tile's chart (w3: the widgets in config order) is emptied up to the fifth tile.
    const count = altered(
      (svg) =>
        svg.replace(
          /(<g clip-path="url\(#w3-tile\)">)[\s\S]*?(<\/g><\/g>)(?=<g transform="translate\([\d.,]+\)"><clipPath id="w4-tile">)/,
          '$1$2',
        ),
      'missing-chart',
    );
    expect(count).toBeGreaterThan(tolerance * 10);
  });

  it('catches a wrong colour: the primary colour of the marks replaced', () => {
    const count = altered((svg) => svg.replaceAll('#3b6fd8', '#d8583b'), 'colour');
    expect(count).toBeGreaterThan(tolerance * 10);
  });
});
