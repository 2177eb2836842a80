import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileFromRollup,
  compileModel,
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
 * Rollups over joins (issue 15, Cube's "pre-aggregations and joins"): a rollup of orders may hold
 * members of the cubes orders joins. It is built from the planner's SQL for those members (joins
 * and fan-out as for any query), and answers a query with the same joins when the single-cube
 * rules hold; a measure its joins repeat is read only at the rollup's own grouping.
 */
const MODEL = `
cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers}.id"
      - name: line_items
        relationship: one_to_many
        sql: "{CUBE}.id = {line_items}.order_id"
    measures:
      - { name: count, type: count }
      - { name: amount, type: sum, sql: amount }
      - { name: biggest, type: max, sql: amount }
      - { name: avg_amount, type: avg, sql: amount }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: status, type: string, sql: status }
      - { name: created_at, type: time, sql: created_at }
    pre_aggregations:
      - name: by_country
        measures: [count, amount, biggest, avg_amount]
        dimensions: [status, customers.country]
        time_dimension: created_at
        granularity: day
      - name: by_name
        measures: [count]
        dimensions: [customers.name]
      - name: by_time
        measures: [count]
        dimensions: [created_at, customers.country]
      - name: by_product
        measures: [amount, line_items.quantity]
        dimensions: [line_items.product_id]
        time_dimension: created_at
        granularity: day
  - name: customers
    sql_table: customers
    measures:
      - { name: count, type: count }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: name, type: string, sql: name }
      - { name: country, type: string, sql: country }
    access_policy:
      - group: '*'
        row_level:
          filters:
            - { member: country, operator: equals, values: ['{ securityContext.country }'] }
      - group: admin
  - name: line_items
    sql_table: line_items
    measures:
      - { name: quantity, type: sum, sql: quantity }
    dimensions:
      - { name: id, type: number, sql: id, primary_key: true }
      - { name: product_id, type: number, sql: product_id }
`;
const VIEWS = `
views:
  - name: sales
    cubes:
      - join_path: orders
        includes: [count, amount, status, created_at]
      - join_path: orders.customers
        includes: [country]
`;
const model = compileModelOrThrow([
  { path: 'model/shop.yml', content: MODEL },
  { path: 'model/views.yml', content: VIEWS },
]);
const rollups = model.cubes.get('orders')!.preAggregations;
const admin: SecurityContext = { serviceCloud: { groups: ['admin'] } };

const pgUp = await postgresAvailable();
const engines: Partial<Record<DialectName, Engine>> = {};

beforeAll(async () => {
  engines.duckdb = await duckdbEngine();
  if (pgUp) engines.postgres = await postgresEngine();
  for (const [dialect, engine] of Object.entries(engines) as [DialectName, Engine][]) {
    for (const p of rollups.values())
      await engine.run(`CREATE TABLE orders_${p.name} AS ${rollupBuildSql(model, p, dialect, null).sql}`, []);
  }
});
afterAll(async () => {
  await engines.duckdb?.close();
  await engines.postgres?.close();
});

function answers(name: string, query: CubeQuery, ctx: SecurityContext = admin): boolean {
  const raw = compileQuery(model, query, { dialect: 'duckdb', securityContext: ctx });
  return rollupCanAnswer(model, rollups.get(name)!, raw.resolved, ctx);
}

/** The query's rows from the raw tables and from the rollup, whose SQL joins nothing. */
async function both(dialect: DialectName, name: string, query: CubeQuery, ctx: SecurityContext = admin) {
  const options = { dialect, securityContext: ctx };
  const raw = compileQuery(model, query, options);
  const source = { preAggregation: rollups.get(name)!, from: `orders_${name}`, range: null };
  const rolled = compileFromRollup(model, query, options, raw, source);
  expect(rolled.sql).toContain(`orders_${name}`);
  expect(rolled.sql).not.toMatch(/\bJOIN\b/i);
  return {
    raw: await runQuery(engines[dialect]!, raw),
    rollup: await runQuery(engines[dialect]!, rolled),
  };
}

const num = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v,
      ]),
    ),
  );

describe.each(['duckdb', 'postgres'] as const)('joined rollups answer on %s', (dialect) => {
  const skip = dialect === 'postgres' && !pgUp;

  it.skipIf(skip)('monthly sums by a joined dimension equal the raw query and hand-written SQL', async () => {
    const query: CubeQuery = {
      measures: ['orders.count', 'orders.amount', 'orders.biggest'],
      dimensions: ['customers.country'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      order: [
        ['orders.created_at', 'asc'],
        ['customers.country', 'asc'],
      ],
    };
    expect(answers('by_country', query)).toBe(true);
    const { raw, rollup } = await both(dialect, 'by_country', query);
    expect(rollup).toEqual(raw);
    const hand = await engines[dialect]!.run(
      `SELECT c.country, count(*) AS n, sum(o.amount) AS s, max(o.amount) AS b
       FROM orders o LEFT JOIN customers c ON o.customer_id = c.id
       GROUP BY date_trunc('month', o.created_at), c.country ORDER BY date_trunc('month', o.created_at), c.country`,
      [],
    );
    expect(
      num(rollup).map((r) => [
        r['customers.country'],
        r['orders.count'],
        r['orders.amount'],
        r['orders.biggest'],
      ]),
    ).toEqual(hand.map((r) => [r.country, Number(r.n), Number(r.s), Number(r.b)]));
  });

  it.skipIf(skip)('a filter on a joined dimension, a whole-day date range and total', async () => {
    const query: CubeQuery = {
      measures: ['orders.amount'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-02-29'] }],
      filters: [{ member: 'customers.country', operator: 'equals', values: ['US'] }],
      order: { 'orders.status': 'asc' },
      total: true,
    };
    expect(answers('by_country', query)).toBe(true);
    const { raw, rollup } = await both(dialect, 'by_country', query);
    expect(rollup).toEqual(raw);
    expect(num(rollup)).toEqual([
      { 'orders.status': 'cancelled', 'orders.amount': 15.25 },
      { 'orders.status': 'completed', 'orders.amount': 120.5 },
      { 'orders.status': 'pending', 'orders.amount': 40 },
    ]);
  });

  it.skipIf(skip)("the joined cube's row-level filter applies on top of the rollup", async () => {
    const ctx = { country: 'US' };
    const query: CubeQuery = {
      measures: ['orders.count', 'orders.amount'],
      dimensions: ['customers.country'],
    };
    expect(answers('by_country', query, ctx)).toBe(true);
    const { raw, rollup } = await both(dialect, 'by_country', query, ctx);
    expect(num(rollup)).toEqual([{ 'customers.country': 'US', 'orders.count': 4, 'orders.amount': 325.75 }]);
    expect(rollup).toEqual(raw);
  });

  it.skipIf(skip)(
    'a time-typed dimension of a UTC build is shown and filtered in the query zone',
    async () => {
      const query: CubeQuery = {
        measures: ['orders.count'],
        dimensions: ['orders.created_at', 'customers.country'],
        filters: [{ member: 'orders.created_at', operator: 'beforeDate', values: ['2024-02-01'] }],
        order: { 'orders.created_at': 'asc' },
        timezone: 'America/New_York',
      };
      expect(answers('by_time', query)).toBe(true);
      const { raw, rollup } = await both(dialect, 'by_time', query);
      expect(rollup).toEqual(raw);
      // order 4, at 02:00 UTC on February 1st, is still January in New York
      expect(rollup.map((r) => r['orders.created_at'])).toEqual([
        '2024-01-03T05:00:00.000',
        '2024-01-15T18:30:00.000',
        '2024-01-31T18:00:00.000',
        '2024-01-31T21:00:00.000',
      ]);
    },
  );

  it.skipIf(skip)(
    "a view over the same joins reads the rollup, with the joined cube's row-level filter",
    async () => {
      const query: CubeQuery = {
        measures: ['sales.count', 'sales.amount'],
        dimensions: ['sales.country'],
        order: { 'sales.country': 'asc' },
      };
      expect(answers('by_country', query)).toBe(true);
      const all = await both(dialect, 'by_country', query);
      expect(all.rollup).toEqual(all.raw);
      expect(all.rollup.map((r) => r['sales.country'])).toEqual(['DE', 'FR', 'US']);
      const ctx = { country: 'FR' };
      expect(answers('by_country', query, ctx)).toBe(true);
      const fr = await both(dialect, 'by_country', query, ctx);
      expect(num(fr.rollup)).toEqual([{ 'sales.country': 'FR', 'sales.count': 2, 'sales.amount': 160.25 }]);
      expect(fr.rollup).toEqual(fr.raw);
    },
  );

  it.skipIf(skip)(
    'a measure the joins repeat is read at the rollup grouping, as the raw query counts it',
    async () => {
      // order 1 has three line items: its amount counts once per product, never three times
      const query: CubeQuery = {
        measures: ['orders.amount', 'line_items.quantity'],
        dimensions: ['line_items.product_id'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }],
        order: [
          ['orders.created_at', 'asc'],
          ['line_items.product_id', 'asc'],
        ],
      };
      expect(answers('by_product', query)).toBe(true);
      const { raw, rollup } = await both(dialect, 'by_product', query);
      expect(rollup).toEqual(raw);
      expect(
        num(rollup)
          .slice(0, 3)
          .map((r) => [r['line_items.product_id'], r['orders.amount'], r['line_items.quantity']]),
      ).toEqual([
        [1, 120.5, 2],
        [2, 120.5, 1],
        [3, 120.5, 4],
      ]);
    },
  );

  it.skipIf(skip)('a measure of the many side adds up over coarser groups', async () => {
    const query: CubeQuery = {
      measures: ['line_items.quantity'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    };
    expect(answers('by_product', query)).toBe(true);
    const { raw, rollup } = await both(dialect, 'by_product', query);
    expect(rollup).toEqual(raw);
    expect(num(rollup).map((r) => r['line_items.quantity'])).toEqual([12, 4, 6]);
  });
});

describe('joined queries a rollup cannot answer are not matched', () => {
  it.each<[string, string, CubeQuery, SecurityContext?]>([
    [
      'a non-additive measure (avg)',
      'by_country',
      { measures: ['orders.avg_amount'], dimensions: ['customers.country'] },
    ],
    [
      'a joined dimension outside the rollup',
      'by_country',
      { measures: ['orders.count'], dimensions: ['customers.name'] },
    ],
    [
      'a repeated measure over coarser groups (order amount without the product)',
      'by_product',
      {
        measures: ['orders.amount'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      },
    ],
    [
      'a repeated measure without the time buckets',
      'by_product',
      { measures: ['orders.amount'], dimensions: ['line_items.product_id'] },
    ],
    [
      "a joined cube's row-level filter on a member the rollup lacks (country, rollup by name)",
      'by_name',
      { measures: ['orders.count'], dimensions: ['customers.name'] },
      { country: 'US' },
    ],
    [
      'another root: customer names from the customers side (the rollup keeps only those with orders)',
      'by_name',
      { dimensions: ['customers.name'] },
    ],
  ])('%s', (_name, rollup, query, ctx) => {
    expect(answers(rollup, query, ctx)).toBe(false);
  });

  it('the same query with a policy on a member the rollup holds, or with none, matches', () => {
    const byName = { measures: ['orders.count'], dimensions: ['customers.name'] };
    expect(answers('by_name', byName)).toBe(true);
    expect(
      answers(
        'by_country',
        { measures: ['orders.count'], dimensions: ['customers.country'] },
        { country: 'US' },
      ),
    ).toBe(true);
  });
});

describe('joined pre_aggregations model errors', () => {
  const errorsOf = (pre: string) =>
    compileModel([
      {
        path: 'model/bad.yml',
        content: MODEL.replace('    pre_aggregations:\n', `    pre_aggregations:\n${pre}\n`),
      },
    ]).errors as ModelError[];

  it.each([
    ['      - { name: r, measures: [customers.nope] }', 'customers.nope is not a measure of the model'],
    [
      '      - { name: r, measures: [count], dimensions: [shops.city] }',
      'shops.city is not a dimension of the model',
    ],
    [
      '      - { name: r, measures: [count], time_dimension: customers.name, granularity: day }',
      'customers.name is not a time dimension',
    ],
  ])('%s', (pre, message) => {
    const errors = errorsOf(pre);
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining(message)]);
    expect(errors[0]).toMatchObject({ file: 'model/bad.yml', cube: 'orders', member: 'r' });
    expect(errors[0].line).toBeGreaterThan(0);
  });

  it('members of cubes no join connects', () => {
    const errors = compileModel([
      {
        path: 'model/bad.yml',
        content: `${MODEL}
  - name: shops
    sql_table: shops
    measures:
      - { name: count, type: count }
    dimensions:
      - { name: city, type: string, sql: city }
    pre_aggregations:
      - { name: r, measures: [count], dimensions: [customers.country] }
`,
      },
    ]).errors as ModelError[];
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('no cube among shops, customers reaches the others by its joins'),
    ]);
  });
});
