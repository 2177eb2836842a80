import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileQuery, type DialectName } from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { viewsModel } from './fixtures/views.ts';
import { queries } from './queries.ts';

/**
 * Measures multiplied by a one-to-many join, aggregated at their own grain (planner/grain.ts)
 * where that is exact, must give what Cube's distinct-keys form gives (planner/fanout.ts), on
 * every engine. Each case says which form the planner picks; the fallbacks are checked the same.
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

/** true: at its own grain; false: distinct keys only (why, in the query's comment in queries.ts). */
const ownGrain: Record<string, boolean> = {
  fanout_line_items_by_status: true,
  fanout_orders_by_product: false, // grouped by a column of the many side
  fanout_products_by_category: false, // products repeat per line item inside the join it needs
  fanout_filtered_items: false, // filtered on the many side
  fanout_not_null_free: true,
  fanout_distinct_and_avg: true,
  fanout_customers_and_items: true,
  fanout_rolling: true,
  fanout_no_dimensions: true,
  view_fanout: true,
  calculated_ratio: false, // no measure is multiplied
};

const extra: Record<string, CubeQuery> = {
  // a measure filter (HAVING) on a multiplied measure beside a one-to-many filter
  having_multiplied_with_many_side_filter: {
    measures: ['orders.count'],
    dimensions: ['orders.status'],
    filters: [
      { member: 'orders.total_amount', operator: 'gt', values: ['100'] },
      { member: 'line_items.product_id', operator: 'equals', values: ['1'] },
    ],
    order: { 'orders.status': 'asc' },
  },
  having_multiplied_with_branch_measure: {
    measures: ['line_items.count'],
    dimensions: ['orders.status'],
    filters: [{ member: 'orders.total_amount', operator: 'gt', values: ['100'] }],
    order: { 'orders.status': 'asc' },
  },
};
ownGrain.having_multiplied_with_many_side_filter = false;
ownGrain.having_multiplied_with_branch_measure = true;

const all: Record<string, CubeQuery> = { ...queries, ...extra };

describe('own-grain and distinct-keys plans agree', () => {
  for (const [name, grain] of Object.entries(ownGrain)) {
    const query = all[name];
    it(`${name} plans ${grain ? 'at its own grain' : 'over distinct keys'}`, () => {
      const planned = compileQuery(model, query, { dialect: 'duckdb', securityContext: ADMIN, now: NOW });
      const keysOnly = compileQuery(model, query, {
        dialect: 'duckdb',
        securityContext: ADMIN,
        now: NOW,
        distinctKeysOnly: true,
      });
      expect(planned.sql !== keysOnly.sql).toBe(grain);
    });
    for (const dialect of ['duckdb', 'postgres'] as const) {
      it.skipIf(dialect === 'postgres' && !pgUp)(
        `${name} gives the same rows both ways (${dialect})`,
        async () => {
          const compile = (distinctKeysOnly: boolean) =>
            compileQuery(model, query, { dialect, securityContext: ADMIN, now: NOW, distinctKeysOnly });
          const rows = await runQuery(engines[dialect]!, compile(false));
          expect(rows.length).toBeGreaterThan(0);
          expect(rows).toEqual(await runQuery(engines[dialect]!, compile(true)));
        },
      );
    }
  }
  it('a view reads the multiplied cube at its own grain under a row-level policy', () => {
    const q: CubeQuery = {
      measures: ['customer_orders.count', 'customer_orders.total_amount', 'customer_orders.quantity_total'],
      dimensions: ['customer_orders.customers_country'],
    };
    const sales = { serviceCloud: { groups: ['sales'], userAttributes: { country: 'US' } } };
    const sql = compileQuery(viewsModel(), q, { dialect: 'duckdb', securityContext: sales, now: NOW }).sql;
    // the row-level filter on customers applies in the orders subquery and in the items one
    expect(sql.match(/"customers"\.country = \$1/g)?.length).toBe(2);
  });
});

if (!pgUp) describe.skip('PostgreSQL at 127.0.0.1:5432 is unreachable: PostgreSQL runs skipped', () => {});
