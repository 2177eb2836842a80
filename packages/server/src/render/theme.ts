import { categoryPalette } from '../../../client/src/format/chart-palette.ts';
import { fontFamily, type Weight, weightOf } from './fonts.ts';
import type { DashboardTheme } from './types.ts';

/**
 * Spec 2.2's theme (all strings, CSS-like) resolved into the numbers and colours the renderer
 * draws with. Values that do not parse fall back to the defaults below rather than reaching the
 * SVG: a theme string is user input written into markup.
 *
 * Font families: the image is drawn with the shipped font only (fonts.ts), whatever family a
 * theme names, so that what is measured is what is drawn; sizes, weights and colours apply.
 * Spacing: `dashboard.padding` is the page's margin around everything (as the web viewer pads
 * its page); the grid's own `layout.margin` and `containerPadding` place the tiles inside it
 * (grid.ts), so `widgets.margin` is not used; `widgets.padding` insets a tile's content.
 */
export interface ResolvedTheme {
  background: string;
  primary: string;
  /** Pixels between the image's edges and the header and grid. */
  pagePadding: number;
  tile: {
    background: string;
    borderColor: string;
    borderWidth: number;
    /** SVG stroke-dasharray for dashed and dotted borders. */
    borderDash: string | null;
    radius: number;
    padding: number;
  };
  title: { color: string; fontSize: number; weight: Weight };
  text: { color: string; secondary: string };
}

const fallback: ResolvedTheme = {
  background: '#f4f5f7',
  primary: '#4c78a8',
  pagePadding: 24,
  tile: {
    background: '#ffffff',
    borderColor: '#dde1e6',
    borderWidth: 1,
    borderDash: null,
    radius: 8,
    padding: 12,
  },
  title: { color: '#1f2933', fontSize: 14, weight: 600 },
  text: { color: '#323f4b', secondary: '#616e7c' },
};

/** `#abc`, `#aabbcc80`, `rgb(…)`/`rgba(…)`/`hsl(…)`/`hsla(…)` with plain numbers, or a colour keyword. */
const colourPattern = /^(#[0-9a-f]{3,8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\)|[a-z]{3,30})$/i;

function colour(value: string | null | undefined, otherwise: string): string {
  const v = value?.trim();
  return v && colourPattern.test(v) ? v : otherwise;
}

/** The first length of a CSS value (`12px`, `12`, `0.75rem`, `12px 16px`) in pixels. */
function pixels(value: string | null | undefined, otherwise: number, max = 200): number {
  const match = /^\s*(\d+(?:\.\d+)?)(px|rem|em)?\b/.exec(value ?? '');
  if (!match) return otherwise;
  const n = Number(match[1]) * (match[2] === 'rem' || match[2] === 'em' ? 16 : 1);
  return Math.min(n, max);
}

function dash(style: string | null | undefined, width: number): string | null {
  if (style === 'dashed') return `${width * 4} ${width * 3}`;
  if (style === 'dotted') return `${width} ${width * 2}`;
  return null;
}

export function resolveTheme(theme: DashboardTheme | null | undefined): ResolvedTheme {
  const widgets = theme?.widgets;
  const border = widgets?.border;
  const borderWidth = border?.style === 'none' ? 0 : pixels(border?.width, fallback.tile.borderWidth, 20);
  return {
    background: colour(theme?.dashboard?.backgroundColor ?? theme?.backgroundColor, fallback.background),
    primary: colour(theme?.primaryColor, fallback.primary),
    pagePadding: pixels(theme?.dashboard?.padding, fallback.pagePadding, 120),
    tile: {
      background: colour(widgets?.backgroundColor, fallback.tile.background),
      borderColor: colour(border?.color, fallback.tile.borderColor),
      borderWidth,
      borderDash: dash(border?.style, borderWidth),
      radius: pixels(border?.radius, fallback.tile.radius, 40),
      padding: pixels(widgets?.padding, fallback.tile.padding, 60),
    },
    title: {
      color: colour(widgets?.title?.color, fallback.title.color),
      fontSize: Math.max(8, pixels(widgets?.title?.fontSize, fallback.title.fontSize, 48)),
      weight: widgets?.title?.fontWeight ? weightOf(widgets.title.fontWeight) : fallback.title.weight,
    },
    text: {
      color: colour(widgets?.text?.color, fallback.text.color),
      secondary: colour(widgets?.text?.secondaryColor, fallback.text.secondary),
    },
  };
}

/**
 * Vega-Lite config carrying the theme into every chart. It is passed as the compiler's default
 * config, so a report's own `config` still wins where it says something.
 */
export function vegaLiteConfig(theme: ResolvedTheme): Record<string, unknown> {
  const quiet = '#c9ced6';
  const axisText = {
    labelColor: theme.text.secondary,
    titleColor: theme.text.color,
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 600,
  };
  return {
    font: fontFamily,
    background: 'transparent',
    view: { stroke: null },
    mark: { color: theme.primary },
    text: { color: theme.text.color },
    range: { category: [theme.primary, ...categoryPalette.filter((c) => c !== theme.primary)] },
    // Labels closer than 6 pixels are thinned out (vega's label overlap removal), so that a
    // crowded axis never reads as "$110k$120k".
    axis: {
      ...axisText,
      domainColor: quiet,
      tickColor: quiet,
      gridColor: '#eceff2',
      labelPadding: 4,
      labelSeparation: 6,
    },
    legend: { ...axisText, symbolType: 'circle' },
    header: axisText,
    title: { color: theme.text.color, fontSize: 12, fontWeight: 600 },
  };
}
