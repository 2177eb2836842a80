import { describe, expect, it } from 'vitest';
import { dashboardWidgets, readDashboardConfig, widgetReportId, widgetText, widgetTitle } from './read.ts';
import { dashboardConfigProblems, repeatedWidgetId } from './schema.ts';

const at = { x: 0, y: 0, w: 4, h: 3 };

describe('the dashboard document (spec 2.2): reading a stored config', () => {
  it('keeps the config as stored and leaves out widgets that cannot be placed', () => {
    const stored = {
      title: 'Sales',
      layout: { rowHeight: 32 },
      settings: { anything: true },
      widgets: [
        { id: 'a', position: at, config: { reportId: 7 } },
        { id: 'no-position' },
        { position: at },
        { id: 'bad-position', position: { x: 0, y: 0, w: '4', h: 3 } },
        null,
        'text',
        { id: 'b', type: 'TEXT', position: at, config: { text: 'Hello', title: 'Note' } },
      ],
    };
    const config = readDashboardConfig(stored);
    expect(config.title).toBe('Sales');
    expect(config.layout).toEqual({ rowHeight: 32 });
    expect(config.settings).toEqual({ anything: true });
    expect(config.widgets?.map((w) => w.id)).toEqual(['a', 'b']);
    expect(dashboardWidgets(stored)).toEqual(config.widgets);
  });

  it('reads anything else as a config without widgets', () => {
    for (const stored of [null, undefined, 'x', 3, [], { widgets: 'none' }, { widgets: null }])
      expect(readDashboardConfig(stored).widgets).toEqual([]);
  });

  it("reads a widget's report, title and text only when they have their types", () => {
    expect(widgetReportId({ config: { reportId: 7 } })).toBe(7);
    expect(widgetReportId({ config: { reportId: '7' } })).toBeNull();
    expect(widgetReportId({ config: null })).toBeNull();
    expect(widgetReportId({})).toBeNull();
    expect(widgetTitle({ config: { title: 'Revenue' } })).toBe('Revenue');
    expect(widgetTitle({ config: { title: 3 } })).toBeNull();
    expect(widgetText({ config: { text: 'Hello' } })).toBe('Hello');
    expect(widgetText({ config: { text: ['Hello'] } })).toBeNull();
  });
});

describe('the dashboard document (spec 2.2): checking a config to publish', () => {
  it('accepts a config of spec 2.2, theme included', () => {
    expect(
      dashboardConfigProblems({
        title: 'Sales',
        layout: { cols: { lg: 12, md: null }, margin: [16, 16], rowHeight: 32 },
        theme: { primaryColor: '#3b6fd8', widgets: { border: { radius: '8px' }, title: null } },
        widgets: [{ id: 'a', position: at, responsiveLayouts: { sm: at, xs: null } }],
      }),
    ).toEqual([]);
  });

  it('names each offending field once, at its own path, with the types it may have', () => {
    expect(dashboardConfigProblems({ theme: { primaryColor: 3, widgets: { unknown: 'x' } } })).toEqual([
      { path: '/theme/primaryColor', message: 'must be string or null' },
      { path: '/theme/widgets/unknown', message: 'schema is false' },
    ]);
    expect(dashboardConfigProblems({ widgets: [{ id: 'a', position: { x: 0, y: 0, w: 0, h: 1 } }] })).toEqual(
      [{ path: '/widgets/0/position/w', message: 'must be >= 1' }],
    );
  });

  it('finds the first widget repeating an earlier id', () => {
    expect(repeatedWidgetId([{ id: 'a' }, { id: 'b' }])).toBe(-1);
    expect(repeatedWidgetId([{ id: 'a' }, { id: 'b' }, { id: 'a' }, { id: 'b' }])).toBe(2);
  });
});
