import { describe, expect, it } from 'vitest';
import { type CubeQuery, compileModelOrThrow, compileQuery } from '../src/index.ts';
import { ADMIN, fixtureFiles, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * Athena engine version 3 runs Trino's SQL (src/dialect/athena.ts), so the Athena dialect prints
 * exactly the Trino dialect's SQL for the whole shared suite: the Trino checks (golden SQL, and
 * test/trino-sql-on-duckdb.test.ts on DuckDB) cover it, and the server's Athena test runs the
 * suite through its protocol server. Only a refusal differs: its words name Athena.
 */
const extra = {
  path: 'model/athena_extra.yml',
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
      - name: created_at
        sql: created_at
        type: time
`,
};
const model = compileModelOrThrow([...fixtureFiles(), extra]);
const compile = (query: CubeQuery, dialect: 'athena' | 'trino') =>
  compileQuery(model, query, { dialect, securityContext: ADMIN, now: NOW });

describe('Athena prints Trino SQL', () => {
  for (const [name, query] of Object.entries(queries)) {
    it(name, () => {
      const athena = compile(query, 'athena');
      const trino = compile(query, 'trino');
      expect(athena.sql).toBe(trino.sql);
      expect(athena.params).toEqual(trino.params);
      expect(athena.totalSql).toEqual(trino.totalSql);
    });
  }
});

describe('Athena refuses what it cannot compute, naming the feature and Athena', () => {
  it('a median', () => {
    expect(() => compile({ measures: ['shapes.median_amount'] }, 'athena')).toThrow(
      /^Median measures are not supported on Athena: /,
    );
  });
  it('a rolling window of months and days', () => {
    const query: CubeQuery = {
      measures: ['shapes.amount_month_and_days'],
      timeDimensions: [
        { dimension: 'shapes.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
    };
    expect(() => compile(query, 'athena')).toThrow(
      /^Intervals mixing months, days and times \(1 month 2 days\) are not supported on Athena: /,
    );
  });
});
