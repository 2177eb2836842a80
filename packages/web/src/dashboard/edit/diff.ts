import type { DashboardDraft } from '@tessera/dashboard';
import { type DraftFilter, draftFilters } from './draft-model.ts';

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
      d.other.length ===
      0 && !d.themeChanged
  );
}

function widgetChanges(a: AnyWidget, b: AnyWidget): string[] {
  const what: string[] = [];
  if (!same(a.position, b.position) || !same(a.responsiveLayouts ?? null, b.responsiveLayouts ?? null))
    what.push('place');
  if (!same(a.config ?? null, b.config ?? null) || (a.type ?? 'CHART') !== (b.type ?? 'CHART'))
    what.push('content');
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
