import { describe, expect, it } from 'vitest';
import {
  type Column,
  describeColumns,
  formatTime,
  formatValue,
  type RowsMeta,
  toTable,
} from '../src/index.ts';

/**
 * The table formatting shared by the web viewer and the notification renderer (src/format/table.ts).
 * Answers are shaped as the data API sends them: numbers as strings, a time dimension asked at a
 * granularity answered under two keys.
 */
const semantic: RowsMeta = {
  annotation: {
    measures: {
      'orders.revenue': {
        title: 'Orders Revenue',
        shortTitle: 'Revenue',
        type: 'number',
        format: 'currency',
      },
      'orders.count': { title: 'Orders Count', shortTitle: 'Count', type: 'number' },
    },
    dimensions: {
      'orders.status': { title: 'Orders Status', shortTitle: 'Status', type: 'string' },
      'customers.id': { title: 'Customers Id', type: 'number' },
    },
    timeDimensions: {
      'orders.created_at': { title: 'Orders Created at', shortTitle: 'Created at', type: 'time' },
      'orders.created_at.month': {
        title: 'Orders Created at',
        shortTitle: 'Created at',
        type: 'time',
        granularity: { name: 'month' },
      },
    },
  },
};
const semanticRows = [
  {
    'orders.created_at.month': '2024-03-01T00:00:00.000',
    'orders.created_at': '2024-03-01T00:00:00.000',
    'orders.status': 'shipped',
    'customers.id': '12345',
    'orders.revenue': '1234.5',
    'orders.count': '1200',
  },
];

describe('describeColumns and toTable', () => {
  it('titles members by short title, hides the base of a grain and keeps the rows key order', () => {
    const columns = describeColumns(semanticRows, semantic);
    expect(columns.map((c) => [c.name, c.title, c.kind])).toEqual([
      ['orders.created_at.month', 'Created at', 'time'],
      ['orders.status', 'Status', 'string'],
      ['customers.id', 'Customers Id', 'number'],
      ['orders.revenue', 'Revenue', 'measure'],
      ['orders.count', 'Count', 'measure'],
    ]);
    expect(columns[0].grain).toBe('month');
    expect(columns[3].format).toBe('currency');
  });

  it('turns numeric strings of numeric columns into numbers and leaves the rest alone', () => {
    const table = toTable(semanticRows, semantic);
    expect(table.rows[0]).toEqual({
      'orders.created_at.month': '2024-03-01T00:00:00.000',
      'orders.created_at': '2024-03-01T00:00:00.000',
      'orders.status': 'shipped',
      'customers.id': 12345,
      'orders.revenue': 1234.5,
      'orders.count': 1200,
    });
    // A measure whose value is not a number (an error text, a hex literal) stays as sent.
    const odd = toTable([{ 'orders.count': '0x10' }, { 'orders.count': null }], semantic).rows;
    expect(odd.map((r) => r['orders.count'])).toEqual(['0x10', null]);
  });

  it('describes SQL-API columns by their type, in their order', () => {
    const meta: RowsMeta = {
      columns: [
        { name: 'status', column_type: 'Utf8' },
        { name: 'n', column_type: 'Int64' },
        { name: 'avg', column_type: 'Float64' },
        { name: 'total', column_type: 'Decimal(38,2)' },
        { name: 'month', column_type: 'Timestamp' },
      ],
    };
    const table = toTable(
      [{ n: '3', status: 'paid', avg: '2.5', total: '10.00', month: '2024-03-01T00:00:00.000' }],
      meta,
    );
    expect(table.columns.map((c) => [c.name, c.kind])).toEqual([
      ['status', 'string'],
      ['n', 'number'],
      ['avg', 'number'],
      ['total', 'number'],
      ['month', 'time'],
    ]);
    expect(table.rows[0]).toEqual({
      n: 3,
      status: 'paid',
      avg: 2.5,
      total: 10,
      month: '2024-03-01T00:00:00.000',
    });
    // Times read as dates, as a time member's do.
    expect(formatValue(table.rows[0].month, table.columns[4])).toBe('2024-03-01');
  });

  it('lists the annotated members when there are no rows, so an empty table keeps its headings', () => {
    expect(describeColumns([], semantic).map((c) => c.title)).toEqual([
      'Status',
      'Customers Id',
      'Created at',
      'Revenue',
      'Count',
    ]);
  });
});

describe('formatValue', () => {
  const [time, status, id, revenue, count] = describeColumns(semanticRows, semantic);
  const row = toTable(semanticRows, semantic).rows[0];
  const cases: [
    string,
    unknown,
    Column,
    Record<string, { type?: string; decimalPlaces?: number }>,
    string,
  ][] = [
    ['a month reads as its period, as the chart labels it', row[time.name], time, {}, 'Mar 2024'],
    ['a string as sent', row[status.name], status, {}, 'shipped'],
    ['an identifier without separators', row[id.name], id, {}, '12345'],
    ["the data API's currency format", row[revenue.name], revenue, {}, '$1,234.50'],
    ['a plain count with separators', row[count.name], count, {}, '1,200'],
    [
      'the report format wins',
      row[revenue.name],
      revenue,
      { 'orders.revenue': { type: 'number' } },
      '1,234.5',
    ],
    ['report decimals', row[count.name], count, { 'orders.count': { decimalPlaces: 1 } }, '1,200.0'],
    ['percent', 0.256, count, { 'orders.count': { type: 'percent' } }, '25.6%'],
    [
      'currency without decimals',
      1234.5,
      count,
      { 'orders.count': { type: 'currency', decimalPlaces: 0 } },
      '$1,235',
    ],
    [
      'a format named by the member without its grain',
      0.5,
      { ...count, name: 'orders.count.month' },
      { 'orders.count': { type: 'percent' } },
      '50%',
    ],
    ['null as a dash', null, count, {}, '–'],
    ['not finite as a dash', Number.NaN, count, {}, '–'],
    ['an object as JSON', { a: 1 }, status, {}, '{"a":1}'],
    ['a plain number at most two decimals', 2 / 3, count, {}, '0.67'],
  ];
  it.each(cases)('%s', (_, value, column, formats, expected) => {
    expect(formatValue(value, column, formats)).toBe(expected);
  });
});

describe('formatTime', () => {
  it.each([
    ['2024-03-01T00:00:00.000', '2024-03-01'],
    ['2024-03-01T14:05:09.000', '2024-03-01 14:05'],
    ['2024-03-01 00:00:00', '2024-03-01'],
    ['2024-03-01', '2024-03-01'],
    ['March', 'March'],
  ])('%s reads %s', (value, expected) => {
    expect(formatTime(value)).toBe(expected);
  });

  it.each([
    ['2024-03-01T00:00:00.000', 'month', 'Mar 2024'],
    ['2024-12-01T00:00:00.000', 'month', 'Dec 2024'],
    ['2024-10-01T00:00:00.000', 'quarter', 'Q4 2024'],
    ['2024-01-01T00:00:00.000', 'quarter', 'Q1 2024'],
    ['2024-01-01T00:00:00.000', 'year', '2024'],
    ['2024-03-04T00:00:00.000', 'week', '2024-03-04'],
    ['2024-03-04T13:00:00.000', 'hour', '2024-03-04 13:00'],
  ])('%s at the %s grain reads %s, as the chart labels the period', (value, grain, expected) => {
    expect(formatTime(value, grain)).toBe(expected);
  });
});
