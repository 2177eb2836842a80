import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileFromRollup,
  compileModel,
  compileModelAsync,
  compileModelOrThrow,
  compileQuery,
  type DialectName,
  type ModelError,
  rollupBuildSql,
  rollupCanAnswer,
  type SecurityContext,
} from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';

/**
 * Rollups (issue 15 item 5): a query a rollup answers gives the same rows from the rollup table
 * as from the raw tables, and as hand-written SQL; queries it cannot answer are not matched.
 */
const model = compileModelOrThrow([
  {
    path: 'model/orders.yml',
    content: `
cubes:
  - name: orders
    sql_table: orders
    measures:
      - { name: count, type: count }
      - { name: amount, type: sum, sql: amount }
      - { name: biggest, type: max, sql: amount }
      - { name: customers, type: count_distinct, sql: customer_id }
      - { name: avg_amount, type: avg, sql: amount }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: status, type: string, sql: status }
      - { name: customer_id, type: number, sql: customer_id }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
      - name: daily
        measures: [count, amount, biggest, customers]
        dimensions: [status, customer_id]
        time_dimension: created_at
        granularity: day
    access_policy:
      - group: '*'
        row_level:
          filters:
            - member: customer_id
              operator: equals
              values: ['{ securityContext.customer }']
      - group: admin
`,
  },
]);
const daily = model.cubes.get('orders')!.preAggregations.get('daily')!;
const admin: SecurityContext = { serviceCloud: { groups: ['admin'] } };

const pgUp = await postgresAvailable();
const engines: Partial<Record<DialectName, Engine>> = {};

beforeAll(async () => {
  engines.duckdb = await duckdbEngine();
  if (pgUp) engines.postgres = await postgresEngine();
  for (const engine of Object.values(engines)) {
    const dialect = engine === engines.duckdb ? 'duckdb' : 'postgres';
    await engine!.run(`CREATE TABLE orders_daily AS ${rollupBuildSql(model, daily, dialect, null).sql}`, []);
  }
});
afterAll(async () => {
  await engines.duckdb?.close();
  await engines.postgres?.close();
});

const source = { preAggregation: daily, from: 'orders_daily', range: null };

function answers(query: CubeQuery, ctx: SecurityContext = admin): boolean {
  const raw = compileQuery(model, query, { dialect: 'duckdb', securityContext: ctx });
  return rollupCanAnswer(model, daily, raw.resolved, ctx);
}

async function both(dialect: DialectName, query: CubeQuery, ctx: SecurityContext = admin) {
  const options = { dialect, securityContext: ctx };
  const raw = compileQuery(model, query, options);
  const rolled = compileFromRollup(model, query, options, raw, source);
  expect(rolled.sql).toContain('orders_daily');
  return {
    raw: await runQuery(engines[dialect]!, raw),
    rollup: await runQuery(engines[dialect]!, rolled),
  };
}

describe.each(['duckdb', 'postgres'] as const)('rollup answers on %s', (dialect) => {
  it.skipIf(dialect === 'postgres' && !pgUp)(
    'monthly counts and sums from a daily rollup equal the raw query and hand-written SQL',
    async () => {
      const query: CubeQuery = {
        measures: ['orders.count', 'orders.amount', 'orders.biggest'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      };
      expect(answers(query)).toBe(true);
      const { raw, rollup } = await both(dialect, query);
      const hand = await engines[dialect]!.run(
        `SELECT date_trunc('month', created_at) AS m, count(*) AS c, sum(amount) AS s, max(amount) AS b
         FROM orders GROUP BY 1 ORDER BY 1`,
        [],
      );
      expect(rollup).toEqual(raw);
      expect(rollup.map((r) => [r['orders.count'], Number(r['orders.amount'])])).toEqual(
        hand.map((r) => [String(r.c), Number(r.s)]),
      );
      expect(rollup.map((r) => r['orders.created_at.month'])).toEqual([
        '2024-01-01T00:00:00.000',
        '2024-02-01T00:00:00.000',
        '2024-03-01T00:00:00.000',
      ]);
    },
  );

  it.skipIf(dialect === 'postgres' && !pgUp)(
    'a filter on a rollup dimension, a whole-day date range, order and total',
    async () => {
      const query: CubeQuery = {
        measures: ['orders.count', 'orders.amount'],
        dimensions: ['orders.status'],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-02-15'] }],
        filters: [{ member: 'orders.status', operator: 'notEquals', values: ['cancelled'] }],
        order: { 'orders.amount': 'desc' },
        total: true,
      };
      expect(answers(query)).toBe(true);
      const { raw, rollup } = await both(dialect, query);
      expect(rollup).toEqual(raw);
      expect(rollup).toEqual([
        { 'orders.status': 'completed', 'orders.count': '3', 'orders.amount': '400.5' },
        { 'orders.status': 'pending', 'orders.count': '1', 'orders.amount': '40' },
      ]);
    },
  );

  it.skipIf(dialect === 'postgres' && !pgUp)('a count over no rows is 0 from the rollup too', async () => {
    const query: CubeQuery = {
      measures: ['orders.count'],
      filters: [{ member: 'orders.status', operator: 'equals', values: ['refunded'] }],
    };
    const { raw, rollup } = await both(dialect, query);
    expect(rollup).toEqual([{ 'orders.count': '0' }]);
    expect(rollup).toEqual(raw);
  });

  it.skipIf(dialect === 'postgres' && !pgUp)(
    'row-level security on a rollup dimension applies on top of the rollup',
    async () => {
      const ctx = { customer: 2 };
      const query: CubeQuery = { measures: ['orders.count', 'orders.amount'], dimensions: ['orders.status'] };
      expect(answers(query, ctx)).toBe(true);
      const { raw, rollup } = await both(dialect, query, ctx);
      expect(rollup).toEqual([{ 'orders.status': 'completed', 'orders.count': '2', 'orders.amount': '280' }]);
      expect(rollup).toEqual(raw);
    },
  );
});

describe('queries a rollup cannot answer are not matched', () => {
  it.each<[string, CubeQuery]>([
    ['a non-additive measure (count_distinct)', { measures: ['orders.customers'] }],
    ['a non-additive measure (avg)', { measures: ['orders.avg_amount'] }],
    ['a dimension outside the rollup', { measures: ['orders.count'], dimensions: ['orders.id'] }],
    [
      'a granularity finer than the rollup',
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour' }],
      },
    ],
    [
      'a date range that cuts a day',
      {
        measures: ['orders.count'],
        timeDimensions: [
          { dimension: 'orders.created_at', dateRange: ['2024-01-01T00:00:00', '2024-01-15T12:00:00'] },
        ],
      },
    ],
    [
      'a time zone other than the rollup buckets',
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
        timezone: 'America/New_York',
      },
    ],
    [
      'a filter on a member outside the rollup',
      { measures: ['orders.count'], filters: [{ member: 'orders.id', operator: 'gt', values: ['3'] }] },
    ],
    [
      'an ungrouped query',
      {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        ungrouped: true,
        allowUngroupedWithoutPrimaryKey: true,
      },
    ],
  ])('%s', (_name, query) => {
    expect(answers(query)).toBe(false);
  });

  it('a day rollup answers weeks (whole days)', () => {
    expect(
      answers({
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'week' }],
      }),
    ).toBe(true);
  });
});

function errorsOf(yaml: string): ModelError[] {
  return compileModel([{ path: 'model/bad.yml', content: yaml }]).errors as ModelError[];
}

describe('pre_aggregations model errors', () => {
  const cube = (pre: string) => `
cubes:
  - name: orders
    sql_table: orders
    measures:
      - { name: count, type: count }
    dimensions:
      - { name: status, type: string, sql: status }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
${pre}`;

  it.each([
    ['      - { name: raw, type: original_sql }', 11, 'type original_sql is not supported'],
    ['      - { name: r, measures: [nope] }', 11, 'orders has no measure nope'],
    [
      '      - { name: r, measures: [count], dimensions: [customers.country] }',
      11,
      'customers.country is not a dimension of the model',
    ],
    [
      '      - { name: r, measures: [count], time_dimension: status, granularity: day }',
      11,
      'status is not a time dimension',
    ],
    [
      '      - { name: r, measures: [count], time_dimension: created_at, granularity: fortnight }',
      11,
      'granularity must be a built-in granularity',
    ],
    [
      '      - { name: r, measures: [count], time_dimension: created_at, granularity: month, partition_granularity: day, build_range_start: { sql: SELECT 1 }, build_range_end: { sql: SELECT 2 } }',
      11,
      "partition_granularity 'day' must be month or coarser",
    ],
    [
      '      - { name: r, measures: [count], time_dimension: created_at, granularity: day, partition_granularity: month }',
      11,
      'needs build_range_start and build_range_end',
    ],
    ['      - { name: r, measures: [count], refresh_key: { every: soon } }', 11, "refresh_key.every 'soon'"],
  ])('%s', (pre, line, message) => {
    const errors = errorsOf(cube(pre));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'model/bad.yml', line, cube: 'orders' });
    expect(errors[0].message).toContain(message);
    expect(errors[0].member).not.toBeNull();
  });

  it('JavaScript models declare rollups with member references', async () => {
    const { model: js, errors } = await compileModelAsync([
      {
        path: 'model/orders.js',
        content: `cube('orders', {
  sql_table: 'orders',
  measures: { count: { type: 'count' } },
  dimensions: { status: { sql: 'status', type: 'string' }, createdAt: { sql: 'created_at', type: 'time' } },
  preAggregations: {
    main: {
      measures: [CUBE.count],
      dimensions: [CUBE.status],
      timeDimension: CUBE.createdAt,
      granularity: 'day',
      partitionGranularity: 'month',
      buildRangeStart: { sql: "SELECT '2024-01-01'" },
      buildRangeEnd: { sql: "SELECT '2024-03-31'" },
      refreshKey: { every: '1 hour' },
    },
    raw: { type: 'originalSql' },
  },
});`,
      },
    ]);
    expect(errors.map((e) => [e.line, e.member, e.message])).toEqual([
      [expect.any(Number), 'raw', expect.stringContaining('type original_sql is not supported')],
    ]);
    expect(js.cubes.get('orders')!.preAggregations.get('main')).toMatchObject({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimension: 'orders.createdAt',
      granularity: 'day',
      partitionGranularity: 'month',
      refreshKey: { every: '1 hour', sql: null },
      buildRangeStart: "SELECT '2024-01-01'",
    });
  });
});
