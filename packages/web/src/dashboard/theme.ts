import type { CSSProperties } from 'react';
import { categoryPalette } from '../../../client/src/format/chart-palette.ts';
import type { DashboardTheme } from './types.ts';

/** `base` with `overrides` laid over it, section by section; null and empty values do not override. */
export function mergeTheme(
  base: DashboardTheme | null | undefined,
  overrides?: DashboardTheme | null,
): DashboardTheme {
  return merge((base ?? {}) as Tree, (overrides ?? {}) as Tree) as DashboardTheme;
}

type Tree = { [key: string]: string | Tree | null | undefined };
function merge(a: Tree, b: Tree): Tree {
  const out: Tree = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (v === null || v === undefined || v === '') continue;
    const prev = out[k];
    out[k] = typeof v === 'object' && prev && typeof prev === 'object' ? merge(prev, v) : v;
  }
  return out;
}

/**
 * The theme (spec 2.2) as CSS custom properties on the dashboard's root; dashboard.css reads them,
 * with its own defaults for what the theme leaves out.
 */
export function themeVariables(theme: DashboardTheme): CSSProperties {
  const w = theme.widgets ?? {};
  const c = theme.controls ?? {};
  const entries: [string, string | null | undefined][] = [
    ['--tsr-font', theme.fontFamily],
    ['--tsr-primary', theme.primaryColor],
    ['--tsr-bg', theme.dashboard?.backgroundColor ?? theme.backgroundColor],
    ['--tsr-dashboard-padding', theme.dashboard?.padding],
    ['--tsr-widget-bg', w.backgroundColor],
    ['--tsr-widget-margin', w.margin],
    ['--tsr-widget-padding', w.padding],
    ['--tsr-widget-border-color', w.border?.color],
    ['--tsr-widget-border-radius', w.border?.radius],
    ['--tsr-widget-border-style', w.border?.style],
    ['--tsr-widget-border-width', w.border?.width],
    ['--tsr-text', w.text?.color],
    ['--tsr-text-secondary', w.text?.secondaryColor],
    ['--tsr-widget-font', w.text?.fontFamily],
    ['--tsr-code-font', w.text?.codeFontFamily],
    ['--tsr-widget-title-color', w.title?.color],
    ['--tsr-widget-title-font', w.title?.fontFamily],
    ['--tsr-widget-title-size', w.title?.fontSize],
    ['--tsr-widget-title-weight', w.title?.fontWeight],
    ['--tsr-controls-bg', c.backgroundColor],
    ['--tsr-controls-padding', c.padding],
    ['--tsr-controls-border-color', c.border?.color],
    ['--tsr-controls-border-radius', c.border?.radius],
    ['--tsr-controls-border-style', c.border?.style],
    ['--tsr-controls-border-width', c.border?.width],
    ['--tsr-controls-title-color', c.title?.color],
    ['--tsr-controls-title-font', c.title?.fontFamily],
    ['--tsr-controls-title-size', c.title?.fontSize],
    ['--tsr-controls-title-weight', c.title?.fontWeight],
  ];
  return Object.fromEntries(entries.filter(([, v]) => typeof v === 'string' && v !== '')) as CSSProperties;
}

const defaultPrimary = '#3b6fd8';
/** Vega-Lite config for the theme: fonts, the primary color on marks, muted axes. */
export function chartConfig(theme: DashboardTheme): Record<string, unknown> {
  const primary = theme.primaryColor || defaultPrimary;
  const font = theme.widgets?.text?.fontFamily || theme.fontFamily || 'Inter, system-ui, sans-serif';
  const text = theme.widgets?.text?.color || '#1f2933';
  const muted = theme.widgets?.text?.secondaryColor || '#7b8794';
  const grid = '#e9edf1';
  return {
    background: null,
    font,
    padding: 4,
    view: { stroke: null },
    mark: { color: primary },
    line: { color: primary, strokeWidth: 2 },
    point: { color: primary, filled: true, size: 36 },
    bar: { color: primary },
    area: { color: primary, opacity: 0.8 },
    arc: { stroke: theme.widgets?.backgroundColor || '#ffffff', strokeWidth: 1 },
    text: { color: text, fontSize: 12 },
    range: { category: [primary, ...categoryPalette], ramp: { scheme: 'blues' } },
    axis: {
      labelColor: muted,
      titleColor: muted,
      labelFontSize: 11,
      titleFontSize: 11,
      titleFontWeight: 500,
      gridColor: grid,
      domainColor: grid,
      tickColor: grid,
      labelLimit: 140,
      labelSeparation: 6,
    },
    axisX: { grid: false },
    legend: {
      labelColor: text,
      titleColor: muted,
      labelFontSize: 11,
      titleFontSize: 11,
      symbolType: 'circle',
    },
    title: { color: text, font, fontSize: 13 },
  };
}
