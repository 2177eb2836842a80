import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileQuery,
  type DialectName,
  getMeta,
  type SecurityContext,
} from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';
import { SALES_US, viewsModel } from './fixtures/views.ts';

/**
 * Reading through a view must never show more than the view's cubes allow (Cube docs, access
 * policies: "Policies on cubes" and "Policies on views"): the cubes' row filters and hidden
 * members apply under the view's own policy. Results are checked against hand-written SQL on
 * the same engine: DuckDB in memory, and PostgreSQL when 127.0.0.1:5432 answers.
 */
const model = viewsModel();
const ANONYMOUS: SecurityContext = {};
const pgUp = await postgresAvailable();
const dialects: DialectName[] = pgUp ? ['duckdb', 'postgres'] : ['duckdb'];
if (!pgUp) console.warn('PostgreSQL unreachable at 127.0.0.1:5432: view security runs on DuckDB only');

const compile = (q: CubeQuery, ctx: SecurityContext, dialect: DialectName = 'duckdb') =>
  compileQuery(model, q, { dialect, securityContext: ctx, now: NOW });

/** Numbers come back as bigint, number or numeric text depending on the engine. */
const plain = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'bigint' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) ? Number(v) : v,
      ]),
    ),
  );

/** Orders per customer country, straight from the tables; `where` restricts orders/customers. */
const directByCountry = (view: string, where: string) => `
  SELECT c.country AS "${view}.customers_country", count(o.id) AS "${view}.count",
    sum(o.amount) AS "${view}.total_amount", sum(q.qty) AS "${view}.quantity_total"
  FROM orders o LEFT JOIN customers c ON o.customer_id = c.id
  LEFT JOIN (SELECT order_id, sum(quantity) AS qty FROM line_items GROUP BY order_id) q ON q.order_id = o.id
  WHERE ${where} GROUP BY 1 ORDER BY 1`;

const byCountry: CubeQuery = {
  measures: ['customer_orders.count', 'customer_orders.total_amount', 'customer_orders.quantity_total'],
  dimensions: ['customer_orders.customers_country'],
  order: { 'customer_orders.customers_country': 'asc' },
};

describe.each(dialects)('views under cube policies (%s)', (dialect) => {
  let db: Engine;
  beforeAll(async () => {
    db = dialect === 'duckdb' ? await duckdbEngine() : await postgresEngine();
  });
  afterAll(async () => db.close());
  const run = async (q: CubeQuery, ctx: SecurityContext) =>
    plain(await runQuery(db, compile(q, ctx, dialect)));
  const direct = async (sql: string) => plain(await db.run(sql, []));

  it('a restricted context reads only its rows, fan-out subqueries included', async () => {
    const sql = compile(byCountry, SALES_US, dialect).sql;
    // orders fan out over line_items: the keys subquery and the main one both filter customers
    expect(sql.match(/"customers".country = \$1/g)?.length).toBe(2);
    const rows = await run(byCountry, SALES_US);
    expect(rows).toEqual(await direct(directByCountry('customer_orders', "c.country = 'US'")));
    expect(rows).toEqual([
      {
        'customer_orders.customers_country': 'US',
        'customer_orders.count': 4,
        'customer_orders.total_amount': 325.75,
        'customer_orders.quantity_total': 15,
      },
    ]);
  });

  it('an unrestricted context still reads every row', async () => {
    const rows = await run(byCountry, ADMIN);
    expect(rows).toEqual(await direct(directByCountry('customer_orders', '1 = 1')));
    expect(rows.map((r) => r['customer_orders.customers_country'])).toEqual(['DE', 'FR', 'US']);
  });

  it('applies the view policy AND the cube policy', async () => {
    const q: CubeQuery = {
      measures: ['sales_overview.count'],
      dimensions: ['sales_overview.customers_country'],
    };
    const expected = await direct(`
      SELECT c.country AS "sales_overview.customers_country", count(o.id) AS "sales_overview.count"
      FROM orders o LEFT JOIN customers c ON o.customer_id = c.id
      WHERE c.country = 'US' AND o.status <> 'cancelled' GROUP BY 1`);
    expect(await run(q, SALES_US)).toEqual(expected);
    const regional = await run(
      { measures: ['regional_orders.count'], dimensions: ['regional_orders.customers_country'] },
      SALES_US,
    );
    expect(regional).toEqual([{ 'regional_orders.customers_country': 'US', 'regional_orders.count': 2 }]);
  });

  it('returns no row of a cube whose policies deny the context', async () => {
    // sales without a country attribute: the row filter cannot be built, so no customer row
    const noCountry: SecurityContext = { serviceCloud: { groups: ['sales'] } };
    const q: CubeQuery = {
      measures: ['customer_orders.count'],
      dimensions: ['customer_orders.customers_country'],
    };
    expect(await run(q, noCountry)).toEqual([]);
    // anonymous: customers has policies, none for it; orders has none
    const viaSql: CubeQuery = {
      measures: ['customer_orders.count'],
      dimensions: ['customer_orders.customer_name'],
    };
    expect(await run(viaSql, ANONYMOUS)).toEqual([]);
    expect(await run({ measures: ['customer_orders.count'] }, ANONYMOUS)).toEqual([
      { 'customer_orders.count': 8 },
    ]);
  });

  it('joins the cubes a cube row filter needs, even through a view', async () => {
    const expected = await direct(`SELECT count(*) AS "notes.count" FROM orders WHERE status = 'completed'`);
    expect(await run({ measures: ['notes.count'] }, ANONYMOUS)).toEqual(expected);
    expect(expected).toEqual([{ 'notes.count': 5 }]);
  });
});

describe('view members aliasing hidden cube members', () => {
  const names = (ctx: SecurityContext, view: string) => {
    const v = getMeta(model, ctx).cubes.find((c) => c.name === view);
    return v ? [...v.measures, ...v.dimensions].map((m) => m.name) : null;
  };

  it('are left out of meta and rejected in queries', () => {
    expect(names(SALES_US, 'customer_orders')).not.toContain('customer_orders.customers_email');
    expect(names(SALES_US, 'customer_orders')).toContain('customer_orders.customers_country');
    for (const q of [
      { dimensions: ['customer_orders.customers_email'] },
      {
        measures: ['customer_orders.count'],
        filters: [{ member: 'customer_orders.customers_email', operator: 'set' }],
      },
    ] as CubeQuery[]) {
      expect(() => compile(q, SALES_US)).toThrow(
        "You requested hidden member: 'customer_orders.customers_email'",
      );
    }
  });

  it('stay visible to a context the cube allows them to', () => {
    expect(names(ADMIN, 'customer_orders')).toContain('customer_orders.customers_email');
    expect(() => compile({ dimensions: ['customer_orders.customers_email'] }, ADMIN)).not.toThrow();
  });

  it('are all hidden when no policy of the cube applies', () => {
    const visible = names(ANONYMOUS, 'customer_orders')!;
    expect(visible.filter((n) => n.includes('customers_'))).toEqual([]);
    expect(visible).toContain('customer_orders.count');
    expect(() => compile({ dimensions: ['customer_orders.customers_country'] }, ANONYMOUS)).toThrow(
      "You requested hidden member: 'customer_orders.customers_country'",
    );
  });

  it('combine with the view policy: hidden by either, view denied unless its policy applies', () => {
    expect(names(SALES_US, 'regional_orders')).toEqual([
      'regional_orders.count',
      'regional_orders.status',
      'regional_orders.customers_country',
    ]);
    // admin may read every customer member, but regional_orders only has a policy for sales
    expect(names(ADMIN, 'regional_orders')).toBeNull();
    expect(() => compile({ measures: ['regional_orders.count'] }, ADMIN)).toThrow('hidden member');
  });

  it('leave the fixture view unchanged for cubes without member restrictions', () => {
    const base = getMeta(fixtureModel(), SALES_US).cubes.find((c) => c.name === 'sales_overview')!;
    expect(base.dimensions.map((d) => d.name)).toContain('sales_overview.customers_name');
  });
});
