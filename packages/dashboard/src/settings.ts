import { type Grain, grains } from './chart-spec.ts';
import type { DashboardConfig, Widget } from './schema.ts';

/**
 * Two parts of the dashboard document that spec 2.2 leaves to `settings` (an object it does not
 * expand) and that the reference names nowhere in a dashboard config: time-grain switchers and
 * tabs. DESIGN decision (issue 23 items 1): both live in `settings`, beside the editor's filters
 * (`settings.filters`, read.ts), so that a config stays valid against spec 2.2's schema and an
 * older reader simply ignores them:
 *   settings.timeGrains = [{ member, grains: ['week', 'month'], defaultGrain?: 'month' }]
 *   settings.tabs       = [{ id, title }]   and each widget's tab in `config.tabId`
 * Read here without trusting their shape (a draft is stored as sent), as read.ts reads filters.
 */

/** A time-grain switcher bound to a time dimension: the grains it offers and the one it starts at. */
export interface DashboardTimeGrainSetting {
  member: string;
  /** The grains offered, in `grains` order; at least one. */
  grains: Grain[];
  /** The grain the viewer starts at when the link names none; absent: the reports' own. */
  defaultGrain?: Grain;
}

/**
 * The dashboard's own time-grain switchers, or null when it configures none: then the viewer offers
 * one on every time dimension its reports group by (the automatic switchers). An empty array is a
 * dashboard whose editor removed every switcher: it offers none.
 */
export function dashboardTimeGrains(
  config: Pick<DashboardConfig, 'settings'> | null | undefined,
): DashboardTimeGrainSetting[] | null {
  const raw = config?.settings?.timeGrains;
  if (!Array.isArray(raw)) return null;
  const seen = new Set<string>();
  return raw.flatMap((s: unknown) => {
    const { member, grains: offered, defaultGrain } = (s ?? {}) as Record<string, unknown>;
    if (typeof member !== 'string' || member === '' || seen.has(member)) return [];
    const listed = Array.isArray(offered) ? offered : [];
    const choices = grains.filter((g) => listed.includes(g));
    if (choices.length === 0) return [];
    seen.add(member);
    const start = choices.find((g) => g === defaultGrain);
    return [{ member, grains: choices, ...(start ? { defaultGrain: start } : {}) }];
  });
}

/** One tab of a tabbed dashboard. */
export interface DashboardTab {
  /** Stable: the address names it (`?tab=`) and widgets point at it (`config.tabId`). */
  id: string;
  title: string;
}

/** The dashboard's tabs in order (`settings.tabs`); none for an untabbed dashboard. */
export function dashboardTabs(config: Pick<DashboardConfig, 'settings'> | null | undefined): DashboardTab[] {
  const raw = config?.settings?.tabs;
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  return raw.flatMap((t: unknown) => {
    const { id, title } = (t ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '' || seen.has(id)) return [];
    seen.add(id);
    return [{ id, title: typeof title === 'string' && title.trim() !== '' ? title : 'Untitled tab' }];
  });
}

/**
 * The tab a widget is on: its `config.tabId` when that names one of `tabs`, else the first tab (a
 * widget added before the dashboard had tabs, or whose tab was removed by hand); null without tabs.
 */
export function widgetTabId(widget: Pick<Widget, 'config'>, tabs: readonly DashboardTab[]): string | null {
  if (tabs.length === 0) return null;
  const own = widget.config?.tabId;
  return tabs.some((t) => t.id === own) ? (own as string) : tabs[0].id;
}

/** The widgets on tab `tabId` (all of them when the dashboard has no tabs). */
export function widgetsOnTab<W extends Pick<Widget, 'config'>>(
  widgets: readonly W[],
  tabs: readonly DashboardTab[],
  tabId: string | null,
): W[] {
  if (tabs.length === 0) return [...widgets];
  return widgets.filter((w) => widgetTabId(w, tabs) === tabId);
}

/**
 * Every tab's widgets on one `lg` grid, one tab under the other in tab order, each tab under a
 * heading widget with its title (`tab-heading:<id>`): how paper and images show a tabbed dashboard
 * (the print view, PNG and PDF exports and scheduled mails print every tab, issue 23). Only `lg`
 * places are kept, shifted down; the other breakpoints are not drawn there. Untabbed: unchanged.
 */
export function stackTabs(config: Pick<DashboardConfig, 'settings' | 'widgets'>): Widget[] {
  const widgets = config.widgets ?? [];
  const tabs = dashboardTabs(config);
  if (tabs.length === 0) return [...widgets];
  const out: Widget[] = [];
  let top = 0;
  for (const tab of tabs) {
    out.push({
      id: `tab-heading:${tab.id}`,
      type: 'TEXT',
      // Two rows: in one, an image's tile has no room under its header for the heading's line.
      position: { x: 0, y: top, w: 10_000, h: 2 },
      config: { text: `## ${tab.title.replace(/[\\`*_#<>[\]]/g, '\\$&')}`, variant: 'heading' },
    });
    top += 2;
    const own = widgetsOnTab(widgets, tabs, tab.id);
    for (const w of own) {
      const lg = w.responsiveLayouts?.lg ?? w.position;
      const position = { ...lg, y: lg.y + top };
      out.push({ ...w, position, responsiveLayouts: { lg: position } });
    }
    top += own.reduce((bottom, w) => {
      const lg = w.responsiveLayouts?.lg ?? w.position;
      return Math.max(bottom, lg.y + lg.h);
    }, 0);
  }
  return out;
}
