import { describe, expect, it } from 'vitest';
import { layoutGrid } from './grid.ts';

const at = (id: string, x: number, y: number, w: number, h: number) => ({ id, position: { x, y, w, h } });

describe('dashboard grid in pixels at the lg breakpoint (react-grid-layout semantics, spec 2.2 layout)', () => {
  const layout = { cols: { lg: 12 }, margin: [10, 10], containerPadding: [20, 20], rowHeight: 30 };

  it('places a tile from its columns and rows, with margins between and padding around', () => {
    // Column width (1200 - 2*20 - 11*10) / 12 = 87.5.
    const grid = layoutGrid(layout, [at('above', 0, 0, 12, 1), at('a', 2, 1, 3, 2)], 1200);
    expect(grid.tiles[1]).toEqual({
      id: 'a',
      x: 215, // round((87.5 + 10) * 2 + 20)
      y: 60, // round((30 + 10) * 1 + 20)
      width: 283, // round(87.5 * 3) + 2 * 10
      height: 70, // 30 * 2 + 1 * 10
    });
    // Three rows (the tile ends at row 3): 3 * 30 + 2 * 10 + 2 * 20.
    expect(grid.height).toBe(150);
    expect(grid.padding).toEqual([20, 20]);
  });

  it("fills a row exactly: the last column ends at the container's right padding", () => {
    const grid = layoutGrid(layout, [at('left', 0, 0, 6, 1), at('right', 6, 0, 6, 1)], 1200);
    const [left, right] = grid.tiles;
    expect(left.x).toBe(20);
    expect(right.x - (left.x + left.width)).toBe(10);
    expect(right.x + right.width).toBe(1200 - 20);
  });

  it("uses the web viewer's defaults when the layout leaves settings out", () => {
    // 12 columns, margin 16, no container padding, row height 40 (packages/dashboard grid.ts): the
    // settings the viewer hands to react-grid-layout, so that the image has the page's grid.
    const grid = layoutGrid(null, [at('a', 0, 0, 12, 1), at('b', 0, 1, 6, 2)], 1000);
    expect(grid.tiles[0]).toEqual({ id: 'a', x: 0, y: 0, width: 1000, height: 40 });
    // Column width (1000 - 11 * 16) / 12; two rows of 40 and the margin between them.
    expect(grid.tiles[1]).toEqual({ id: 'b', x: 0, y: 56, width: 492, height: 96 });
    expect(grid.height).toBe(152);
    expect(grid.padding).toEqual([0, 0]);
  });

  it('prefers the lg entry of responsiveLayouts over position', () => {
    const widget = {
      id: 'a',
      position: { x: 0, y: 0, w: 12, h: 1 },
      responsiveLayouts: { lg: { x: 6, y: 0, w: 6, h: 2 } },
    };
    const [tile] = layoutGrid(layout, [widget], 1200).tiles;
    expect(tile.x).toBe(Math.round(97.5 * 6 + 20));
    expect(tile.height).toBe(70);
  });

  it('compacts vertically: a tile rises to the first free row, one that overlaps moves below', () => {
    const grid = layoutGrid(
      layout,
      [
        at('top', 0, 0, 6, 2),
        at('floating', 6, 5, 6, 1),
        at('under', 0, 4, 6, 1),
        at('overlapping', 2, 1, 3, 1),
      ],
      1200,
    );
    // Tile top = round((30 + 10) * row + 20).
    const row = (id: string) => ((grid.tiles.find((t) => t.id === id)?.y ?? Number.NaN) - 20) / 40;
    expect(row('top')).toBe(0);
    expect(row('floating')).toBe(0); // nothing above it in columns 6-11
    expect(row('overlapping')).toBe(2); // it overlapped 'top', so it goes below it
    expect(row('under')).toBe(3); // rises until it meets 'overlapping'
    expect(grid.tiles.map((t) => t.id)).toEqual(['top', 'floating', 'under', 'overlapping']);
  });

  it('narrows a tile wider than the grid and moves one past the right edge back in', () => {
    const grid = layoutGrid(layout, [at('wide', 0, 0, 20, 1), at('outside', 10, 1, 4, 1)], 1200);
    expect(grid.tiles[0]).toMatchObject({ x: 20, width: 1160 });
    expect(grid.tiles[1].x + grid.tiles[1].width).toBe(1180);
  });
});
