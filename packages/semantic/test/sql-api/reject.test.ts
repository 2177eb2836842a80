import { beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser, planSqlQuery, SqlApiError } from '../../src/index.ts';
import { ADMIN, fixtureModel, NOW } from '../fixtures/model.ts';

const model = fixtureModel();
beforeAll(() => loadSqlParser());

const refuse = (sql: string, securityContext: Record<string, unknown> = ADMIN) => {
  try {
    planSqlQuery(model, sql, { dialect: 'postgres', securityContext, now: NOW });
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${sql}`);
};

/** Everything the SQL API cannot answer is refused with a message naming the construct. */
describe('SQL API rejections', () => {
  const cases: [string, RegExp][] = [
    ['SELECT 1; SELECT 2', /multiple statements/],
    ['DELETE FROM orders', /DELETE statements are not allowed/],
    ["COPY orders TO '/tmp/x'", /COPY statements are not allowed/],
    ["SET search_path = 'x'", /SET statements are not allowed/],
    ['CREATE TABLE x (a int)', /CREATE TABLE statements are not allowed/],
    ["SELECT pg_read_file('/etc/passwd')", /function pg_read_file is not allowed/],
    ["SELECT current_setting('data_directory')", /function current_setting is not allowed/],
    ["SELECT set_config('a', 'b', false)", /function set_config is not allowed/],
    ["SELECT * FROM read_csv('/etc/passwd')", /function read_csv is not allowed in FROM/],
    ['SELECT * FROM pg_catalog.pg_user', /table pg_catalog.pg_user is not a cube/],
    ['SELECT * FROM information_schema.tables', /table information_schema.tables is not a cube/],
    ['SELECT * FROM customers_raw', /table customers_raw is not a cube/],
    ['WITH x AS (SELECT * FROM orders) SELECT * FROM x JOIN orders ON true', /cube orders joined with a CTE/],
    ['SELECT __user FROM orders', /__user is not supported/],
    ["SELECT status FROM orders WHERE __user = 'x'", /__user is not supported/],
    ['SELECT AVG(count) FROM orders', /AVG\(count\) does not match measure orders.count of type count/],
    ['SELECT SUM(amount) FROM orders', /orders.amount is a dimension/],
    ["SELECT status FROM orders WHERE status LIKE 'a_b'", /LIKE pattern/],
    [
      'SELECT status FROM orders WHERE status IN (SELECT status FROM orders)',
      /subquery in WHERE over a cube/,
    ],
    ['SELECT upper(status), MEASURE(count) FROM orders GROUP BY 1', /GROUP BY an expression/],
    ['WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r', /WITH RECURSIVE/],
    ['SELECT version()', /function version is not allowed/],
    ['SELECT current_user', /current_user is not allowed/],
    ['SELECT 1 FROM orders FOR UPDATE', /FOR UPDATE/],
    ['SELECT status INTO t FROM orders', /SELECT INTO/],
    ['SELECT CAST(1 AS regclass)', /type regclass is not allowed/],
    ['SELECT email FROM customers', /hidden member/],
    ['SELEC 1', /SQL syntax error/],
  ];
  for (const [sql, message] of cases) {
    it(sql, () => {
      const m = refuse(sql, sql.includes('email') ? { serviceCloud: { groups: ['sales'] } } : ADMIN);
      expect(m).toMatch(message);
    });
  }

  it('is a SqlApiError (a user error) for unsupported constructs', () => {
    try {
      planSqlQuery(model, 'SELECT 1; SELECT 2', { dialect: 'duckdb', securityContext: ADMIN });
    } catch (error) {
      expect(error).toBeInstanceOf(SqlApiError);
      expect((error as SqlApiError).type).toBe('UserError');
    }
  });

  it('applies row-level policies whatever the SQL says', () => {
    const p = planSqlQuery(
      model,
      "SELECT country, MEASURE(count) FROM customers WHERE country = 'FR' OR country = 'US' GROUP BY 1",
      {
        dialect: 'duckdb',
        securityContext: { serviceCloud: { groups: ['sales'], userAttributes: { country: 'DE' } } },
        now: NOW,
      },
    );
    expect(p.params).toContain('DE');
    expect(p.semantic[0].sql).toMatch(/AND|WHERE/);
  });
});
