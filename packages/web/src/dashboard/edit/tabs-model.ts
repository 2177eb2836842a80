import {
  type DashboardDraft,
  type DashboardTab,
  dashboardTabs,
  type Widget,
  widgetTabId,
} from '@tessera/dashboard';
import { bottom, draftWidgets } from './draft-model.ts';

/**
 * The editor's changes to a dashboard's tabs (`settings.tabs`, each widget's `config.tabId`;
 * packages/dashboard settings.ts), pure functions from one draft to the next like draft-model.ts,
 * so that each is an undo step. Every widget of a tabbed draft is given its tab explicitly, so
 * that reordering the tabs never moves a widget that relied on "the first tab".
 */

function newTabId(): string {
  return `tab-${Math.random().toString(36).slice(2, 8)}`;
}

function withTabs(draft: DashboardDraft, tabs: DashboardTab[]): DashboardDraft {
  const { tabs: _dropped, ...settings } = draft.settings ?? {};
  return { ...draft, settings: tabs.length > 0 ? { ...settings, tabs } : settings };
}

/** Each widget's tab written into its config (or removed, without tabs). */
function pinWidgets(draft: DashboardDraft, tabs: readonly DashboardTab[]): DashboardDraft {
  return {
    ...draft,
    widgets: (draft.widgets ?? []).map((w) => {
      const { tabId: _old, ...config } = w.config ?? {};
      const tabId = tabs.length > 0 ? widgetTabId(w, tabs) : null;
      return { ...w, config: tabId ? { ...config, tabId } : config };
    }),
  };
}

/**
 * A new tab at the end. The first tab added to an untabbed dashboard makes two: one holding the
 * widgets it has (named "Overview") and the new one, which is what adding a tab means to its user.
 */
export function addTab(draft: DashboardDraft, title: string) {
  const tabs = dashboardTabs(draft);
  const added = { id: newTabId(), title };
  const next = tabs.length === 0 ? [{ id: newTabId(), title: 'Overview' }, added] : [...tabs, added];
  return { draft: pinWidgets(withTabs(draft, next), next), id: added.id };
}

export function renameTab(draft: DashboardDraft, id: string, title: string): DashboardDraft {
  return withTabs(
    draft,
    dashboardTabs(draft).map((t) => (t.id === id ? { ...t, title } : t)),
  );
}

/** Moves a tab one place earlier (-1) or later (+1); its widgets go with it. */
export function moveTab(draft: DashboardDraft, id: string, by: -1 | 1): DashboardDraft {
  const tabs = dashboardTabs(draft);
  const at = tabs.findIndex((t) => t.id === id);
  const to = at + by;
  if (at < 0 || to < 0 || to >= tabs.length) return draft;
  const next = [...tabs];
  [next[at], next[to]] = [next[to], next[at]];
  return withTabs(pinWidgets(draft, tabs), next);
}

/**
 * Deletes a tab. Its widgets are deleted with it (the editor asks first, naming how many); the
 * last tab deleted leaves an untabbed dashboard of the widgets it held.
 */
export function deleteTab(draft: DashboardDraft, id: string): DashboardDraft {
  const tabs = dashboardTabs(draft);
  if (!tabs.some((t) => t.id === id)) return draft;
  const next = tabs.filter((t) => t.id !== id);
  if (next.length === 0) return pinWidgets(withTabs(draft, []), []);
  const kept = { ...draft, widgets: (draft.widgets ?? []).filter((w) => widgetTabId(w, tabs) !== id) };
  return withTabs(pinWidgets(kept, tabs), next);
}

/** The widgets on a tab (how many a deletion takes with it). */
export function widgetsOnTabCount(draft: DashboardDraft, id: string): number {
  const tabs = dashboardTabs(draft);
  return draftWidgets(draft).filter((w) => widgetTabId(w, tabs) === id).length;
}

/**
 * Moves a widget to another tab, under that tab's widgets at `lg`; its own places at the smaller
 * breakpoints were about the other tab's tiles, so they are dropped (derived from `lg` again).
 */
export function moveWidgetToTab(draft: DashboardDraft, widgetId: string, tabId: string): DashboardDraft {
  const tabs = dashboardTabs(draft);
  const widget = draftWidgets(draft).find((w) => w.id === widgetId);
  if (!widget || !tabs.some((t) => t.id === tabId) || widgetTabId(widget, tabs) === tabId) return draft;
  const position = { ...widget.position, x: 0, y: bottom(draft, tabId) };
  const moved: Widget = {
    ...widget,
    position,
    responsiveLayouts: { lg: position },
    config: { ...widget.config, tabId },
  };
  return { ...draft, widgets: (draft.widgets ?? []).map((w) => (w.id === widgetId ? moved : w)) };
}
