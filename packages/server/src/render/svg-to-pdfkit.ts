import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import original from 'svg-to-pdfkit';

/**
 * svg-to-pdfkit (0.1.8, the last release) with one waste removed. Before drawing an element that
 * has a `clip-path`, it computes the element's bounding box, which means laying out every path
 * and text inside it, and hands it to the clip path, which reads it only when its
 * `clipPathUnits` is `objectBoundingBox`. Every tile of a rendered dashboard is clipped
 * (`userSpaceOnUse`, the default) around its whole chart, and vega clips its plot groups again:
 * the demo dashboard's PDF spent about 40% of its time on boxes it threw away (bench/render).
 *
 * The library has no hook for this, so its single self-contained file is loaded with that one call
 * made lazy: the box is still computed, as before, for an `objectBoundingBox` clip path; nothing
 * else changes, and the PDF bytes are the same (render.test.ts compares them with the unpatched
 * library). Should a later version no longer contain the exact text replaced, the library is used
 * as it is: slower, never different.
 */
const eagerBox = `clipPath.useMask(this.getBoundingBox());`;
const lazyBox =
  `clipPath.useMask(clipPath.attr('clipPathUnits') === 'objectBoundingBox' ` +
  `? this.getBoundingBox() : null);`;

export type SvgToPdf = typeof original;

function patched(): SvgToPdf {
  const file = createRequire(import.meta.url).resolve('svg-to-pdfkit');
  const source = readFileSync(file, 'utf8');
  // Exactly one occurrence, or the file is not the one this patch was written against.
  if (source.split(eagerBox).length !== 2) return original;
  // The file defines `var SVGtoPDF = function (...)` and requires nothing; evaluated in its own
  // function scope, it hands that function back.
  const script = new Script(`(function () {${source.replace(eagerBox, lazyBox)}\nreturn SVGtoPDF;\n})()`, {
    filename: file,
  });
  const fn = script.runInThisContext() as unknown;
  return typeof fn === 'function' ? (fn as SvgToPdf) : original;
}

/** svg-to-pdfkit, the unmodified library, for the test that compares both. */
export const unpatchedSvgToPdf: SvgToPdf = original;

export const svgToPdf: SvgToPdf = patched();
