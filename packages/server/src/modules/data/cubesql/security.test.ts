import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness.ts';
import { tokenFor } from '../test-support.ts';
import { cubesql } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** A policy-restricted token (customers of DE only, no email) whatever SQL it sends. */
describe('SQL API security', () => {
  let server: TestServer;
  let germany: string;
  const ask = (sql: string) => cubesql(server, server.demoDeploymentId, germany, sql);
  beforeAll(async () => {
    server = await startTestServer();
    germany = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { userAttributes: { country: 'DE' } } },
    });
  });
  afterAll(() => server?.close());

  const onlyGermany = [
    'SELECT country, MEASURE(count) FROM customers GROUP BY 1',
    "SELECT country FROM customers WHERE country = 'FR' OR country = 'DE' OR country <> 'x' GROUP BY 1",
    'WITH x AS (SELECT country FROM customers GROUP BY 1) SELECT * FROM x',
    'SELECT * FROM (SELECT * FROM (SELECT country FROM customers GROUP BY 1) a) b',
    'SELECT country FROM customers GROUP BY 1 UNION SELECT country FROM customers GROUP BY 1',
    'SELECT "country" /* comment */ FROM "customers" -- trailing\n GROUP BY 1',
    'SELECT (SELECT MAX(country) FROM (SELECT country FROM customers GROUP BY 1) s) AS country',
    'SELECT country FROM customers',
    // Through a view: the cubes' own policies still apply (packages/semantic view security).
    'SELECT customers_country, MEASURE(count) FROM sales GROUP BY 1',
  ];
  for (const sql of onlyGermany) {
    it(`reads only its rows: ${sql.replace(/\s+/g, ' ')}`, async () => {
      const a = await ask(sql);
      expect(a.status, a.error ?? '').toBe(200);
      expect(a.rows.length).toBeGreaterThan(0);
      expect(new Set(a.rows.map((r) => r[0]))).toEqual(new Set(['DE']));
    });
  }

  it('does not escape string literals', async () => {
    const a = await ask("SELECT country FROM customers WHERE country = 'DE'' OR ''1''=''1' GROUP BY 1");
    expect(a.status).toBe(200);
    expect(a.rows).toEqual([]);
  });

  const refused: [string, RegExp][] = [
    ['SELECT email FROM customers', /hidden member: 'customers.email'/],
    ['SELECT * FROM customers WHERE email IS NOT NULL', /hidden member/],
    ['WITH x AS (SELECT email FROM customers) SELECT * FROM x', /hidden member/],
    ["SELECT pg_read_file('/etc/passwd')", /function pg_read_file is not allowed/],
    ["SELECT * FROM read_csv('/etc/passwd')", /function read_csv is not allowed/],
    ["SELECT current_setting('data_directory')", /function current_setting is not allowed/],
    ['SELECT __user FROM customers', /__user is not supported/],
    ['SELECT country FROM customers; DROP TABLE customers', /multiple statements/],
    ['SELECT * FROM main.customers', /table main.customers is not a cube/],
    ['SELECT * FROM pg_catalog.pg_tables', /not a cube/],
    ["COPY customers TO '/tmp/x.csv'", /COPY statements are not allowed/],
    ["ATTACH '/tmp/x.db' AS x", /syntax error/],
    ["SELECT CAST('x' AS INTEGER)", /Query failed: Conversion Error/],
  ];
  for (const [sql, message] of refused) {
    it(`refuses with a 400 naming the construct: ${sql}`, async () => {
      const a = await ask(sql);
      expect(a.status).toBe(400);
      expect(a.error).toMatch(message);
    });
  }

  it('never answers a 5xx for SQL it cannot answer', async () => {
    for (const sql of [
      '',
      'SELECT',
      'SELECT x FROM y',
      "SELECT 'a' + 1",
      'SELECT * FROM orders o, customers c WHERE o.id = c.id',
    ]) {
      const a = await ask(sql);
      expect(a.status, sql).toBeLessThan(500);
    }
  });
});
