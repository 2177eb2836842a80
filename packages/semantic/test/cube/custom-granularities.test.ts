import { cubeSuite } from './harness.ts';

/**
 * Cube's custom-granularities.test.ts: 60 orders two weeks apart from 2024-01-01, statuses
 * cycling processing/completed/shipped by id, and custom granularities with an origin. Cube's
 * expected rows reflect its PostgreSQL dateBin, which measures an interval in epoch seconds
 * (six months = 180 days): the "2024-07-01" half year ends on 2024-12-26, so 2024-12-30 falls in
 * the next one. Rolling windows step through calendar periods instead.
 */
const DAY = 86_400_000;
const statuses = ['shipped', 'processing', 'completed'];
const orders = Array.from({ length: 60 }, (_, i) => {
  const id = i + 1;
  const at = new Date(Date.UTC(2024, 0, 1) + i * 14 * DAY).toISOString().slice(0, 10);
  return [id, `${at} 00:00:00`, statuses[id % 3]];
});

const model = `
cubes:
  - name: orders
    sql_table: orders
    dimensions:
      - name: order_id
        sql: order_id
        type: number
        primary_key: true
        public: true
      - name: status
        sql: status
        type: string
      - name: createdAtHalfYear
        sql: "{createdAt.half_year}"
        type: string
      - name: createdAt
        sql: created_at
        type: time
        granularities:
          - name: half_year
            interval: 6 months
            origin: "2024-01-01"
          - name: half_year_by_1st_april
            interval: 6 months
            origin: "2024-04-01"
          - name: two_weeks_by_friday
            interval: 2 weeks
            origin: "2024-08-23"
          - name: one_hour_by_5min_offset
            interval: 1 hour
            offset: 5 minutes
          - name: twenty_five_minutes
            interval: 25 minutes
            origin: "2024-01-01 10:15:00"
          - name: fiscal_year_by_1st_feb
            interval: 1 year
            origin: "2024-02-01"
          - name: fiscal_year_by_15th_march
            interval: 1 year
            origin: "2024-03-15"
    measures:
      - name: count
        type: count
      - name: rollingCountByTrailing3Months
        type: count
        rolling_window:
          trailing: 3 months
      - name: rollingCountByLeading4Months
        type: count
        rolling_window:
          leading: 4 months
      - name: rollingCountByUnbounded
        type: count
        rolling_window:
          trailing: unbounded
views:
  - name: orders_view
    cubes:
      - join_path: orders
        includes: "*"
`;

const range = ['2024-01-01', '2025-12-31'];
const td = (granularity: string, cube = 'orders') => [
  { dimension: `${cube}.createdAt`, granularity, dateRange: range },
];
const london = { timezone: 'Europe/London', filters: [] };
const byStatus = {
  dimensions: ['orders.status'],
  order: [
    ['orders.createdAt', 'asc'],
    ['orders.status', 'asc'],
  ] as [string, 'asc'][],
};

/** Rows per period, the values given for completed, processing, shipped. */
function perStatus(granularity: string, measure: string, rows: [string, number, number, number][]) {
  return rows.flatMap(([period, ...values]) =>
    ['completed', 'processing', 'shipped'].map((status, i) => ({
      [`orders.createdAt.${granularity}`]: `${period}T00:00:00.000`,
      'orders.status': status,
      [`orders.${measure}`]: String(values[i]),
    })),
  );
}
function totals(granularity: string, measure: string, rows: [string, number][], cube = 'orders') {
  return rows.map(([period, value]) => ({
    [`${cube}.createdAt.${granularity}`]: `${period}T00:00:00.000`,
    [`${cube}.${measure}`]: String(value),
  }));
}

const halfYearCounts: [string, number][] = [
  ['2024-01-01', 13],
  ['2024-07-01', 13],
  ['2025-01-01', 13],
  ['2025-07-01', 13],
  ['2026-01-01', 1],
];

cubeSuite({
  source: 'custom-granularities.test.ts',
  tables: {
    orders: { columns: { order_id: 'INTEGER', created_at: 'TIMESTAMP', status: 'TEXT' }, rows: orders },
  },
  model,
  cases: [
    {
      name: 'half_year custom granularity w/o dimensions',
      query: { measures: ['orders.count'], timeDimensions: td('half_year'), ...london },
      expected: totals('half_year', 'count', halfYearCounts),
    },
    {
      name: 'half_year custom granularity w/o dimensions querying view',
      query: { measures: ['orders_view.count'], timeDimensions: td('half_year', 'orders_view'), ...london },
      expected: totals('half_year', 'count', halfYearCounts, 'orders_view'),
    },
    ...['orders', 'orders_view'].map((cube) => ({
      // Cube leaves the order to its default; ordered here so that the rows' order is the engine's
      name: `proxied createdAtHalfYear custom granularity as dimension${cube === 'orders' ? '' : ' querying view'}`,
      query: {
        measures: [`${cube}.count`],
        dimensions: [`${cube}.createdAtHalfYear`],
        timeDimensions: [{ dimension: `${cube}.createdAt`, dateRange: range }],
        order: [[`${cube}.createdAtHalfYear`, 'asc']] as [string, 'asc'][],
        ...london,
      },
      expected: halfYearCounts.map(([period, n]) => ({
        [`${cube}.createdAtHalfYear`]: `${period}T00:00:00.000`,
        [`${cube}.count`]: String(n),
      })),
    })),
    {
      name: 'half_year_by_1st_april custom granularity w/o dimensions',
      query: { measures: ['orders.count'], timeDimensions: td('half_year_by_1st_april'), ...london },
      expected: totals('half_year_by_1st_april', 'count', [
        ['2023-10-01', 7],
        ['2024-04-01', 13],
        ['2024-10-01', 13],
        ['2025-04-01', 13],
        ['2025-10-01', 7],
      ]),
    },
    {
      name: 'half_year custom granularity with dimension',
      query: { measures: ['orders.count'], timeDimensions: td('half_year'), ...byStatus, ...london },
      expected: perStatus('half_year', 'count', [
        ['2024-01-01', 4, 5, 4],
        ['2024-07-01', 5, 4, 4],
        ['2025-01-01', 4, 4, 5],
        ['2025-07-01', 4, 5, 4],
      ]).concat([
        {
          'orders.createdAt.half_year': '2026-01-01T00:00:00.000',
          'orders.status': 'completed',
          'orders.count': '1',
        },
      ]),
    },
    {
      name: 'half_year_by_1st_april custom granularity with dimension',
      query: {
        measures: ['orders.count'],
        timeDimensions: td('half_year_by_1st_april'),
        ...byStatus,
        ...london,
      },
      expected: perStatus('half_year_by_1st_april', 'count', [
        ['2023-10-01', 2, 3, 2],
        ['2024-04-01', 5, 4, 4],
        ['2024-10-01', 4, 4, 5],
        ['2025-04-01', 4, 5, 4],
        ['2025-10-01', 3, 2, 2],
      ]),
    },
    {
      name: 'half_year custom granularity w/o dimensions with unbounded rolling window',
      query: { measures: ['orders.rollingCountByUnbounded'], timeDimensions: td('half_year'), ...london },
      expected: totals('half_year', 'rollingCountByUnbounded', [
        ['2024-01-01', 13],
        ['2024-07-01', 27],
        ['2025-01-01', 40],
        ['2025-07-01', 53],
      ]),
    },
    {
      name: 'half_year custom granularity with dimension with unbounded rolling window',
      query: {
        measures: ['orders.rollingCountByUnbounded'],
        timeDimensions: td('half_year'),
        ...byStatus,
        ...london,
      },
      expected: perStatus('half_year', 'rollingCountByUnbounded', [
        ['2024-01-01', 4, 5, 4],
        ['2024-07-01', 9, 9, 9],
        ['2025-01-01', 13, 14, 13],
        ['2025-07-01', 18, 18, 17],
      ]),
    },
    {
      name: 'half_year_by_1st_april custom granularity with dimension with unbounded rolling window',
      query: {
        measures: ['orders.rollingCountByUnbounded'],
        timeDimensions: td('half_year_by_1st_april'),
        ...byStatus,
        ...london,
      },
      expected: perStatus('half_year_by_1st_april', 'rollingCountByUnbounded', [
        ['2023-10-01', 2, 3, 2],
        ['2024-04-01', 7, 7, 6],
        ['2024-10-01', 11, 11, 11],
        ['2025-04-01', 15, 16, 15],
        ['2025-10-01', 20, 20, 19],
      ]),
    },
    {
      name: 'half_year custom granularity w/o dimensions with trailing rolling window',
      query: {
        measures: ['orders.rollingCountByTrailing3Months'],
        timeDimensions: td('half_year'),
        ...london,
      },
      expected: totals('half_year', 'rollingCountByTrailing3Months', [
        ['2024-01-01', 6],
        ['2024-07-01', 7],
        ['2025-01-01', 7],
        ['2025-07-01', 7],
      ]),
    },
    {
      name: 'half_year custom granularity with dimension with trailing rolling window',
      query: {
        measures: ['orders.rollingCountByTrailing3Months'],
        timeDimensions: td('half_year'),
        ...byStatus,
        ...london,
      },
      expected: perStatus('half_year', 'rollingCountByTrailing3Months', [
        ['2024-01-01', 2, 2, 2],
        ['2024-07-01', 2, 2, 3],
        ['2025-01-01', 2, 3, 2],
        ['2025-07-01', 3, 2, 2],
      ]),
    },
    {
      name: 'half_year_by_1st_april custom granularity w/o dimensions with trailing rolling window',
      query: {
        measures: ['orders.rollingCountByTrailing3Months'],
        timeDimensions: td('half_year_by_1st_april'),
        ...london,
      },
      expected: totals('half_year_by_1st_april', 'rollingCountByTrailing3Months', [
        ['2023-10-01', 7],
        ['2024-04-01', 7],
        ['2024-10-01', 6],
        ['2025-04-01', 6],
        ['2025-10-01', 6],
      ]),
    },
    {
      name: 'half_year custom granularity w/o dimensions with leading rolling window',
      query: {
        measures: ['orders.rollingCountByLeading4Months'],
        timeDimensions: td('half_year'),
        ...london,
      },
      expected: totals('half_year', 'rollingCountByLeading4Months', [
        ['2024-01-01', 9],
        ['2024-07-01', 8],
        ['2025-01-01', 8],
        ['2025-07-01', 7],
      ]),
    },
    {
      name: 'half_year custom granularity with dimension with leading rolling window',
      query: {
        measures: ['orders.rollingCountByLeading4Months'],
        timeDimensions: td('half_year'),
        ...byStatus,
        ...london,
      },
      expected: perStatus('half_year', 'rollingCountByLeading4Months', [
        ['2024-01-01', 3, 3, 3],
        ['2024-07-01', 3, 3, 2],
        ['2025-01-01', 3, 2, 3],
        ['2025-07-01', 2, 2, 3],
      ]),
    },
    {
      name: 'half_year_by_1st_april custom granularity w/o dimensions with leading rolling window',
      query: {
        measures: ['orders.rollingCountByLeading4Months'],
        timeDimensions: td('half_year_by_1st_april'),
        ...london,
      },
      expected: totals('half_year_by_1st_april', 'rollingCountByLeading4Months', [
        ['2023-10-01', 9],
        ['2024-04-01', 9],
        ['2024-10-01', 9],
        ['2025-04-01', 9],
        ['2025-10-01', 1],
      ]),
    },
  ],
});
