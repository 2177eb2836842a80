import {
  type Breakpoint,
  breakpoints,
  type DashboardConfig,
  placeWidgets,
  type GridSettings as Settings,
  gridSettings as settingsOf,
  type Widget,
} from '@tessera/dashboard';
import type { ResponsiveLayouts } from 'react-grid-layout';

export interface GridSettings extends Settings {
  layouts: ResponsiveLayouts<Breakpoint>;
}

/**
 * The responsive grid of a dashboard config (spec 2.2) for react-grid-layout: its settings and
 * each widget's place at each breakpoint, both from packages/dashboard (grid.ts), which the
 * server's renderer lays out too. The viewer neither drags nor resizes; overlaps are settled by
 * the grid's vertical compaction.
 */
export function gridSettings(config: DashboardConfig, widgets: readonly Widget[]): GridSettings {
  const settings = settingsOf(config.layout);
  const layouts = Object.fromEntries(
    breakpoints.map((b) => [
      b,
      placeWidgets(widgets, b, settings).map(({ id, ...at }) => ({
        i: id,
        ...at,
        isDraggable: false,
        isResizable: false,
      })),
    ]),
  ) as ResponsiveLayouts<Breakpoint>;
  return { ...settings, layouts };
}
