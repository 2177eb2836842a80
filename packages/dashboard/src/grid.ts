import type { DashboardLayout, Widget, WidgetPosition } from './schema.ts';

/**
 * The responsive grid of a dashboard config (spec 2.2 `layout`, react-grid-layout's shape;
 * DESIGN.md "Web app"): its settings with the defaults for what a config leaves out, and where
 * each widget sits at each breakpoint. The web viewer hands both to react-grid-layout; the
 * renderer lays out the `lg` breakpoint in pixels the same way (server/src/render/grid.ts), so
 * that an emailed image has the page's grid.
 */

export const breakpoints = ['lg', 'md', 'sm', 'xs', 'xxs'] as const;
export type Breakpoint = (typeof breakpoints)[number];

/** react-grid-layout's breakpoints and columns, which spec 2.2's layout shape follows. */
const defaultBreakpoints: Record<Breakpoint, number> = { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 };
const defaultCols: Record<Breakpoint, number> = { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 };
/** The viewer's spacing for a config that sets none: 16 pixels between tiles, none around them. */
const defaultMargin = 16;
const defaultContainerPadding = 0;
const defaultRowHeight = 40;

export interface GridSettings {
  /** The smallest grid width, in pixels, of each breakpoint. */
  breakpoints: Record<Breakpoint, number>;
  cols: Record<Breakpoint, number>;
  /** [horizontal, vertical] pixels between tiles. */
  margin: readonly [number, number];
  /** [horizontal, vertical] pixels between the grid's edge and its tiles. */
  containerPadding: readonly [number, number];
  rowHeight: number;
}

/** The layout's settings; a missing, negative or non-finite value takes the default. */
export function gridSettings(layout: DashboardLayout | null | undefined): GridSettings {
  return {
    breakpoints: perBreakpoint(layout?.breakpoints, defaultBreakpoints, 0),
    // Whole columns: a fractional count is cut down, as the renderer always did.
    cols: whole(perBreakpoint(layout?.cols, defaultCols, 1)),
    margin: pair(layout?.margin, defaultMargin),
    containerPadding: pair(layout?.containerPadding, defaultContainerPadding),
    rowHeight:
      typeof layout?.rowHeight === 'number' && layout.rowHeight > 0 && Number.isFinite(layout.rowHeight)
        ? layout.rowHeight
        : defaultRowHeight,
  };
}

function perBreakpoint(
  given: Partial<Record<Breakpoint, number | null>> | null | undefined,
  defaults: Record<Breakpoint, number>,
  min: number,
): Record<Breakpoint, number> {
  return Object.fromEntries(
    breakpoints.map((b) => {
      const v = given?.[b];
      return [b, typeof v === 'number' && Number.isFinite(v) && v >= min ? v : defaults[b]];
    }),
  ) as Record<Breakpoint, number>;
}

function whole(values: Record<Breakpoint, number>): Record<Breakpoint, number> {
  return Object.fromEntries(breakpoints.map((b) => [b, Math.floor(values[b])])) as Record<Breakpoint, number>;
}

function pair(values: number[] | null | undefined, fallback: number): readonly [number, number] {
  const [x, y] = (values ?? []).filter((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0);
  return [x ?? fallback, y ?? x ?? fallback];
}

/** A widget's place at one breakpoint. */
export interface Placed extends WidgetPosition {
  id: string;
}

/**
 * Each widget's place at breakpoint `b`, in input order: its `responsiveLayouts` entry for `b`
 * when it has one (at `lg`, its `position`), and otherwise its `position` scaled to the
 * breakpoint's columns (a narrow grid of four columns or fewer stacks widgets full width, in
 * reading order). Every place is kept inside the columns, as react-grid-layout's `correctBounds`
 * does; overlaps are left to the grid's vertical compaction.
 */
export function placeWidgets(widgets: readonly Widget[], b: Breakpoint, settings: GridSettings): Placed[] {
  const cols = settings.cols[b];
  const reading = [...widgets].sort((p, q) => p.position.y - q.position.y || p.position.x - q.position.x);
  let stackY = 0;
  const stacked = new Map<string, number>();
  for (const w of reading) {
    stacked.set(w.id, stackY);
    stackY += w.position.h;
  }
  return widgets.map((w) => {
    const own = w.responsiveLayouts?.[b] ?? (b === 'lg' ? w.position : null);
    const at = own
      ? fit(own, cols)
      : cols <= 4
        ? { x: 0, y: stacked.get(w.id) ?? 0, w: cols, h: w.position.h }
        : fit(scale(w.position, cols / settings.cols.lg), cols);
    return { id: w.id, ...at };
  });
}

function scale(p: WidgetPosition, ratio: number): WidgetPosition {
  return { x: Math.round(p.x * ratio), y: p.y, w: Math.max(1, Math.round(p.w * ratio)), h: p.h };
}

/** Keeps a place inside the breakpoint's columns. */
function fit(p: WidgetPosition, cols: number): WidgetPosition {
  const w = Math.min(Math.max(1, p.w), cols);
  return { x: Math.min(Math.max(0, p.x), cols - w), y: Math.max(0, p.y), w, h: Math.max(1, p.h) };
}
