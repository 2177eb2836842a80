import { compileModelAsync } from '@tessera/semantic';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors/domain-errors.ts';
import { generateCubes } from './generate-cubes.ts';
import { readManifest } from './manifest.ts';
import { shopManifest } from './test-support.ts';

const fieldsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.errors.map((p) => p.field);
    throw e;
  }
  return [];
};

describe('cubes from a dbt manifest', () => {
  it('writes one compiling cube per model with keys, joins, measures, metrics and descriptions', async () => {
    const project = readManifest(shopManifest('shop'));
    expect(project.counts).toEqual({ models: 3, sources: 1, macros: 3 });
    const { files, notes } = generateCubes(project);
    expect(files.map((f) => f.path)).toEqual([
      'model/dbt/customers.yml',
      'model/dbt/order_items.yml',
      'model/dbt/orders.yml',
    ]);
    const { model, errors } = await compileModelAsync(files);
    expect(errors).toEqual([]);
    const orders = model.cubes.get('orders')!;
    expect(orders.sqlTable).toBe('shop.main.orders');
    expect(orders.description).toBe('One row per order, completed or not');
    expect(orders.primaryKeys.map((d) => d.name)).toEqual(['order_id']);
    expect([...orders.joins.values()].map((j) => [j.name, j.relationship])).toEqual([
      ['customers', 'many_to_one'],
    ]);
    expect(Object.fromEntries([...orders.dimensions.values()].map((d) => [d.name, d.type]))).toEqual({
      order_id: 'number',
      customer_id: 'number',
      status: 'string',
      amount: 'number',
      is_gift: 'boolean',
      ordered_at: 'time',
      note: 'string',
    });
    expect(orders.dimensions.get('amount')!.description).toBe('Order value in EUR');
    expect(Object.fromEntries([...orders.measures.values()].map((m) => [m.name, m.type]))).toEqual({
      count: 'count',
      order_total: 'sum',
      order_count: 'count',
      customers_with_orders: 'count_distinct',
      average_amount: 'avg',
      gift_orders: 'sum',
      revenue: 'number',
      average_order_value: 'number',
    });
    expect(orders.measures.get('revenue')!.description).toBe('Revenue, as finance reports it');
    const customers = model.cubes.get('customers')!;
    expect(customers.primaryKeys.map((d) => d.name)).toEqual(['customer_id']);
    expect(customers.dimensions.has('preferences')).toBe(false);
    // not_null alone is no key: order_items has only a unique test
    expect(model.cubes.get('order_items')!.primaryKeys).toEqual([]);

    const said = notes.map((n) => n.message).join('\n');
    expect(said).toMatch(/Skipped customers\.preferences: data_type json/);
    expect(said).toMatch(/Skipped join of test\.shop\.relationships_order_items_product_id.*source/);
    expect(said).toMatch(/Skipped measure orders\.p90_amount: agg percentile \(0\.9\)/);
    expect(said).toMatch(/Skipped metric shipped_revenue: its filter/);
    expect(said).toMatch(/Skipped metric cumulative_revenue: cumulative metrics/);
    expect(said).toMatch(/order_items: no primary key/);
    expect(said).toMatch(/Generated cube orders from model\.shop\.orders/);
  });

  it.each([
    [
      {
        ...shopManifest('shop'),
        metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v11.json' },
      },
      'body/manifest/metadata/dbt_schema_version',
    ],
    [{ ...shopManifest('shop'), metadata: undefined }, 'body/manifest/metadata'],
    [{ ...shopManifest('shop'), nodes: undefined }, 'body/manifest/nodes'],
    [{ ...shopManifest('shop'), nodes: {} }, 'body/manifest/nodes'],
    [{ ...shopManifest('shop'), metrics: [] }, 'body/manifest/metrics'],
    [
      { ...shopManifest('shop'), nodes: { 'model.shop.x': { resource_type: 'model', name: 'x' } } },
      'body/manifest/nodes/model.shop.x/schema',
    ],
  ])('refuses a manifest naming the field (%#)', (manifest, field) => {
    expect(fieldsOf(() => readManifest(manifest as Record<string, unknown>))).toContain(field);
  });
});
