import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser, planSqlQuery } from '../../src/index.ts';
import { duckdbEngine, type Engine } from '../engines.ts';
import { ADMIN, NOW } from '../fixtures/model.ts';
import { SALES_US, viewsModel } from '../fixtures/views.ts';

/**
 * The SQL API path of the view-security fix: the case the server's SQL-API security test had
 * to drop (a restricted token reading a view over a policed cube) now keeps to the cube's
 * rows and members, whatever the outer SQL does.
 */
const model = viewsModel();
let db: Engine;
beforeAll(async () => {
  await loadSqlParser();
  db = await duckdbEngine();
});
afterAll(async () => db.close());

const ask = async (sql: string, securityContext: Record<string, unknown>) => {
  const plan = planSqlQuery(model, sql, { dialect: 'duckdb', securityContext, now: NOW });
  return (await db.run(plan.sql, plan.params)).map((r) => Object.values(r)[0]);
};

describe('SQL API over views of policed cubes', () => {
  for (const sql of [
    'SELECT customers_country, MEASURE(count) FROM customer_orders GROUP BY 1',
    'SELECT customers_country FROM customer_orders',
    'SELECT * FROM (SELECT customers_country FROM customer_orders GROUP BY 1) s',
  ]) {
    it(`reads only the cube's rows: ${sql}`, async () => {
      expect(new Set(await ask(sql, SALES_US))).toEqual(new Set(['US']));
      expect(new Set(await ask(sql, ADMIN))).toEqual(new Set(['DE', 'FR', 'US']));
    });
  }

  it('refuses the cube’s hidden members through the view', async () => {
    await expect(ask('SELECT customers_email FROM customer_orders', SALES_US)).rejects.toThrow(
      "hidden member: 'customer_orders.customers_email'",
    );
    await expect(
      ask('SELECT count(*) FROM customer_orders WHERE customers_email IS NOT NULL', SALES_US),
    ).rejects.toThrow('hidden member');
  });
});
