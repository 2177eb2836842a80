import { beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser, planSqlQuery, type SqlApiPlan } from '../../src/index.ts';
import { ADMIN, fixtureModel, NOW } from '../fixtures/model.ts';

const model = fixtureModel();
const plan = (sql: string, securityContext: Record<string, unknown> = ADMIN): SqlApiPlan =>
  planSqlQuery(model, sql, { dialect: 'duckdb', securityContext, now: NOW });
const query = (sql: string) => plan(sql).semantic[0].query;

beforeAll(() => loadSqlParser());

/** SQL -> the Cube query it is planned as (Cube's SQL API query format). */
describe('SQL API translation', () => {
  it('maps dimensions, MEASURE, WHERE, GROUP BY, ORDER BY and LIMIT', () => {
    const p = plan(
      "SELECT status, MEASURE(count) FROM orders WHERE created_at >= '2024-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 10",
    );
    expect(p.semantic).toHaveLength(1);
    expect(p.semantic[0].query).toMatchObject({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      filters: [{ member: 'orders.created_at', operator: 'gte', values: ['2024-01-01'] }],
      order: [['orders.count', 'desc']],
      limit: 10,
    });
    expect(p.columns.map((c) => [c.name, c.columnType])).toEqual([
      ['status', 'Utf8'],
      ['measure', 'Int64'],
    ]);
  });

  it('accepts aggregates that match the measure type', () => {
    expect(
      query(
        'SELECT SUM(total_amount), COUNT(*), COUNT(DISTINCT unique_customers), AVG(avg_amount) FROM orders',
      ),
    ).toMatchObject({
      measures: ['orders.total_amount', 'orders.count', 'orders.unique_customers', 'orders.avg_amount'],
    });
  });

  it('maps DATE_TRUNC to a granularity and segments to boolean columns', () => {
    expect(
      query(
        "SELECT DATE_TRUNC('month', created_at) AS m, MEASURE(count) FROM orders WHERE completed AND big = true GROUP BY 1",
      ),
    ).toMatchObject({
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      segments: ['orders.completed', 'orders.big'],
    });
  });

  it('translates predicates with SQL semantics', () => {
    const q = query(
      "SELECT MEASURE(count) FROM orders WHERE status IN ('a', 'b') AND status NOT LIKE '%x%' AND (amount BETWEEN 1 AND 5 OR amount IS NULL) AND NOT (status = 'c') AND customer_name LIKE 'Al%'",
    );
    expect(q.filters).toEqual([
      { member: 'orders.status', operator: 'in', values: ['a', 'b'] },
      {
        and: [
          { member: 'orders.status', operator: 'notContains', values: ['x'] },
          { member: 'orders.status', operator: 'set' },
        ],
      },
      {
        or: [
          {
            and: [
              { member: 'orders.amount', operator: 'gte', values: ['1'] },
              { member: 'orders.amount', operator: 'lte', values: ['5'] },
            ],
          },
          { member: 'orders.amount', operator: 'notSet' },
        ],
      },
      {
        and: [
          { member: 'orders.status', operator: 'notEquals', values: ['c'] },
          { member: 'orders.status', operator: 'set' },
        ],
      },
      { member: 'orders.customer_name', operator: 'startsWith', values: ['Al'] },
    ]);
  });

  it('turns a measure condition in HAVING into a measure filter', () => {
    expect(
      query('SELECT status, MEASURE(count) FROM orders GROUP BY 1 HAVING MEASURE(count) > 10').filters,
    ).toEqual([{ member: 'orders.count', operator: 'gt', values: ['10'] }]);
  });

  it('answers SELECT * with the dimensions, ungrouped', () => {
    const p = plan('SELECT * FROM orders LIMIT 5');
    expect(p.semantic[0].query).toMatchObject({ ungrouped: true, limit: 5 });
    expect(p.columns.map((c) => c.name)).toContain('status');
    expect(p.columns.map((c) => c.name)).not.toContain('count');
  });

  it('queries a view and joins cubes with __cubeJoinField', () => {
    expect(query('SELECT customers_country, MEASURE(count) FROM sales_overview GROUP BY 1').measures).toEqual(
      ['sales_overview.count'],
    );
    expect(
      query(
        'SELECT c.country, MEASURE(o.count) FROM orders o JOIN customers c ON o.__cubeJoinField = c.__cubeJoinField GROUP BY 1',
      ),
    ).toMatchObject({ dimensions: ['customers.country'], measures: ['orders.count'] });
  });

  it('plans outer SQL over semantic CTEs and subqueries, with the row limit at the top', () => {
    const p = plan(`WITH s AS (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1)
      SELECT status, n, n * 100.0 / SUM(n) OVER () AS share, RANK() OVER (ORDER BY n DESC) AS r,
             CASE WHEN n > 10 THEN 'many' ELSE 'few' END AS size
      FROM s WHERE status IN (SELECT status FROM orders GROUP BY 1) ORDER BY n DESC`);
    expect(p.semantic).toHaveLength(2);
    expect(p.sql).toMatch(/WITH "s" AS/);
    expect(p.sql).toMatch(/LIMIT 50000$/);
    expect(p.columns.map((c) => c.name)).toEqual(['status', 'n', 'share', 'r', 'size']);
  });

  it('numbers parameters across semantic queries', () => {
    const p = plan(
      "SELECT a.status FROM (SELECT status FROM orders WHERE status = 'x' GROUP BY 1) a JOIN (SELECT status FROM orders WHERE status = 'y' GROUP BY 1) b ON a.status = b.status",
    );
    expect(p.params).toEqual(['x', 'y']);
    expect(p.sql).toContain('$2');
  });

  it('caps LIMIT at 50,000 rows', () => {
    expect(query('SELECT status FROM orders GROUP BY 1 LIMIT 90000').limit).toBe(50_000);
  });
});
