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
 *
 * `fit` never shrinks a text mark's font, so a figure (a text mark placed by neither x nor y, as
 * the demo's Revenue) wider than its tile would be cut on both sides: "$252,717,729" at 48 pixels
 * in a three-column tile. Such a figure is drawn again at the largest font size that fits.
 */
export async function renderChart(
  spec: VegaLiteSpec,
  rows: Record<string, unknown>[],
  size: { width: number; height: number },
  config: Record<string, unknown>,
): Promise<ChartSvg> {
  const chart = await draw(spec, rows, size, config);
  const smaller = shrunkFigure(spec, chart.body, size.width);
  return smaller ? draw(smaller, rows, size, config) : chart;
}

/** Pixels kept free either side of a shrunk figure. */
const figureInset = 4;
const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The spec with its text mark's font size lowered until its widest text fits, or null if it fits. */
function shrunkFigure(spec: VegaLiteSpec, body: string, width: number): VegaLiteSpec | null {
  const mark = spec.mark as string | { type?: unknown } | undefined;
  const type = typeof mark === 'string' ? mark : mark?.type;
  const encoding = (spec.encoding ?? {}) as Record<string, unknown>;
  if (type !== 'text' || encoding.x || encoding.y || encoding.size) return null;
  let widest = 0;
  let fontSize = 0;
  for (const [, attributes, raw] of body.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)) {
    const px = Number(/font-size="([\d.]+)/.exec(attributes)?.[1] ?? 0);
    const weight = weightOf(/font-weight="([^"]+)"/.exec(attributes)?.[1]);
    const text = raw.replace(/&(#\d+|[a-z]+);/g, (entity, name: string) =>
      name.startsWith('#') ? String.fromCharCode(Number(name.slice(1))) : (entities[name] ?? entity),
    );
    const w = textWidth(text, px, weight);
    if (w > widest) [widest, fontSize] = [w, px];
  }
  const room = width - 2 * figureInset;
  if (widest <= room || fontSize === 0) return null;
  const fitted = Math.max(6, Math.floor((fontSize * room) / widest));
  return { ...spec, mark: { ...(typeof mark === 'string' ? { type: mark } : mark), fontSize: fitted } };
}

/** The name the rows are given in every compiled chart, inserted into each view afresh. */
const rowsName = 'tessera_rows';

type Compiled = { runtime: vega.Runtime; errors: string[] };
/** Parsed charts by spec, size and theme; the oldest is dropped past `compiledLimit`. */
const compiledCharts = new Map<string, Compiled>();
const compiledLimit = 500;

/**
 * The spec compiled by vega-lite and parsed by vega, without its rows: both steps depend only on
 * the spec, the area and the theme, and take about half of a chart's drawing time, so a dashboard
 * rendered again (every scheduled run, every export) reuses them and only the view is new.
 */
function compile(spec: VegaLiteSpec, size: { width: number; height: number }, config: object): Compiled {
  const full = {
    ...spec,
    data: { name: rowsName },
    width: Math.max(1, Math.floor(size.width)),
    height: Math.max(1, Math.floor(size.height)),
    autosize: { type: 'fit', contains: 'padding' },
    padding: 2,
  } as unknown as vl.TopLevelSpec;
  const key = JSON.stringify([full, config]);
  const cached = compiledCharts.get(key);
  if (cached) return cached;
  const errors: string[] = [];
  const logger = vega.logger(vega.Warn, undefined, (method, _level, args) => {
    if (method === 'error') errors.push(args.map(describe).join(' '));
  });
  const runtime = vega.parse(vl.compile(full, { config, logger }).spec);
  if (compiledCharts.size >= compiledLimit)
    compiledCharts.delete(compiledCharts.keys().next().value as string);
  const compiled = { runtime, errors };
  compiledCharts.set(key, compiled);
  return compiled;
}

const describe = (a: unknown) => (a instanceof Error ? a.message : String(a));

/** One drawing of the spec with vega (see renderChart). */
async function draw(
  spec: VegaLiteSpec,
  rows: Record<string, unknown>[],
  size: { width: number; height: number },
  config: Record<string, unknown>,
): Promise<ChartSvg> {
  // Errors fail the chart; so does a refused load, which vega reports only as a warning and
  // would otherwise leave a chart with a layer silently missing. Compiler warnings are ignored.
  const compiled = compile(spec, size, config);
  const errors = [...compiled.errors];
  const logger = vega.logger(vega.Warn, undefined, (method, _level, args) => {
    if (method === 'error') errors.push(args.map(describe).join(' '));
    else if (args[0] === 'Loading failed') errors.push(describe(args[2]));
  });
  const view = new vega.View(compiled.runtime, { renderer: 'none', loader: offlineLoader, logger });
  let svg: string;
  try {
    // Copies: vega marks each row it ingests, and the caller's rows stay as they were.
    view.data(
      rowsName,
      rows.map((row) => ({ ...row })),
    );
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
