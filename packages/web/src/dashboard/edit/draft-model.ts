import {
  type Breakpoint,
  type DashboardDraft,
  type DashboardFilterSetting,
  type DashboardTimeGrainSetting,
  dashboardFilters,
  dashboardTabs,
  dashboardTimeGrains,
  gridSettings,
  placeWidgets,
  type Widget,
  type WidgetPosition,
  widgetsOnTab,
  widgetTabId,
} from '@tessera/dashboard';

/**
 * The editor's changes to a dashboard draft (spec 2.2), each a pure function from one draft to the
 * next, so that every one is a step of the undo history (history.ts) and a save (use-autosave.ts).
 */

export type DraftFilter = DashboardFilterSetting;

/** The draft's widgets that can be drawn: each needs an id and a position. */
export function draftWidgets(draft: DashboardDraft): Widget[] {
  return (draft.widgets ?? []).filter((w): w is Widget => typeof w.id === 'string' && !!w.position);
}

/** The draft's filters (`settings.filters`). */
export const draftFilters = dashboardFilters;

export function setFilters(draft: DashboardDraft, filters: DraftFilter[]): DashboardDraft {
  return { ...draft, settings: { ...draft.settings, filters } };
}

/** The draft's time-grain switchers (`settings.timeGrains`; null: one per time dimension). */
export const draftTimeGrains = dashboardTimeGrains;
export type DraftTimeGrain = DashboardTimeGrainSetting;

/** Sets the switchers; null goes back to the automatic ones (the key is removed). */
export function setTimeGrains(draft: DashboardDraft, switchers: DraftTimeGrain[] | null): DashboardDraft {
  const { timeGrains: _dropped, ...settings } = draft.settings ?? {};
  return { ...draft, settings: switchers ? { ...settings, timeGrains: switchers } : settings };
}

function newId(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The first free row under every widget (of one tab, on a tabbed dashboard) at `lg`. */
export function bottom(draft: DashboardDraft, tabId: string | null): number {
  return widgetsOnTab(draftWidgets(draft), dashboardTabs(draft), tabId).reduce(
    (y, w) => Math.max(y, w.position.y + w.position.h),
    0,
  );
}

function add(
  draft: DashboardDraft,
  widget: Omit<Widget, 'position'>,
  size: { w: number; h: number },
  tabId: string | null,
) {
  const position = { x: 0, y: bottom(draft, tabId), ...size };
  const config = tabId ? { ...widget.config, tabId } : widget.config;
  const placed: Widget = { ...widget, config, position, responsiveLayouts: { lg: position } };
  return { draft: { ...draft, widgets: [...(draft.widgets ?? []), placed] }, id: placed.id };
}

/** A chart of a report, half the width, under the others (on the tab being edited). */
export function addReportWidget(draft: DashboardDraft, reportId: number, tabId: string | null = null) {
  return add(draft, { id: newId('chart'), type: 'CHART', config: { reportId } }, { w: 6, h: 6 }, tabId);
}

/** A Markdown text widget; a heading is one line of text across the grid. */
export function addTextWidget(draft: DashboardDraft, kind: 'text' | 'heading', tabId: string | null = null) {
  return kind === 'heading'
    ? add(
        draft,
        { id: newId('heading'), type: 'TEXT', config: { text: '## Heading', variant: 'heading' } },
        { w: 12, h: 1 },
        tabId,
      )
    : add(
        draft,
        { id: newId('text'), type: 'TEXT', config: { text: 'Write **Markdown** here.' } },
        { w: 6, h: 3 },
        tabId,
      );
}

export function removeWidget(draft: DashboardDraft, id: string): DashboardDraft {
  return { ...draft, widgets: (draft.widgets ?? []).filter((w) => w.id !== id) };
}

export function updateWidgetConfig(draft: DashboardDraft, id: string, changes: Record<string, unknown>) {
  return {
    ...draft,
    widgets: (draft.widgets ?? []).map((w) =>
      w.id === id ? { ...w, config: { ...w.config, ...changes } } : w,
    ),
  };
}

/**
 * The grid's layout after a drag or resize at breakpoint `b`, written into the draft: at `lg` each
 * widget's `position` (from which the smaller breakpoints are derived, packages/dashboard grid.ts)
 * and its `lg` entry; at a smaller breakpoint that breakpoint's own entry, which then overrides
 * the derived place. Returns the same draft when nothing moved (no undo step for a click).
 */
export function applyLayout(
  draft: DashboardDraft,
  b: Breakpoint,
  layout: readonly { i: string; x: number; y: number; w: number; h: number }[],
): DashboardDraft {
  const at = new Map(layout.map((l) => [l.i, { x: l.x, y: l.y, w: l.w, h: l.h }]));
  const current = new Map(placed(draft, b, tabOf(draft, layout[0]?.i)).map(({ id, ...p }) => [id, p]));
  const moved = [...at].some(([id, p]) => !samePlace(p, current.get(id)));
  if (!moved) return draft;
  return {
    ...draft,
    widgets: (draft.widgets ?? []).map((w) => {
      const p = typeof w.id === 'string' ? at.get(w.id) : undefined;
      if (!p) return w;
      const responsiveLayouts = { ...w.responsiveLayouts, [b]: p };
      return b === 'lg' ? { ...w, position: p, responsiveLayouts } : { ...w, responsiveLayouts };
    }),
  };
}

/** Forgets a breakpoint's own places, so that it is derived from `lg` again. */
export function resetBreakpoint(draft: DashboardDraft, b: Breakpoint): DashboardDraft {
  if (b === 'lg') return draft;
  return {
    ...draft,
    widgets: (draft.widgets ?? []).map((w) => {
      if (!w.responsiveLayouts?.[b]) return w;
      const { [b]: _dropped, ...rest } = w.responsiveLayouts;
      return { ...w, responsiveLayouts: rest };
    }),
  };
}

/** Each widget's place at `b` (of one tab's widgets, on a tabbed dashboard), as the viewer places it. */
export function placed(draft: DashboardDraft, b: Breakpoint, tabId: string | null = null) {
  const widgets = widgetsOnTab(draftWidgets(draft), dashboardTabs(draft), tabId);
  return placeWidgets(widgets, b, gridSettings(draft.layout));
}

function samePlace(p: WidgetPosition, q: WidgetPosition | undefined): boolean {
  return !!q && p.x === q.x && p.y === q.y && p.w === q.w && p.h === q.h;
}

/** The tab the widget `id` is on, or null (no tabs, no such widget). */
function tabOf(draft: DashboardDraft, id: string | undefined): string | null {
  const widget = draftWidgets(draft).find((w) => w.id === id);
  return widget ? widgetTabId(widget, dashboardTabs(draft)) : null;
}
