import type { LayoutItem, ResponsiveLayouts } from 'react-grid-layout';
import { type Breakpoint, breakpoints, type DashboardConfig, type Position, type Widget } from './types.ts';

/** react-grid-layout's defaults, which spec 2.2's layout shape follows. */
const defaultBreakpoints: Record<Breakpoint, number> = { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 };
const defaultCols: Record<Breakpoint, number> = { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 };

export interface GridSettings {
  breakpoints: Record<Breakpoint, number>;
  cols: Record<Breakpoint, number>;
  margin: readonly [number, number];
  containerPadding: readonly [number, number];
  rowHeight: number;
  layouts: ResponsiveLayouts<Breakpoint>;
}

/**
 * The responsive grid of a dashboard config (spec 2.2): its breakpoints, columns, margin, padding
 * and row height, and each widget's place at each breakpoint, from `responsiveLayouts` when the
 * config has one for that breakpoint and otherwise from `position`, scaled to the breakpoint's
 * columns (a narrow screen of four columns or fewer stacks widgets full width, in reading order).
 * The viewer neither drags nor resizes; overlaps are settled by the grid's vertical compaction.
 */
export function gridSettings(config: DashboardConfig, widgets: readonly Widget[]): GridSettings {
  const layout = config.layout ?? {};
  const cols = perBreakpoint(layout.cols, defaultCols, 1);
  const bps = perBreakpoint(layout.breakpoints, defaultBreakpoints, 0);
  const layouts = Object.fromEntries(
    breakpoints.map((b) => [b, placeAll(widgets, b, cols[b], cols.lg)]),
  ) as ResponsiveLayouts<Breakpoint>;
  return {
    breakpoints: bps,
    cols,
    margin: pair(layout.margin, 16),
    containerPadding: pair(layout.containerPadding, 0),
    rowHeight: typeof layout.rowHeight === 'number' && layout.rowHeight > 0 ? layout.rowHeight : 40,
    layouts,
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

function pair(values: number[] | null | undefined, fallback: number): readonly [number, number] {
  const [x, y] = (values ?? []).filter((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0);
  return [x ?? fallback, y ?? x ?? fallback];
}

function placeAll(widgets: readonly Widget[], b: Breakpoint, cols: number, lgCols: number): LayoutItem[] {
  const reading = [...widgets].sort((p, q) => p.position.y - q.position.y || p.position.x - q.position.x);
  let stackY = 0;
  const stacked = new Map<string, number>();
  for (const w of reading) {
    stacked.set(w.id, stackY);
    stackY += w.position.h;
  }
  return widgets.map((w) => {
    const own = w.responsiveLayouts?.[b] ?? (b === 'lg' ? w.position : null);
    const at: Position = own
      ? fit(own, cols)
      : cols <= 4
        ? { x: 0, y: stacked.get(w.id) ?? 0, w: cols, h: w.position.h }
        : fit(scale(w.position, cols / lgCols), cols);
    return { i: w.id, ...at, isDraggable: false, isResizable: false };
  });
}

function scale(p: Position, ratio: number): Position {
  return { x: Math.round(p.x * ratio), y: p.y, w: Math.max(1, Math.round(p.w * ratio)), h: p.h };
}

/** Keeps a place inside the breakpoint's columns. */
function fit(p: Position, cols: number): Position {
  const w = Math.min(Math.max(1, p.w), cols);
  return { x: Math.min(Math.max(0, p.x), cols - w), y: Math.max(0, p.y), w, h: Math.max(1, p.h) };
}
