import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { sampleDashboard } from './__fixtures__/sample-dashboard.ts';
import { fontFamily, parsedFont } from './fonts.ts';
import { renderDashboard } from './index.ts';
import { type SvgToPdf, svgToPdf, unpatchedSvgToPdf } from './svg-to-pdfkit.ts';

/**
 * svg-to-pdfkit.ts loads the library with the bounding box of a clipped element computed only for
 * an `objectBoundingBox` clip path. The PDFs it makes must be the library's own, byte for byte.
 */
async function pdfBytes(convert: SvgToPdf, svg: string, width: number, height: number): Promise<Buffer> {
  // A fixed creation date: otherwise two documents differ by when they were made.
  const doc = new PDFDocument({ size: [width, height], margin: 0, info: { CreationDate: new Date(0) } });
  doc.registerFont(fontFamily, parsedFont(400) as unknown as Buffer);
  doc.registerFont(`${fontFamily}-SemiBold`, parsedFont(600) as unknown as Buffer);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise((resolve) => doc.on('end', resolve));
  convert(doc, svg, 0, 0, {
    width,
    height,
    fontCallback: (_family, bold) => (bold ? `${fontFamily}-SemiBold` : fontFamily),
  });
  doc.end();
  await finished;
  return Buffer.concat(chunks);
}

describe('svg-to-pdfkit without discarded bounding boxes', () => {
  it('is the patched library, not the original as is', () => {
    expect(svgToPdf).not.toBe(unpatchedSvgToPdf);
  });

  it('makes the same PDF bytes as the library for the six-widget dashboard (tile and vega clips)', async () => {
    const { svg, width, height } = await renderDashboard(sampleDashboard());
    expect(svg).toContain('clip-path="url(#');
    const ours = await pdfBytes(svgToPdf, svg, width, height);
    expect(ours.equals(await pdfBytes(unpatchedSvgToPdf, svg, width, height))).toBe(true);
  });

  it('still clips to the bounding box for a clip path in objectBoundingBox units', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">' +
      '<clipPath id="half" clipPathUnits="objectBoundingBox"><rect x="0" y="0" width="0.5" height="1"/></clipPath>' +
      '<g clip-path="url(#half)"><rect x="20" y="10" width="160" height="80" fill="#336699"/></g></svg>';
    const ours = await pdfBytes(svgToPdf, svg, 200, 100);
    expect(ours.equals(await pdfBytes(unpatchedSvgToPdf, svg, 200, 100))).toBe(true);
    // The box was used: the clip is scaled to it (160 x 80 at 20, 10), not to the unit square.
    expect(ours.toString('latin1')).not.toEqual(
      (
        await pdfBytes(unpatchedSvgToPdf, svg.replace(' clipPathUnits="objectBoundingBox"', ''), 200, 100)
      ).toString('latin1'),
    );
  });
});
