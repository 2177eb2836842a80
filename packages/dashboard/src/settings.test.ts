import { describe, expect, it } from 'vitest';
import { dashboardTabs, dashboardTimeGrains, stackTabs, widgetsOnTab, widgetTabId } from './settings.ts';

const at = (y: number, h = 2) => ({ x: 0, y, w: 6, h });

describe('settings.timeGrains: the editor’s time-grain switchers', () => {
  it('is null when the dashboard sets none (the viewer derives them) and [] when all were removed', () => {
    expect(dashboardTimeGrains({ settings: {} })).toBeNull();
    expect(dashboardTimeGrains(null)).toBeNull();
    expect(dashboardTimeGrains({ settings: { timeGrains: [] } })).toEqual([]);
  });

  it('keeps known grains in grain order, a default only among them, and drops malformed entries', () => {
    const settings = {
      timeGrains: [
        { member: 'orders.created_at', grains: ['month', 'week', 'fortnight'], defaultGrain: 'week' },
        { member: 'orders.created_at', grains: ['day'] },
        { member: 'orders.shipped_at', grains: ['year'], defaultGrain: 'day' },
        { member: 'orders.none', grains: ['fortnight'] },
        { grains: ['day'] },
        'week',
      ],
    };
    expect(dashboardTimeGrains({ settings })).toEqual([
      { member: 'orders.created_at', grains: ['week', 'month'], defaultGrain: 'week' },
      { member: 'orders.shipped_at', grains: ['year'] },
    ]);
  });
});

describe('settings.tabs: a dashboard with tabs', () => {
  const settings = {
    tabs: [{ id: 'a', title: 'Sales' }, { id: 'b', title: ' ' }, { id: 'a', title: 'Again' }, { title: 'x' }],
  };
  const widgets = [
    { id: 'w1', position: at(0), config: { tabId: 'b' } },
    { id: 'w2', position: at(0), config: { tabId: 'gone' } },
    { id: 'w3', position: at(3, 4), config: {} },
  ];

  it('reads the tabs in order, unique by id, with a title for an empty one', () => {
    expect(dashboardTabs({ settings })).toEqual([
      { id: 'a', title: 'Sales' },
      { id: 'b', title: 'Untitled tab' },
    ]);
    expect(dashboardTabs({ settings: {} })).toEqual([]);
  });

  it('puts a widget on its own tab, else on the first', () => {
    const tabs = dashboardTabs({ settings });
    expect(widgets.map((w) => widgetTabId(w, tabs))).toEqual(['b', 'a', 'a']);
    expect(widgetsOnTab(widgets, tabs, 'a').map((w) => w.id)).toEqual(['w2', 'w3']);
    expect(widgetsOnTab(widgets, [], null)).toHaveLength(3);
  });

  it('stacks every tab under its heading for paper and images, lg places shifted down', () => {
    const stacked = stackTabs({ settings, widgets });
    expect(stacked.map((w) => [w.id, w.position.y, w.position.h])).toEqual([
      ['tab-heading:a', 0, 2],
      ['w2', 2, 2],
      ['w3', 5, 4],
      ['tab-heading:b', 9, 2],
      ['w1', 11, 2],
    ]);
    expect(stacked[0].config?.text).toBe('## Sales');
    expect(stacked[1].responsiveLayouts).toEqual({ lg: stacked[1].position });
    expect(stackTabs({ widgets })).toEqual(widgets);
  });
});
