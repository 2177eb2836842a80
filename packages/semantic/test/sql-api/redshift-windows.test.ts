import { beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser, planSqlQuery } from '../../src/index.ts';
import { ADMIN, fixtureModel, NOW } from '../fixtures/model.ts';

const model = fixtureModel();
beforeAll(() => loadSqlParser());

const redshift = (outer: string) =>
  planSqlQuery(model, `WITH s AS (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1) ${outer}`, {
    dialect: 'redshift',
    securityContext: ADMIN,
    now: NOW,
  }).sql;

/**
 * The SQL API's outer SQL on Redshift (AWS's window functions page: `frame_clause` is ROWS only,
 * and an aggregate window function with ORDER BY needs one; CURRENT_TIMESTAMP and NOW() run on
 * the leader node only): what prints the same rows is printed, the rest refused naming Redshift.
 */
describe('SQL API windows and clock on Redshift', () => {
  it('prints ROWS frames, ranking without a frame, and aggregates over a whole partition', () => {
    const sql = redshift(`SELECT status,
        SUM(n) OVER (ORDER BY n ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS moving,
        RANK() OVER (ORDER BY n DESC) AS r, SUM(n) OVER () AS total FROM s`);
    expect(sql).toMatch(/OVER \(ORDER BY "n" ROWS BETWEEN 1 PRECEDING AND CURRENT ROW\)/);
    expect(sql).toMatch(/rank\(\) OVER \(ORDER BY "n" DESC\)/i);
    expect(sql).toMatch(/sum\("n"\) OVER \(\)/i);
  });

  it('prints RANGE over the whole partition as the same ROWS frame', () => {
    const sql = redshift(
      'SELECT status, MAX(n) OVER (ORDER BY n RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS m FROM s',
    );
    expect(sql).toMatch(/ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING/);
  });

  it.each([
    [
      'SELECT status, SUM(n) OVER (ORDER BY n RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS x FROM s',
      /Window frames in RANGE mode are not supported on Redshift: it takes ROWS frames only/,
    ],
    [
      'SELECT status, SUM(n) OVER (ORDER BY n GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS x FROM s',
      /Window frames in GROUPS mode are not supported on Redshift/,
    ],
    [
      'SELECT status, SUM(n) OVER (ORDER BY n) AS running FROM s',
      /Window function sum with ORDER BY needs an explicit frame on Redshift/,
    ],
  ])('refuses %s', (outer, words) => {
    expect(() => redshift(outer)).toThrow(words);
  });

  it('reads the clock with GETDATE()', () => {
    const sql = redshift('SELECT status, CURRENT_TIMESTAMP AS t, NOW() AS u FROM s');
    expect(sql.match(/GETDATE\(\)/g)).toHaveLength(2);
    expect(sql).not.toMatch(/CURRENT_TIMESTAMP|now\(/i);
  });

  it('leaves PostgreSQL as it was', () => {
    const sql = planSqlQuery(
      model,
      'WITH s AS (SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1) SELECT SUM(n) OVER (ORDER BY n) AS x, NOW() AS t FROM s',
      { dialect: 'postgres', securityContext: ADMIN, now: NOW },
    ).sql;
    expect(sql).toMatch(/OVER \(ORDER BY "n"\)/);
    expect(sql).toMatch(/now\(\)/i);
  });
});
