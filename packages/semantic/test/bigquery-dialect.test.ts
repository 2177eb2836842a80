import { describe, expect, it } from 'vitest';
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
 * What the shared golden suite (golden/*.bigquery.golden.sql) does not print for BigQuery: a
 * median, a rolling window mixing months and days, an identifier with a backtick.
 */
const extra = {
  path: 'model/bigquery_extra.yml',
  content: `cubes:
  - name: shapes
    sql_table: orders
    measures:
      - name: median_amount
        type: median
        sql: amount
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
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
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
  compileQuery(model, query, { dialect: 'bigquery', securityContext: ADMIN, now: NOW });

describe('BigQuery dialect', () => {
  it('computes an exact median: PERCENTILE_CONT over the group gathered by ARRAY_AGG, NULLs left out', () => {
    const { sql } = compile({ measures: ['shapes.median_amount'], dimensions: ['shapes.status'] });
    expect(sql).toContain(
      '(SELECT PERCENTILE_CONT(`__v`, 0.5) OVER () FROM UNNEST(ARRAY_AGG(`shapes`.amount IGNORE NULLS)) AS `__v` LIMIT 1)',
    );
    expect(sql).not.toMatch(/APPROX_QUANTILES/);
  });

  it('moves a wall clock by months and days at once with MAKE_INTERVAL', () => {
    const { sql } = compile({
      measures: ['shapes.amount_month_and_days'],
      timeDimensions: [
        { dimension: 'shapes.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
    });
    expect(sql).toContain('- MAKE_INTERVAL(0, 1, 2, 0, 0, 0)');
    expect(sql).not.toMatch(/TIMESTAMP_ADD|TIMESTAMP_SUB/);
  });

  it('quotes identifiers with backticks, a backtick or backslash in a name escaped as in a string literal', () => {
    expect(DIALECTS.bigquery.quoteIdentifier('a`b\\c')).toBe('`a\\`b\\\\c`');
  });

  it('truncates weeks to Monday (ISOWEEK), as PostgreSQL', () => {
    expect(DIALECTS.bigquery.dateTrunc('week', 'x')).toBe('DATETIME_TRUNC(x, ISOWEEK)');
  });

  it('refuses the SQL API, whose PostgreSQL outer SQL would read double-quoted names as strings', async () => {
    await loadSqlParser();
    expect(() =>
      planSqlQuery(model, 'SELECT status, MEASURE(count) FROM orders GROUP BY 1', {
        dialect: 'bigquery',
        securityContext: ADMIN,
        now: NOW,
      }),
    ).toThrow(/^The SQL API is not supported on BigQuery: /);
  });

  it("inlines a pre-aggregation build's values as GoogleSQL literals (@pN replaced, a quote as \\')", () => {
    const daily = model.cubes.get('shapes')!.preAggregations.get('daily')!;
    const range = { from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 2) - 1 };
    const { sql } = rollupBuildSql(model, daily, 'bigquery', range);
    expect(sql).not.toMatch(/@p\d/);
    expect(sql).toContain("CAST('2024-01-01 00:00:00.000' AS TIMESTAMP)");
    expect(DIALECTS.bigquery.stringLiteral!("it's C:\\temp")).toBe("'it\\'s C:\\\\temp'");
  });
});
