import * as vega from 'vega';
import * as vl from 'vega-lite';
import { textWidth, weightOf } from './fonts.ts';
import type { VegaLiteSpec } from './types.ts';

/**
 * One widget's chart: its Vega-Lite spec filled with its rows, compiled with vega-lite and drawn
 * to SVG by vega headless (DESIGN.md "Notifications and rendering": no browser, no canvas).
 */

/**
 * Without a canvas, vega guesses every text's width as 0.8 em per character, which leaves wide
 * gaps beside axis labels and truncates labels that would fit. vega lets an embedder measure text
 * instead (its `textMetrics.width` hook, as vl-convert uses): measure with the shipped font, which
 * is the one resvg and pdfkit draw with. A process-wide setting of this headless vega only.
 */
type Measured = { fontSize?: number; fontWeight?: string | number; limit?: number };
const metrics = (vega as unknown as { textMetrics: { width: (item: Measured, text: unknown) => number } })
  .textMetrics;
metrics.width = (item, text) => {
  const line = text == null ? '' : String(text).trim();
  const width = textWidth(line, item.fontSize ?? 11, weightOf(item.fontWeight));
  // A label with a `limit` is drawn truncated to it (vega truncates with this same function).
  return item.limit && item.limit > 0 ? Math.min(width, item.limit) : width;
};

/** Every external load (data URLs, images) refused: rendering reads nothing but the rows given. */
const offlineLoader = (() => {
  const loader = vega.loader();
  const refuse = async (uri: string): Promise<never> => {
    throw new Error(`external data is not loaded when rendering a dashboard: ${uri}`);
  };
  return Object.assign(loader, { load: refuse, sanitize: refuse, http: refuse, file: refuse });
})();

export interface ChartSvg {
  /** The chart's SVG markup without its root element, drawn from (0, 0). */
  body: string;
  width: number;
  height: number;
}

/**
 * Renders the spec at `width` x `height` (the tile's chart area) with `autosize: fit`, which
 * shrinks the plot so that axes and legends fit inside. `config` is the theme's Vega-Lite config.
 * Throws with vega's own message when the spec cannot be compiled or drawn.
 */
export async function renderChart(
  spec: VegaLiteSpec,
  rows: Record<string, unknown>[],
  size: { width: number; height: number },
  config: Record<string, unknown>,
): Promise<ChartSvg> {
  // Errors fail the chart; so does a refused load, which vega reports only as a warning and
  // would otherwise leave a chart with a layer silently missing. Compiler warnings are ignored.
  const errors: string[] = [];
  const logger = vega.logger(vega.Warn, undefined, (method, _level, args) => {
    const text = (a: unknown) => (a instanceof Error ? a.message : String(a));
    if (method === 'error') errors.push(args.map(text).join(' '));
    else if (args[0] === 'Loading failed') errors.push(text(args[2]));
  });
  const full = {
    ...spec,
    data: { values: rows },
    width: Math.max(1, Math.floor(size.width)),
    height: Math.max(1, Math.floor(size.height)),
    autosize: { type: 'fit', contains: 'padding' },
    padding: 2,
  } as unknown as vl.TopLevelSpec;
  const compiled = vl.compile(full, { config, logger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: offlineLoader, logger });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  if (errors.length > 0) throw new Error(errors[0]);
  const root = /^<svg\b[^>]*>/.exec(svg);
  if (!root || !svg.endsWith('</svg>')) throw new Error('vega produced no SVG');
  const attr = (name: string) => Number(new RegExp(`\\s${name}="([\\d.]+)"`).exec(root[0])?.[1] ?? 0);
  return { body: svg.slice(root[0].length, -'</svg>'.length), width: attr('width'), height: attr('height') };
}

/**
 * Each chart's SVG numbers its clip paths and gradients from a process-wide counter; prefixing
 * every id and reference inside tags keeps several charts in one document apart whatever the
 * counters did (text content is left alone).
 */
export function scopeIds(body: string, prefix: string): string {
  return body.replace(/<[^>]+>/g, (tag) =>
    tag
      .replace(/\sid="([^"]+)"/g, ` id="${prefix}$1"`)
      .replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`)
      .replace(/href="#([^"]+)"/g, `href="#${prefix}$1"`),
  );
}
