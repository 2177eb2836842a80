import { compileModelAsync } from '@tessera/semantic';
import { describe, expect, it } from 'vitest';
import { dimensionType, generateModel, memberName } from './generate-model.ts';

describe('the model generator', () => {
  it.each([
    ['integer', 'number'],
    ['numeric(10,2)', 'number'],
    ['DOUBLE', 'number'],
    ['HUGEINT', 'number'],
    ['character varying(40)', 'string'],
    ['VARCHAR', 'string'],
    ['uuid', 'string'],
    ['timestamp without time zone', 'time'],
    ['TIMESTAMP WITH TIME ZONE', 'time'],
    ['date', 'time'],
    ['time without time zone', 'string'],
    ['interval', 'string'],
    ['boolean', 'boolean'],
    ['jsonb', null],
    ['integer[]', null],
    ['INTEGER[]', null],
    ['STRUCT(a INTEGER)', null],
  ])('types a %s column as %s', (type, expected) => {
    expect(dimensionType(type)).toBe(expected);
  });

  it.each([
    ['City Name', 'city_name'],
    ['2024 sales', '_2024_sales'],
    ['ÉtÉ', 't'],
    ['___', '_column'],
  ])('names %s as %s', (raw, name) => expect(memberName(raw)).toBe(name));

  it('writes YAML that compiles: keys, sums, joins by foreign key, quoted odd names', async () => {
    const files = generateModel([
      {
        schema: 'Shop',
        name: 'Order Lines',
        columns: [
          { name: 'order_id', type: 'integer', nullable: false, primaryKey: true },
          { name: 'line', type: 'integer', nullable: false, primaryKey: true },
          { name: 'Price', type: 'numeric', nullable: true, primaryKey: false },
          { name: 'tags', type: 'text[]', nullable: true, primaryKey: false },
        ],
        foreignKeys: [
          {
            columns: ['order_id'],
            referencedSchema: 'Shop',
            referencedTable: 'orders',
            referencedColumns: ['id'],
          },
        ],
      },
      {
        schema: 'Shop',
        name: 'orders',
        columns: [
          { name: 'id', type: 'integer', nullable: false, primaryKey: true },
          { name: 'count', type: 'integer', nullable: true, primaryKey: false },
        ],
        foreignKeys: [],
      },
    ]);
    expect(files.map((f) => f.path)).toEqual(['model/order_lines.yml', 'model/orders.yml']);
    const { model, errors } = await compileModelAsync(files);
    expect(errors).toEqual([]);
    const lines = model.cubes.get('order_lines')!;
    expect(lines.sqlTable).toBe('"Shop"."Order Lines"');
    expect(lines.primaryKeys.map((d) => d.name)).toEqual(['order_id', 'line']);
    expect([...lines.measures.keys()]).toEqual(['count', 'total_price']);
    expect([...lines.dimensions.keys()]).toEqual(['order_id', 'line', 'price']);
    expect([...lines.joins.values()].map((j) => [j.name, j.relationship])).toEqual([
      ['orders', 'many_to_one'],
    ]);
    // A column named like the count measure gets a dimension name of its own.
    expect([...model.cubes.get('orders')!.dimensions.keys()]).toEqual(['id', 'count_2']);
  });
});
