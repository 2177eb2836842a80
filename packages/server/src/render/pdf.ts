import PDFDocument from 'pdfkit';
import { fontFamily, parsedFont } from './fonts.ts';
import { svgToPdf } from './svg-to-pdfkit.ts';

/** CSS pixels are 1/96 inch, PDF points 1/72: a 1200-pixel dashboard prints 12.5 inches wide. */
const pointsPerPixel = 0.75;
const semiBold = `${fontFamily}-SemiBold`;

/**
 * A rendered dashboard as a one-page PDF of its own size, drawn as vectors (svg-to-pdfkit turns
 * every SVG path and text into PDF operators; nothing is rasterised) with the shipped font
 * embedded, so its text can be selected and searched.
 */
export async function toPdf(svg: string, options: { title?: string } = {}): Promise<Buffer> {
  const root = /^<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const size = (name: string) => Number(new RegExp(`\\s${name}="([\\d.]+)"`).exec(root)?.[1]);
  const width = size('width');
  const height = size('height');
  if (!(width > 0 && height > 0)) throw new Error('The SVG has no width and height on its root element');

  const page = [width * pointsPerPixel, height * pointsPerPixel];
  const doc = new PDFDocument({
    size: page,
    margin: 0,
    info: { Title: options.title ?? '', Producer: 'Tessera' },
  });
  // pdfkit takes a parsed fontkit font as well as a file, and subsets it per document.
  doc.registerFont(fontFamily, parsedFont(400) as unknown as Buffer);
  doc.registerFont(semiBold, parsedFont(600) as unknown as Buffer);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  // Every family maps to the shipped font (theme.ts draws with it only); svg-to-pdfkit calls
  // weights of 600 and above bold.
  svgToPdf(doc, svg, 0, 0, {
    width: page[0],
    height: page[1],
    preserveAspectRatio: 'xMinYMin meet',
    fontCallback: (_family, bold) => (bold ? semiBold : fontFamily),
  });
  doc.end();
  await finished;
  return Buffer.concat(chunks);
}
