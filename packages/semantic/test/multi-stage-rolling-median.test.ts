import { describe, expect, it } from 'vitest';
import { compileModel } from '../src/index.ts';
import { cubeSuite } from './cube/harness.ts';
import type { Tables } from './fixtures/data.ts';

/**
 * rolling_window on multi-stage measures and `median` measures beyond Cube's own cases
 * (test/cube/multi-stage.test.ts): leading windows, windows finer than the query's granularity,
 * a median in a window, a median under a join that repeats rows. Every number is computed by
 * hand from the rows below (UTC, so a day is a calendar day).
 */
const tables: Tables = {
  sales: {
    columns: { id: 'INTEGER', amount: 'INTEGER', sold_at: 'TIMESTAMP', status: 'TEXT' },
    rows: [
      [1, 10, '2024-01-30 12:00:00', 'open'],
      [2, 20, '2024-01-31 12:00:00', 'open'],
      [3, 40, '2024-02-01 12:00:00', 'open'],
      [4, 80, '2024-02-02 12:00:00', 'done'],
      [5, 5, '2024-02-28 12:00:00', 'done'],
      [6, 160, '2024-03-01 12:00:00', 'done'],
    ],
  },
  // sale 1 has five items, sale 4 two, the others one: a join that repeats sales rows
  items: {
    columns: { id: 'INTEGER', sale_id: 'INTEGER' },
    rows: [1, 1, 1, 1, 1, 2, 3, 4, 4, 5, 6].map((sale, i) => [i + 1, sale]),
  },
};

const model = `
cubes:
  - name: sales
    sql_table: sales
    joins:
      - name: items
        relationship: one_to_many
        sql: "{CUBE}.id = {items}.sale_id"
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: status
        type: string
        sql: status
      - name: sold_at
        type: time
        sql: sold_at
        granularities:
          - name: fortnight
            interval: 2 weeks
            origin: "2024-01-01"
    measures:
      - name: amount
        type: sum
        sql: amount
      - name: median_amount
        type: median
        sql: amount
      - name: amount_next_2_days
        multi_stage: true
        type: sum
        sql: "{amount}"
        rolling_window:
          leading: 2 day
      - name: amount_last_3_days
        multi_stage: true
        type: sum
        sql: "{amount}"
        rolling_window:
          trailing: 3 day
      - name: median_daily_amount_mtd
        multi_stage: true
        type: median
        sql: "{amount}"
        rolling_window:
          type: to_date
          granularity: month
  - name: items
    sql_table: items
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
    measures:
      - name: count
        type: count
views:
  - name: sales_view
    cubes:
      - join_path: sales
        includes: [sold_at, amount_next_2_days]
`;

const at = (date: string) => `${date}T00:00:00.000`;
const byDay = (measure: string, from: string, to: string) => ({
  measures: [measure],
  timeDimensions: [{ dimension: 'sales.sold_at', granularity: 'day', dateRange: [from, to] }],
  order: [['sales.sold_at', 'asc']] as [string, 'asc'][],
  timezone: 'UTC',
});

cubeSuite({
  source: 'multi-stage rolling windows and median measures',
  tables,
  model,
  cases: [
    {
      // the window of Jan 31 is Feb 1 and 2, past the end of the date range
      name: 'leading window reaches past the date range',
      query: byDay('sales.amount_next_2_days', '2024-01-30', '2024-01-31'),
      expected: [
        { 'sales.sold_at.day': at('2024-01-30'), 'sales.amount_next_2_days': '60' },
        { 'sales.sold_at.day': at('2024-01-31'), 'sales.amount_next_2_days': '120' },
      ],
    },
    {
      name: 'leading window through a view',
      query: {
        measures: ['sales_view.amount_next_2_days'],
        timeDimensions: [
          { dimension: 'sales_view.sold_at', granularity: 'day', dateRange: ['2024-01-30', '2024-01-31'] },
        ],
        order: [['sales_view.sold_at', 'asc']],
        timezone: 'UTC',
      },
      expected: [
        { 'sales_view.sold_at.day': at('2024-01-30'), 'sales_view.amount_next_2_days': '60' },
        { 'sales_view.sold_at.day': at('2024-01-31'), 'sales_view.amount_next_2_days': '120' },
      ],
    },
    {
      // the same days, each with its month: the period's start truncated
      name: 'leading window with the month of each day',
      query: {
        measures: ['sales.amount_next_2_days'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'day', dateRange: ['2024-01-30', '2024-01-31'] },
          { dimension: 'sales.sold_at', granularity: 'month' },
        ],
        order: [['sales.sold_at', 'asc']],
        timezone: 'UTC',
      },
      expected: [
        {
          'sales.sold_at.day': at('2024-01-30'),
          'sales.sold_at.month': at('2024-01-01'),
          'sales.amount_next_2_days': '60',
        },
        {
          'sales.sold_at.day': at('2024-01-31'),
          'sales.sold_at.month': at('2024-01-01'),
          'sales.amount_next_2_days': '120',
        },
      ],
    },
    {
      name: 'a finer granularity than the windows follow is refused',
      query: {
        measures: ['sales.amount_next_2_days'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'month', dateRange: ['2024-01-01', '2024-02-29'] },
          { dimension: 'sales.sold_at', granularity: 'day' },
        ],
      },
      expected: {
        error:
          'sales.amount_next_2_days: a rolling window over sales.sold_at by month cannot also group by sales.sold_at by day',
      },
    },
    {
      // a 3-day window per month: the last three days of each month (Feb 2024 has 29)
      name: 'window finer than the query granularity',
      query: {
        measures: ['sales.amount', 'sales.amount_last_3_days'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'month', dateRange: ['2024-01-01', '2024-02-29'] },
        ],
        order: [['sales.sold_at', 'asc']],
        timezone: 'UTC',
      },
      expected: [
        { 'sales.sold_at.month': at('2024-01-01'), 'sales.amount': '30', 'sales.amount_last_3_days': '30' },
        { 'sales.sold_at.month': at('2024-02-01'), 'sales.amount': '125', 'sales.amount_last_3_days': '5' },
      ],
    },
    {
      // the median of the daily sums from the start of the month
      name: 'median in a to_date window',
      query: byDay('sales.median_daily_amount_mtd', '2024-01-30', '2024-02-02'),
      expected: [
        ['2024-01-30', '10'],
        ['2024-01-31', '15'],
        ['2024-02-01', '40'],
        ['2024-02-02', '60'],
      ].map(([d, v]) => ({ 'sales.sold_at.day': at(d!), 'sales.median_daily_amount_mtd': v })),
    },
    {
      name: 'one window over a date range without granularity',
      query: {
        measures: ['sales.amount_last_3_days'],
        timeDimensions: [{ dimension: 'sales.sold_at', dateRange: ['2024-01-15', '2024-02-01'] }],
        timezone: 'UTC',
      },
      // the last three days of the range, as a rolling measure without granularity: Jan 30 to Feb 1
      expected: [{ 'sales.amount_last_3_days': '70' }],
    },
    {
      // each sale once per status, though the items join repeats sale 1 five times
      name: 'median of a cube multiplied by a join',
      query: {
        measures: ['sales.median_amount', 'items.count'],
        dimensions: ['sales.status'],
        order: [['sales.status', 'asc']],
      },
      expected: [
        { 'sales.status': 'done', 'sales.median_amount': '80', 'items.count': '4' },
        { 'sales.status': 'open', 'sales.median_amount': '20', 'items.count': '7' },
      ],
    },
    {
      name: 'median without a join',
      query: { measures: ['sales.median_amount'] },
      expected: [{ 'sales.median_amount': '30' }],
    },
    {
      name: 'rolling window over a custom granularity is refused',
      query: {
        measures: ['sales.amount_last_3_days'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'fortnight', dateRange: ['2024-01-01', '2024-02-29'] },
        ],
      },
      expected: {
        error: 'sales.amount_last_3_days: a rolling window over the custom granularity fortnight',
      },
    },
  ],
});

describe('rolling_window on multi-stage measures: model errors', () => {
  it('names the member when a window comes with time_shift or on a rank', () => {
    const { errors } = compileModel([
      {
        path: 'model/m.yml',
        content: `
cubes:
  - name: s
    sql_table: s
    dimensions:
      - name: at
        type: time
        sql: at
    measures:
      - name: amount
        type: sum
        sql: amount
      - name: shifted_window
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - interval: 1 day
            type: prior
        rolling_window:
          trailing: 2 day
      - name: ranked_window
        multi_stage: true
        type: rank
        order_by:
          - sql: "{amount}"
            dir: asc
        rolling_window:
          trailing: 2 day
`,
      },
    ]);
    expect(errors.map((e) => `${e.cube}.${e.member}: ${e.message}`)).toEqual([
      's.shifted_window: rolling_window together with time_shift on one multi-stage measure is not supported',
      's.ranked_window: rolling_window on a multi-stage measure of type rank is not supported',
    ]);
  });
});
