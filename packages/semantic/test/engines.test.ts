import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CompiledQuery,
  type CubeQuery,
  compileQuery,
  type DialectName,
  type SecurityContext,
} from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The query suite on real engines: DuckDB in memory and PostgreSQL (skipped with a message when
 * 127.0.0.1:5432 is unreachable). Both must agree, and agree with numbers computed by hand.
 */
const model = fixtureModel();
const pgUp = await postgresAvailable();
const engines: Partial<Record<DialectName, Engine>> = {};

beforeAll(async () => {
  engines.duckdb = await duckdbEngine();
  if (pgUp) engines.postgres = await postgresEngine();
});
afterAll(async () => {
  await engines.duckdb?.close();
  await engines.postgres?.close();
});

const compile = (q: CubeQuery, dialect: DialectName, ctx: SecurityContext = ADMIN): CompiledQuery =>
  compileQuery(model, q, { dialect, securityContext: ctx, now: NOW });

async function run(dialect: DialectName, q: CubeQuery, ctx?: SecurityContext) {
  return runQuery(engines[dialect]!, compile(q, dialect, ctx));
}

/** Numbers as strings differ in float digits between engines (numeric vs double); round them. */
function normalize(rows: Record<string, unknown>[]) {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v)
          ? String(Number(Number(v).toFixed(6)))
          : v,
      ]),
    ),
  );
}

/** Hand-computed results (see fixtures/data.ts). */
const expected: Record<string, Record<string, unknown>[]> = {
  count_by_status: [
    { 'orders.status': 'completed', 'orders.count': '5', 'orders.total_amount': '650' },
    { 'orders.status': 'pending', 'orders.count': '2', 'orders.total_amount': '100.75' },
    { 'orders.status': 'cancelled', 'orders.count': '1', 'orders.total_amount': '15.25' },
  ],
  // an order with many line items is counted, and summed, once
  fanout_line_items_by_status: [
    {
      'orders.status': 'cancelled',
      'orders.count': '1',
      'orders.total_amount': '15.25',
      'line_items.count': '0',
    },
    {
      'orders.status': 'completed',
      'orders.count': '5',
      'orders.total_amount': '650',
      'line_items.count': '8',
    },
    {
      'orders.status': 'pending',
      'orders.count': '2',
      'orders.total_amount': '100.75',
      'line_items.count': '2',
    },
  ],
  fanout_orders_by_product: [
    {
      'line_items.product_id': '1',
      'orders.count': '4',
      'orders.total_amount': '531.25',
      'orders.avg_amount': '132.8125',
    },
    {
      'line_items.product_id': '2',
      'orders.count': '3',
      'orders.total_amount': '240.5',
      'orders.avg_amount': '80.166667',
    },
    {
      'line_items.product_id': '3',
      'orders.count': '3',
      'orders.total_amount': '470.5',
      'orders.avg_amount': '156.833333',
    },
    {
      'line_items.product_id': null,
      'orders.count': '2',
      'orders.total_amount': '114.75',
      'orders.avg_amount': '57.375',
    },
  ],
  fanout_products_by_category: [
    {
      'products.category': 'media',
      'products.count': '1',
      'products.price_total': '7.25',
      'line_items.quantity_total': '11',
    },
    {
      'products.category': 'tools',
      'products.count': '2',
      'products.price_total': '30.5',
      'line_items.quantity_total': '11',
    },
  ],
  month_in_new_york: [
    {
      'orders.created_at.month': '2024-01-01T00:00:00.000',
      'orders.created_at': '2024-01-01T00:00:00.000',
      'orders.count': '4',
    },
    {
      'orders.created_at.month': '2024-02-01T00:00:00.000',
      'orders.created_at': '2024-02-01T00:00:00.000',
      'orders.count': '2',
    },
    {
      'orders.created_at.month': '2024-03-01T00:00:00.000',
      'orders.created_at': '2024-03-01T00:00:00.000',
      'orders.count': '2',
    },
  ],
  relative_last_month: [{ 'orders.count': '3', 'orders.total_amount': '156' }],
  filters_and: [
    { 'orders.status': 'completed', 'orders.count': '3' },
    { 'orders.status': 'pending', 'orders.count': '1' },
  ],
  filters_or: [{ 'orders.count': '2' }],
  having_measure_filter: [{ 'customers.name': 'Bob', 'orders.total_amount': '280' }],
  segment_by_country: [
    { 'customers.country': 'DE', 'orders.count': '2', 'orders.total_amount': '280' },
    { 'customers.country': 'FR', 'orders.count': '1', 'orders.total_amount': '99.5' },
    { 'customers.country': 'US', 'orders.count': '2', 'orders.total_amount': '270.5' },
  ],
  // a regular measure beside the window: only the days it has rows for (Cube INNER JOINs them)
  rolling_trailing_3_days: [
    {
      'orders.created_at.day': '2024-03-05T00:00:00.000',
      'orders.created_at': '2024-03-05T00:00:00.000',
      'orders.rolling_amount_3d': '150',
      'orders.count': '1',
    },
    {
      'orders.created_at.day': '2024-03-06T00:00:00.000',
      'orders.created_at': '2024-03-06T00:00:00.000',
      'orders.rolling_amount_3d': '249.5',
      'orders.count': '1',
    },
  ],
  // a window alone: every week of the range, the empty ones too
  rolling_month_to_date: [
    ['2024-01-29', '375.75'],
    ['2024-02-05', '95.25'],
    ['2024-02-12', '95.25'],
    ['2024-02-19', '156'],
  ].map(([week, amount]) => ({
    'orders.created_at.week': `${week}T00:00:00.000`,
    'orders.created_at': `${week}T00:00:00.000`,
    'orders.amount_mtd': amount,
  })),
  fanout_filtered_items: [
    {
      'orders.status': 'completed',
      'orders.count': '4',
      'orders.total_amount': '550.5',
      'line_items.count': '5',
    },
    { 'orders.status': 'pending', 'orders.count': '1', 'orders.total_amount': '40', 'line_items.count': '1' },
  ],
  fanout_not_null_free: [
    { 'orders.status': 'cancelled', 'orders.count': '1', 'line_items.quantity_or_zero': '0' },
    { 'orders.status': 'completed', 'orders.count': '5', 'line_items.quantity_or_zero': '19' },
    { 'orders.status': 'pending', 'orders.count': '2', 'line_items.quantity_or_zero': '3' },
  ],
  fanout_distinct_and_avg: [
    {
      'orders.status': 'cancelled',
      'orders.unique_customers': '1',
      'orders.total_amount': '15.25',
      'line_items.avg_price': null,
    },
    {
      'orders.status': 'completed',
      'orders.unique_customers': '4',
      'orders.total_amount': '650',
      'line_items.avg_price': '11.65625',
    },
    {
      'orders.status': 'pending',
      'orders.unique_customers': '2',
      'orders.total_amount': '100.75',
      'line_items.avg_price': '15.25',
    },
  ],
  fanout_customers_and_items: [
    {
      'customers.country': 'DE',
      'customers.count': '1',
      'orders.total_amount': '280',
      'line_items.count': '3',
    },
    {
      'customers.country': 'FR',
      'customers.count': '1',
      'orders.total_amount': '160.25',
      'line_items.count': '1',
    },
    {
      'customers.country': 'US',
      'customers.count': '2',
      'orders.total_amount': '325.75',
      'line_items.count': '6',
    },
  ],
  fanout_rolling: [
    ['2024-03-05', '150', '1', '2'],
    ['2024-03-06', '249.5', '1', '0'],
  ].map(([day, rolling, orders, items]) => ({
    'orders.created_at.day': `${day}T00:00:00.000`,
    'orders.created_at': `${day}T00:00:00.000`,
    'orders.rolling_amount_3d': rolling,
    'orders.count': orders,
    'line_items.count': items,
  })),
  fanout_no_dimensions: [{ 'orders.count': '8', 'orders.total_amount': '766', 'line_items.count': '10' }],
  view_fanout: [
    {
      'sales_overview.customers_country': 'DE',
      'sales_overview.count': '2',
      'sales_overview.total_amount': '280',
      'sales_overview.line_item_count': '3',
    },
    {
      'sales_overview.customers_country': 'FR',
      'sales_overview.count': '2',
      'sales_overview.total_amount': '160.25',
      'sales_overview.line_item_count': '1',
    },
    {
      'sales_overview.customers_country': 'US',
      'sales_overview.count': '3',
      'sales_overview.total_amount': '310.5',
      'sales_overview.line_item_count': '6',
    },
  ],
  ungrouped_page: [
    { 'orders.id': '2', 'orders.status': 'pending', 'orders.total_amount': '40' },
    { 'orders.id': '3', 'orders.status': 'completed', 'orders.total_amount': '200' },
    { 'orders.id': '4', 'orders.status': 'cancelled', 'orders.total_amount': '15.25' },
  ],
};

describe('engines agree with each other and with hand-computed results', () => {
  for (const [name, query] of Object.entries(queries)) {
    it(`${name} on duckdb`, async () => {
      const rows = normalize(await run('duckdb', query));
      if (expected[name]) expect(rows).toEqual(normalize(expected[name]));
      else expect(rows.length).toBeGreaterThan(0);
    });
    it.skipIf(!pgUp)(`${name} on postgres matches duckdb`, async () => {
      expect(normalize(await run('postgres', query))).toEqual(normalize(await run('duckdb', query)));
    });
  }
  it('total counts every row regardless of limit', async () => {
    const q = compile(queries.total_with_limit, 'duckdb');
    const [row] = await engines.duckdb!.run(q.totalSql!.sql, q.totalSql!.params);
    expect(Number(row.total_count)).toBe(4);
    expect((await runQuery(engines.duckdb!, q)).length).toBe(2);
  });
});

if (!pgUp)
  describe.skip('PostgreSQL at 127.0.0.1:5432 is unreachable: PostgreSQL engine tests skipped', () => {});
