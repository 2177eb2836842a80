import {
  type DashboardLayout,
  gridSettings,
  placeWidgets,
  type Widget,
  type WidgetPosition,
} from '@tessera/dashboard';

/**
 * The dashboard grid in pixels, as react-grid-layout's responsive grid draws it at the `lg`
 * breakpoint in the web viewer (spec 2.2's layout is its shape; DESIGN.md "Web app"), so that a
 * rendered image matches the viewer: the same settings and defaults and the same place of each
 * widget (packages/dashboard grid.ts, which the viewer hands to react-grid-layout), then
 * react-grid-layout's vertical compaction and rounding (`calcGridColWidth`,
 * `calcGridItemPosition`, `compact` in its utilities).
 */

export interface Tile {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GridLayout {
  tiles: Tile[];
  /** Height of the grid container: rows, gaps between them and the container padding. */
  height: number;
  /** The container padding, [horizontal, vertical]: where the first column and row start. */
  padding: [number, number];
}

export function layoutGrid(
  layout: DashboardLayout | null | undefined,
  widgets: readonly Widget[],
  width: number,
): GridLayout {
  const settings = gridSettings(layout);
  const cols = settings.cols.lg;
  const margin = settings.margin;
  const padding: [number, number] = [...settings.containerPadding];
  const rowHeight = settings.rowHeight;
  const colWidth = (width - margin[0] * (cols - 1) - padding[0] * 2) / cols;

  const placed = compact(placeWidgets(widgets, 'lg', settings));
  const tiles = placed.map((p) => ({
    id: p.id,
    x: Math.round((colWidth + margin[0]) * p.x + padding[0]),
    y: Math.round((rowHeight + margin[1]) * p.y + padding[1]),
    width: Math.round(colWidth * p.w + Math.max(0, p.w - 1) * margin[0]),
    height: Math.round(rowHeight * p.h + Math.max(0, p.h - 1) * margin[1]),
  }));
  const rows = placed.reduce((max, p) => Math.max(max, p.y + p.h), 0);
  const height = rows * rowHeight + Math.max(0, rows - 1) * margin[1] + padding[1] * 2;
  return { tiles, height, padding };
}

type Item = WidgetPosition & { id: string };

const collides = (a: Item, b: Item) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Vertical compaction, react-grid-layout's default: in reading order, each widget rises while
 * nothing is above it, then moves below anything it overlaps. Returns the widgets in input order.
 */
function compact(items: Item[]): Item[] {
  const order = [...items.keys()].sort((a, b) => items[a].y - items[b].y || items[a].x - items[b].x);
  const settled: Item[] = [];
  const result: Item[] = new Array(items.length);
  for (const index of order) {
    const item = { ...items[index] };
    const bottom = settled.reduce((max, s) => Math.max(max, s.y + s.h), 0);
    item.y = Math.min(bottom, item.y);
    while (item.y > 0 && !settled.some((s) => collides(s, { ...item, y: item.y - 1 }))) item.y--;
    for (
      let hit = settled.find((s) => collides(s, item));
      hit;
      hit = settled.find((s) => collides(s, item))
    ) {
      item.y = hit.y + hit.h;
    }
    settled.push(item);
    result[index] = item;
  }
  return result;
}
