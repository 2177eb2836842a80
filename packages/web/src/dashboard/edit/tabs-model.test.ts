import { type DashboardDraft, dashboardTabs } from '@tessera/dashboard';
import { describe, expect, it } from 'vitest';
import { diffDrafts, isEmptyDiff } from './diff.ts';
import { addTab, deleteTab, moveTab, moveWidgetToTab, renameTab } from './tabs-model.ts';

const at = (y: number) => ({ x: 0, y, w: 6, h: 3 });
const untabbed: DashboardDraft = {
  widgets: [
    { id: 'a', type: 'TEXT', position: at(0), config: { text: 'A' } },
    { id: 'b', type: 'TEXT', position: at(3), config: { text: 'B' } },
  ],
};
const titles = (d: DashboardDraft) => dashboardTabs(d).map((t) => t.title);
const tabOf = (d: DashboardDraft, id: string) => d.widgets?.find((w) => w.id === id)?.config?.tabId;

describe('the editor’s tabs (settings.tabs)', () => {
  it('makes the first tab added to an untabbed dashboard two, its widgets on the first', () => {
    const { draft, id } = addTab(untabbed, 'Details');
    expect(titles(draft)).toEqual(['Overview', 'Details']);
    const overview = dashboardTabs(draft)[0].id;
    expect([tabOf(draft, 'a'), tabOf(draft, 'b')]).toEqual([overview, overview]);
    expect(dashboardTabs(draft)[1].id).toBe(id);
  });

  it('moves a widget under the other tab’s widgets, renames, reorders and deletes', () => {
    const { draft: two, id: details } = addTab(untabbed, 'Details');
    const moved = moveWidgetToTab(two, 'b', details);
    expect(tabOf(moved, 'b')).toBe(details);
    expect(moved.widgets?.find((w) => w.id === 'b')?.position).toEqual({ x: 0, y: 0, w: 6, h: 3 });
    const renamed = renameTab(moved, details, 'Breakdown');
    expect(titles(renamed)).toEqual(['Overview', 'Breakdown']);
    const reordered = moveTab(renamed, details, -1);
    expect(titles(reordered)).toEqual(['Breakdown', 'Overview']);
    // Each widget stays on its tab whatever the order.
    expect(tabOf(reordered, 'b')).toBe(details);
    const deleted = deleteTab(reordered, details);
    expect(titles(deleted)).toEqual(['Overview']);
    expect(deleted.widgets?.map((w) => w.id)).toEqual(['a']);
    // The last tab deleted: an untabbed dashboard of what it held.
    const none = deleteTab(deleted, dashboardTabs(deleted)[0].id);
    expect(none.settings?.tabs).toBeUndefined();
    expect(none.widgets?.map((w) => [w.id, w.config?.tabId])).toEqual([['a', undefined]]);
  });

  it('names tab changes and moved widgets in the publish diff, and nothing for an unchanged draft', () => {
    const { draft: two, id: details } = addTab(untabbed, 'Details');
    const published = renameTab(two, details, 'Old name');
    const draft = moveWidgetToTab(renameTab(published, details, 'New name'), 'b', details);
    const diff = diffDrafts(published, draft);
    expect(diff.tabsRenamed).toEqual([['Old name', 'New name']]);
    expect(diff.changed).toEqual([{ id: 'b', what: ['place', 'moved to tab “New name”'] }]);
    expect(isEmptyDiff(diffDrafts(draft, draft))).toBe(true);
    expect(diffDrafts(untabbed, two).tabsAdded).toEqual(['Overview', 'Details']);
    expect(diffDrafts(untabbed, two).changed).toEqual([]);
  });
});
