import type { ReactNode } from 'react';
import type { GridSettings } from './layout.ts';
import { memberLabel } from './model.ts';
import type { ViewState } from './view-state.ts';

/**
 * The print view's grid (issue 23 item 5): the widest breakpoint's layout (spec 2.2) as a CSS grid
 * in the page's flow, rather than react-grid-layout's absolutely placed tiles, so that the browser
 * can break pages between rows of tiles and never through one (`break-inside: avoid`), and the
 * columns scale to the paper's width.
 */
export function PrintGrid({ grid, children }: { grid: GridSettings; children: (id: string) => ReactNode }) {
  const layout = grid.layouts.lg ?? [];
  const [marginX, marginY] = grid.margin;
  return (
    <div
      className="tsr-print-grid"
      style={{
        gridTemplateColumns: `repeat(${grid.cols.lg}, minmax(0, 1fr))`,
        gridAutoRows: `${grid.rowHeight}px`,
        columnGap: marginX,
        rowGap: marginY,
      }}
    >
      {[...layout]
        .sort((a, b) => a.y - b.y || a.x - b.x)
        .map((item) => (
          <div
            key={item.i}
            className="tsr-cell tsr-print-cell"
            style={{
              gridColumn: `${item.x + 1} / span ${item.w}`,
              gridRow: `${item.y + 1} / span ${item.h}`,
            }}
          >
            {children(item.i)}
          </div>
        ))}
    </div>
  );
}

/** The view a printout shows, in words (there are no controls on paper): "Orders status: completed". */
export function describeView(state: ViewState): string[] {
  const lines: string[] = [];
  for (const [member, value] of Object.entries(state.equals)) lines.push(`${memberLabel(member)}: ${value}`);
  for (const [member, text] of Object.entries(state.contains))
    lines.push(`${memberLabel(member)} contains “${text}”`);
  for (const [member, { from, to }] of Object.entries(state.ranges))
    lines.push(`${memberLabel(member)}: ${from ?? '…'} to ${to ?? '…'}`);
  for (const [member, grain] of Object.entries(state.grains))
    lines.push(`${memberLabel(member)} by ${grain}`);
  return lines;
}
