import { describe, expect, it } from 'vitest';
import { buildChartSpec, chartKindsFor, chooseChart } from './chart-kinds.ts';
import { tableFromLoad } from './table.ts';

const annotation = {
  measures: {
    'orders.count': { title: 'Orders Count', shortTitle: 'Count', type: 'number' },
    'orders.total_amount': {
      title: 'Orders Total amount',
      shortTitle: 'Total amount',
      type: 'number',
      format: 'currency',
    },
  },
  dimensions: { 'orders.status': { title: 'Orders Status', shortTitle: 'Status', type: 'string' } },
  timeDimensions: {
    'orders.created_at': { title: 'Orders Created at', shortTitle: 'Created at', type: 'time' },
    'orders.created_at.month': {
      title: 'Orders Created at',
      shortTitle: 'Created at',
      type: 'time',
      granularity: { name: 'month' },
    },
  },
  segments: {},
};

// biome-ignore lint/suspicious/noExplicitAny: a spec read by path in assertions
type Spec = Record<string, any>;

const monthly = tableFromLoad({
  annotation,
  data: [
    {
      'orders.created_at.month': '2024-01-01T00:00:00.000',
      'orders.created_at': '2024-01-01T00:00:00.000',
      'orders.count': '3',
      'orders.total_amount': '10.5',
    },
    {
      'orders.created_at.month': '2024-02-01T00:00:00.000',
      'orders.created_at': '2024-02-01T00:00:00.000',
      'orders.count': '4',
      'orders.total_amount': '12',
    },
  ],
});

describe('chart choice', () => {
  it('draws a single row of measures as a number, and time as a line', () => {
    const one = tableFromLoad({ annotation, data: [{ 'orders.count': '7' }] });
    expect(chooseChart(one)).toBe('number');
    expect(chooseChart(monthly)).toBe('line');
    expect(chartKindsFor(monthly)).toEqual(
      expect.arrayContaining(['line', 'area', 'bar', 'grouped-bar', 'scatter', 'table']),
    );
  });

  it('draws categories as bars, two categories stacked, and nothing but rows without a measure', () => {
    const byStatus = tableFromLoad({ annotation, data: [{ 'orders.status': 'new', 'orders.count': '2' }] });
    expect(chooseChart(byStatus)).toBe('bar');
    expect(chartKindsFor(byStatus)).toContain('pie');
    const statuses = tableFromLoad({ annotation, data: [{ 'orders.status': 'new' }] });
    expect(chooseChart(statuses)).toBe('table');
    expect(chartKindsFor(statuses)).toEqual(['table']);
  });

  it('draws two measures over time on two axes, and folds them into one series each for bars', () => {
    const two = buildChartSpec('line', monthly) as Spec;
    expect(two.resolve).toEqual({ scale: { y: 'independent' } });
    expect(two.layer.map((l: Spec) => [l.encoding.y.field, l.encoding.y.axis.orient])).toEqual([
      ['orders.count', 'left'],
      ['orders.total_amount', 'right'],
    ]);
    // Bars of a count and of money: bars on the left axis, the money as a line on the right, so
    // that neither flattens the other.
    const combo = buildChartSpec('bar', monthly) as Spec;
    expect(combo.resolve).toEqual({ scale: { y: 'independent' } });
    expect(combo.layer.map((l: Spec) => [l.mark.type, l.encoding.y.field, l.encoding.y.axis.orient])).toEqual(
      [
        ['bar', 'orders.count', 'left'],
        ['line', 'orders.total_amount', 'right'],
      ],
    );
    expect(combo.layer[0].encoding.x).toMatchObject({ field: 'orders.created_at.month', type: 'ordinal' });
    const spec = buildChartSpec('stacked-bar', monthly) as Spec;
    expect(spec.transform[0]).toEqual({
      fold: ['orders.count', 'orders.total_amount'],
      as: ['measure', 'Value'],
    });
    expect(spec.transform[1].calculate).toContain("'Total amount'");
    expect(spec.encoding.x).toMatchObject({ field: 'orders.created_at.month', type: 'ordinal' });
    expect(spec.encoding.color.field).toBe('Measure');
    const bars = buildChartSpec('grouped-bar', monthly) as Spec;
    expect(bars.encoding.xOffset.field).toBe('Measure');
    expect(bars.encoding.x).toMatchObject({ type: 'ordinal', timeUnit: 'yearmonth' });
  });
});
