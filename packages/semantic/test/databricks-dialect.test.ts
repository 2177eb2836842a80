import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileModelOrThrow,
  compileQuery,
  DIALECTS,
  loadSqlParser,
  planSqlQuery,
  rollupBuildSql,
} from '../src/index.ts';
import { ADMIN, fixtureFiles, NOW } from './fixtures/model.ts';

/**
 * What the golden SQL (test/golden/*.databricks.golden.sql) has no query for: a median, a
 * rolling window in one unit of months, a pre-aggregation build's inlined values, and what
 * Databricks refuses (an interval of months and days, which its year-month and day-time interval
 * types cannot hold as one value; the SQL API).
 */
const extra = {
  path: 'model/databricks_extra.yml',
  content: `cubes:
  - name: shapes
    sql_table: orders
    measures:
      - name: median_amount
        type: median
        sql: amount
      - name: amount_quarter
        type: sum
        sql: amount
        rolling_window:
          trailing: 3 months
      - name: amount_month_and_days
        type: sum
        sql: amount
        rolling_window:
          trailing: 1 month 2 days
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: created_at
        sql: created_at
        type: time
      - name: status
        sql: status
        type: string
    pre_aggregations:
      - name: daily
        measures: [median_amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: day
`,
};
const model = compileModelOrThrow([...fixtureFiles(), extra]);
const compile = (query: CubeQuery) =>
  compileQuery(model, query, { dialect: 'databricks', securityContext: ADMIN, now: NOW });
const monthly = (measure: string): CubeQuery => ({
  measures: [measure],
  timeDimensions: [
    { dimension: 'shapes.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
  ],
});

describe('Databricks dialect', () => {
  it('prints a median as the exact, interpolated percentile_cont', () => {
    expect(compile({ measures: ['shapes.median_amount'] }).sql).toContain(
      'percentile_cont(0.5) WITHIN GROUP (ORDER BY `shapes`.amount)',
    );
  });

  it('prints a window of months as a year-month interval', () => {
    expect(compile(monthly('shapes.amount_quarter')).sql).toContain("INTERVAL '3' MONTH");
  });

  it('refuses an interval of months and days, naming the feature and Databricks', () => {
    expect(() => compile(monthly('shapes.amount_month_and_days'))).toThrow(
      /^Intervals mixing months, days and times \(1 month 2 days\) are not supported on Databricks: /,
    );
  });

  it("inlines a pre-aggregation build's values as Databricks literals (a quote as \\', never '')", () => {
    const daily = model.cubes.get('shapes')!.preAggregations.get('daily')!;
    const range = { from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 2) - 1 };
    const { sql } = rollupBuildSql(model, daily, 'databricks', range);
    expect(sql).not.toMatch(/\$\d/);
    expect(sql).toContain("CAST('2024-01-01 00:00:00.000' AS TIMESTAMP)");
    expect(DIALECTS.databricks.stringLiteral!("it's C:\\temp")).toBe("'it\\'s C:\\\\temp'");
  });

  it('quotes identifiers with backticks, doubling one inside', () => {
    const sql = compile({ measures: ['shapes.median_amount'] }).sql;
    expect(sql).toMatch(/AS `shapes__median_amount`/);
  });
});

describe('Databricks and the SQL API', () => {
  beforeAll(() => loadSqlParser());
  it('refuses /v1/cubesql with a 400 naming the SQL API and Databricks, rather than wrong SQL', () => {
    expect(() =>
      planSqlQuery(model, 'SELECT status, COUNT(*) FROM orders GROUP BY 1', {
        dialect: 'databricks',
        securityContext: ADMIN,
        now: NOW,
      }),
    ).toThrow(/^The SQL API \(\/v1\/cubesql\) is not supported on Databricks: /);
  });
});
