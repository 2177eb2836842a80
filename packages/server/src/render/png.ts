import { Resvg } from '@resvg/resvg-js';
import { fontFamily, fontFiles } from './fonts.ts';

/**
 * Rasterises a rendered dashboard with resvg. The shipped font files are loaded by path and the
 * machine's fonts are not (DESIGN.md "Chosen libraries": resvg drops text silently without a
 * font), so a PNG looks the same on every machine. `scale` 2 gives a sharper image for high-density
 * screens at twice the size in each direction.
 */
export function toPng(svg: string, options: { scale?: number } = {}): Buffer {
  const scale = options.scale ?? 1;
  const resvg = new Resvg(svg, {
    fitTo: scale === 1 ? { mode: 'original' } : { mode: 'zoom', value: scale },
    font: {
      fontFiles: [fontFiles.regular, fontFiles.semiBold],
      loadSystemFonts: false,
      defaultFontFamily: fontFamily,
    },
  });
  return resvg.render().asPng();
}
