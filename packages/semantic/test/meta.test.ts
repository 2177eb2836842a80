import { describe, expect, it } from 'vitest';
import { compileModelOrThrow, compileQuery, getMeta } from '../src/index.ts';

/**
 * `/v1/meta` as Cube's CubeToMetaTransformer lists members: primary keys only when the model
 * makes them public, and time dimensions with their custom granularities only.
 */
const model = compileModelOrThrow([
  {
    path: 'model/meta.yml',
    content: `
cubes:
  - name: orders
    sql_table: orders
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
        granularities:
          - name: fiscal_year
            interval: 1 year
            offset: 3 months
          - name: sprint
            title: Sprint
            interval: 2 weeks
            origin: "2024-01-01"
      - name: shipped_at
        sql: shipped_at
        type: time
  - name: shipments
    sql_table: shipments
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
        public: true
      - name: carrier
        sql: carrier
        type: string
`,
  },
]);

const dimensions = (cube: string) =>
  getMeta(model, {})
    .cubes.find((c) => c.name === cube)!
    .dimensions.map((d) => d.name);

describe('meta', () => {
  it('lists a primary key only when the model makes it public', () => {
    expect(dimensions('orders')).toEqual(['orders.status', 'orders.created_at', 'orders.shipped_at']);
    expect(dimensions('shipments')).toEqual(['shipments.id', 'shipments.carrier']);
  });

  it('still answers queries on a primary key it does not list', () => {
    const q = compileQuery(model, { dimensions: ['orders.id'] }, { dialect: 'duckdb', securityContext: {} });
    expect(q.sql).toContain('"orders".id');
  });

  it('lists the custom granularities of a time dimension as written, and no built-in ones', () => {
    const orders = getMeta(model, {}).cubes.find((c) => c.name === 'orders')!;
    const createdAt = orders.dimensions.find((d) => d.name === 'orders.created_at')!;
    expect(createdAt.granularities).toEqual([
      { name: 'fiscal_year', title: 'Fiscal Year', interval: '1 year', offset: '3 months' },
      { name: 'sprint', title: 'Sprint', interval: '2 weeks', origin: '2024-01-01' },
    ]);
    const shippedAt = orders.dimensions.find((d) => d.name === 'orders.shipped_at')!;
    expect(shippedAt).not.toHaveProperty('granularities');
  });
});
