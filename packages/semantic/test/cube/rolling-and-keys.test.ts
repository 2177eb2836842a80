import { cubeSuite } from './harness.ts';
import { visitorTables } from './visitors.ts';

/** Three short Cube test files: cumulative measures and window offsets over visitors, and keys. */
const visitors = (name: string, measures: string) => `
cubes:
  - name: ${name}
    sql: select * from visitors
    measures:
${measures}
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
      - name: createdAt
        type: time
        sql: created_at
`;

const days = (rows: [string, ...(string | null)[]][], keys: string[]) =>
  rows.map(([d, ...values]) => ({
    'visitors.createdAt.day': `2017-01-${d}T00:00:00.000`,
    ...Object.fromEntries(keys.map((k, i) => [k, values[i]])),
  }));
const january = {
  measures: ['visitors.count', 'visitors.unboundedCount'],
  timeDimensions: [
    { dimension: 'visitors.createdAt', granularity: 'day', dateRange: ['2017-01-01', '2017-01-30'] },
  ],
  timezone: 'America/Los_Angeles',
  order: [['visitors.createdAt', 'asc']] as [string, 'asc'][],
};

cubeSuite({
  source: 'postgres-cumulative-measures.test.ts',
  tables: visitorTables,
  model: visitors(
    'visitors',
    `      - name: count
        type: count
      - name: unboundedCount
        type: count
        rolling_window:
          trailing: unbounded`,
  ),
  cases: [
    {
      name: 'unbounded trailing window without dimension (reaches the 2016 visitor)',
      query: january,
      expected: days(
        [
          ['02', '1', '2'],
          ['04', '1', '3'],
          ['05', '1', '4'],
          ['06', '2', '6'],
        ],
        ['visitors.count', 'visitors.unboundedCount'],
      ),
    },
    {
      name: 'unbounded trailing window with dimension',
      query: { ...january, dimensions: ['visitors.source'] },
      expected: days(
        [
          ['02', 'some', '1', '1'],
          ['04', 'some', '1', '2'],
          ['05', 'google', '1', '1'],
          ['06', null, '2', '3'],
        ],
        ['visitors.source', 'visitors.count', 'visitors.unboundedCount'],
      ),
    },
  ],
});

const sum = (name: string, window: string) => `      - name: ${name}
        type: sum
        sql: amount
        rolling_window: { ${window} }`;
const range = (from: string, to: string) => ({
  timeDimensions: [{ dimension: 'balances.createdAt', dateRange: [from, to] }],
  timezone: 'UTC',
});

cubeSuite({
  source: 'rolling-window-offset-no-granularity.test.ts',
  tables: visitorTables,
  model: visitors(
    'balances',
    [
      sum('begBalance', 'trailing: unbounded, offset: start'),
      sum('endBalance', 'trailing: unbounded, offset: end'),
      sum('leadingStart', 'leading: unbounded, offset: start'),
      sum('leadingEnd', 'leading: unbounded, offset: end'),
      sum('trailing5Start', 'trailing: 5 day, offset: start'),
      sum('trailing5End', 'trailing: 5 day, offset: end'),
    ].join('\n'),
  ),
  cases: [
    {
      name: 'trailing: unbounded, offset start vs end',
      query: {
        measures: ['balances.begBalance', 'balances.endBalance'],
        ...range('2017-01-01', '2017-01-30'),
      },
      expected: [{ 'balances.begBalance': '500', 'balances.endBalance': '2000' }],
    },
    {
      name: 'leading: unbounded, offset start vs end',
      query: {
        measures: ['balances.leadingStart', 'balances.leadingEnd'],
        ...range('2017-01-01', '2017-01-30'),
      },
      expected: [{ 'balances.leadingStart': '1500', 'balances.leadingEnd': null }],
    },
    {
      name: 'finite trailing interval, offset start vs end',
      query: {
        measures: ['balances.trailing5Start', 'balances.trailing5End'],
        ...range('2017-01-06', '2017-01-10'),
      },
      expected: [{ 'balances.trailing5Start': '300', 'balances.trailing5End': '1200' }],
    },
  ],
});

cubeSuite({
  source: 'primary-key-multi-fact.test.ts',
  tables: {},
  model: `
cubes:
  - name: cube_a
    sql: SELECT 1 AS id, 100 AS value_a UNION ALL SELECT 2 AS id, 200 AS value_a
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
        public: true
    measures:
      - name: measure_a
        sql: value_a
        type: sum
  - name: cube_b
    sql: >
      SELECT 10 AS id, 1 AS a_id, CAST('2026-07-05' AS TIMESTAMP) AS date, 5 AS value_b UNION ALL
      SELECT 11 AS id, 1 AS a_id, CAST('2026-07-10' AS TIMESTAMP) AS date, 7 AS value_b UNION ALL
      SELECT 12 AS id, 2 AS a_id, CAST('2026-07-15' AS TIMESTAMP) AS date, 9 AS value_b
    joins:
      - name: cube_a
        relationship: many_to_one
        sql: "{CUBE}.a_id = {cube_a.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: date
        sql: date
        type: time
    measures:
      - name: measure_b
        sql: value_b
        type: sum
`,
  cases: [
    {
      name: 'primary key dimension next to measures from two cubes',
      notOn: { mysql: 'the cube SQL casts AS TIMESTAMP, which MariaDB spells DATETIME' },
      query: {
        measures: ['cube_b.measure_b', 'cube_a.measure_a'],
        dimensions: ['cube_a.id'],
        timeDimensions: [
          { dimension: 'cube_b.date', granularity: 'month', dateRange: ['2026-07-01', '2026-07-31'] },
        ],
        order: [['cube_a.id', 'asc']],
        timezone: 'UTC',
      },
      expected: [
        {
          'cube_a.id': '1',
          'cube_b.date.month': '2026-07-01T00:00:00.000',
          'cube_b.measure_b': '12',
          'cube_a.measure_a': '100',
        },
        {
          'cube_a.id': '2',
          'cube_b.date.month': '2026-07-01T00:00:00.000',
          'cube_b.measure_b': '9',
          'cube_a.measure_a': '200',
        },
      ],
    },
  ],
});
