// The two libraries below ship no type declarations; these cover the parts the renderer uses.

declare module 'fontkit' {
  export interface Glyph {
    advanceWidth: number;
  }
  export interface Font {
    familyName: string;
    unitsPerEm: number;
    ascent: number;
    descent: number;
    glyphForCodePoint(codePoint: number): Glyph;
  }
  export function openSync(path: string): Font;
}

declare module 'svg-to-pdfkit' {
  interface Options {
    width?: number;
    height?: number;
    preserveAspectRatio?: string;
    assumePt?: boolean;
    /** Maps an SVG font-family (with bold/italic flags) to a font name registered with the document. */
    fontCallback?: (family: string, bold: boolean, italic: boolean) => string;
    warningCallback?: (message: string) => void;
  }
  export default function SVGtoPDF(
    doc: PDFKit.PDFDocument,
    svg: string,
    x?: number,
    y?: number,
    options?: Options,
  ): void;
}
