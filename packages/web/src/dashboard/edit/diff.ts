import { type DashboardDraft, dashboardTabs, widgetTabId } from '@tessera/dashboard';
import { type DraftFilter, type DraftTimeGrain, draftFilters, draftTimeGrains } from './draft-model.ts';

/**
 * What publishing the draft would change (spec 4.4; issue 23 item 2): widgets added, removed and
 * changed (by id), the filters, the theme and the title, description and grid settings. Compared
 * as JSON, ignoring `type` where one side leaves it out (a published widget always carries it).
 */
export interface DraftDiff {
  added: string[];
  removed: string[];
  /** Widget id and what about it changed (place, content, style). */
  changed: { id: string; what: string[] }[];
  filtersAdded: DraftFilter[];
  filtersRemoved: DraftFilter[];
  filtersChanged: DraftFilter[];
  themeChanged: boolean;
  /** Time-grain switchers (settings.timeGrains) by member; `automatic` when one side has none set. */
  grainsAdded: DraftTimeGrain[];
  grainsRemoved: DraftTimeGrain[];
  grainsChanged: DraftTimeGrain[];
  /** Whether the switchers went from automatic to configured or back. */
  grainsMode: 'automatic' | 'configured' | null;
  /** Tab titles added, removed; renamed as [before, after]; whether the order changed. */
  tabsAdded: string[];
  tabsRemoved: string[];
  tabsRenamed: [string, string][];
  tabsReordered: boolean;
  /** Other top-level parts that changed: title, description, layout. */
  other: string[];
}

type AnyWidget = NonNullable<DashboardDraft['widgets']>[number];

export function diffDrafts(published: DashboardDraft | null, draft: DashboardDraft): DraftDiff {
  const before = new Map((published?.widgets ?? []).map((w) => [w.id ?? '', w]));
  const after = new Map((draft.widgets ?? []).map((w) => [w.id ?? '', w]));
  const changed: DraftDiff['changed'] = [];
  for (const [id, w] of after) {
    const old = before.get(id);
    if (!old) continue;
    const what = widgetChanges(old, w);
    if (what.length > 0) changed.push({ id, what });
  }
  const tabsBefore = dashboardTabs(published);
  const tabsAfter = dashboardTabs(draft);
  const titleAfter = new Map(tabsAfter.map((t) => [t.id, t.title]));
  for (const [id, w] of after) {
    const old = before.get(id);
    if (!old || tabsAfter.length === 0) continue;
    // Tabs added to an untabbed dashboard: its widgets were on what is now the first tab.
    const was = tabsBefore.length ? widgetTabId(old, tabsBefore) : tabsAfter[0].id;
    const now = widgetTabId(w, tabsAfter);
    if (was === now || now === null) continue;
    const entry = changed.find((c) => c.id === id) ?? { id, what: [] };
    entry.what = [...entry.what.filter((x) => x !== 'content'), `moved to tab “${titleAfter.get(now)}”`];
    if (!changed.includes(entry)) changed.push(entry);
  }
  const idsBefore = new Set(tabsBefore.map((t) => t.id));
  const idsAfter = new Set(tabsAfter.map((t) => t.id));
  const common = (tabs: typeof tabsAfter, other: Set<string>) =>
    tabs.filter((t) => other.has(t.id)).map((t) => t.id);
  const grainsBefore = draftTimeGrains(published);
  const grainsAfter = draftTimeGrains(draft);
  const gBefore = new Map((grainsBefore ?? []).map((g) => [g.member, g]));
  const gAfter = new Map((grainsAfter ?? []).map((g) => [g.member, g]));
  const filtersBefore = new Map(draftFilters(published).map((f) => [f.member, f]));
  const filtersAfter = new Map(draftFilters(draft).map((f) => [f.member, f]));
  return {
    added: [...after.keys()].filter((id) => !before.has(id)),
    removed: [...before.keys()].filter((id) => !after.has(id)),
    changed,
    filtersAdded: [...filtersAfter.values()].filter((f) => !filtersBefore.has(f.member)),
    filtersRemoved: [...filtersBefore.values()].filter((f) => !filtersAfter.has(f.member)),
    filtersChanged: [...filtersAfter.values()].filter(
      (f) => filtersBefore.has(f.member) && filtersBefore.get(f.member)?.defaultValue !== f.defaultValue,
    ),
    themeChanged: !same(published?.theme ?? null, draft.theme ?? null),
    grainsAdded: [...gAfter.values()].filter((g) => !gBefore.has(g.member)),
    grainsRemoved: [...gBefore.values()].filter((g) => !gAfter.has(g.member)),
    grainsChanged: [...gAfter.values()].filter(
      (g) => gBefore.has(g.member) && !same(g, gBefore.get(g.member)),
    ),
    grainsMode:
      (grainsBefore === null) === (grainsAfter === null)
        ? null
        : grainsAfter === null
          ? 'automatic'
          : 'configured',
    tabsAdded: tabsAfter.filter((t) => !idsBefore.has(t.id)).map((t) => t.title),
    tabsRemoved: tabsBefore.filter((t) => !idsAfter.has(t.id)).map((t) => t.title),
    tabsRenamed: tabsAfter.flatMap((t) => {
      const was = tabsBefore.find((b) => b.id === t.id);
      return was && was.title !== t.title ? [[was.title, t.title] as [string, string]] : [];
    }),
    tabsReordered: !same(common(tabsBefore, idsAfter), common(tabsAfter, idsBefore)),
    other: (['title', 'description', 'layout'] as const).filter(
      (k) => !same(published?.[k] ?? null, draft[k] ?? null),
    ),
  };
}

export function isEmptyDiff(d: DraftDiff): boolean {
  return (
    d.added.length +
      d.removed.length +
      d.changed.length +
      d.filtersAdded.length +
      d.filtersRemoved.length +
      d.filtersChanged.length +
      d.grainsAdded.length +
      d.grainsRemoved.length +
      d.grainsChanged.length +
      d.tabsAdded.length +
      d.tabsRemoved.length +
      d.tabsRenamed.length +
      d.other.length ===
      0 &&
    !d.themeChanged &&
    !d.tabsReordered &&
    d.grainsMode === null
  );
}

function widgetChanges(a: AnyWidget, b: AnyWidget): string[] {
  const what: string[] = [];
  if (!same(a.position, b.position) || !same(a.responsiveLayouts ?? null, b.responsiveLayouts ?? null))
    what.push('place');
  // The tab a widget is on is said on its own (diffDrafts), with the tab's name.
  const { tabId: _a, ...configA } = a.config ?? {};
  const { tabId: _b, ...configB } = b.config ?? {};
  if (!same(configA, configB) || (a.type ?? 'CHART') !== (b.type ?? 'CHART')) what.push('content');
  if (!same(a.style ?? null, b.style ?? null)) what.push('style');
  return what;
}

/** Equal as JSON with keys in any order. */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}
