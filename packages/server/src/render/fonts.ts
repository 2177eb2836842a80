import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

/**
 * The one font family every rendered dashboard uses, shipped from npm and loaded by path
 * (DESIGN.md "Chosen libraries": resvg drops text silently when no font is loaded, and the
 * machine's fonts are never relied on). Inter comes as static TTF files, which resvg, pdfkit and
 * fontkit all read; two weights cover every text we draw: 400 and 600 (anything bold).
 */
export const fontFamily = 'Inter';

const require = createRequire(import.meta.url);
export const fontFiles = {
  regular: require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
  semiBold: require.resolve('@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf'),
} as const;

export type Weight = 400 | 600;

/** CSS and SVG weights onto the two shipped ones: 550 and above (and `bold`) is semi-bold. */
export function weightOf(value: string | number | null | undefined): Weight {
  if (value === 'bold' || value === 'bolder') return 600;
  const n = typeof value === 'number' ? value : Number.parseFloat(value ?? '');
  return Number.isFinite(n) && n >= 550 ? 600 : 400;
}

let fonts: Record<Weight, fontkit.Font> | null = null;
/**
 * The parsed font of a weight, parsed once per process: Inter's layout tables take a good part of
 * a PDF's render time to decode, so pdfkit is handed these objects rather than the files.
 */
export function parsedFont(weight: Weight): fontkit.Font {
  fonts ??= { 400: fontkit.openSync(fontFiles.regular), 600: fontkit.openSync(fontFiles.semiBold) };
  return fonts[weight];
}

const widthCache = new Map<string, number>();

/**
 * Width in pixels of one line of text as resvg and pdfkit will draw it (glyph advances, no
 * kerning, which moves a line by a fraction of a pixel). Characters the font lacks count as the
 * font's missing-glyph box, as they are drawn.
 */
export function textWidth(text: string, fontSize: number, weight: Weight = 400): number {
  const key = `${weight}:${text}`;
  let units = widthCache.get(key);
  if (units === undefined) {
    const f = parsedFont(weight);
    units = 0;
    for (const char of text) units += f.glyphForCodePoint(char.codePointAt(0) as number).advanceWidth;
    units /= f.unitsPerEm;
    if (widthCache.size > 10_000) widthCache.clear();
    widthCache.set(key, units);
  }
  return units * fontSize;
}

/** Ascent and descent as fractions of the font size, to place a baseline inside a line box. */
export function verticalMetrics(weight: Weight = 400): { ascent: number; descent: number } {
  const f = parsedFont(weight);
  return { ascent: f.ascent / f.unitsPerEm, descent: -f.descent / f.unitsPerEm };
}
