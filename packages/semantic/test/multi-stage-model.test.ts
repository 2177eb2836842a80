import { describe, expect, it } from 'vitest';
import {
  type CubeQuery,
  compileModel,
  compileModelOrThrow,
  compileQuery,
  getMeta,
  UserError,
} from '../src/index.ts';
import { duckdbEngine, runQuery } from './engines.ts';

/**
 * Multi-stage measures outside the ported Cube cases (cube/multi-stage.test.ts): what the model
 * refuses, with file, line, cube and member (issue 15: an unsupported construct is a model error,
 * never SQL sent to the database), and how the measures show in /v1/meta.
 */
const refused = `cubes:
  - name: sales
    sql_table: sales
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: region
        type: string
        sql: region
      - name: sold_at
        type: time
        sql: sold_at
      - name: amount_bucket
        type: number
        sql: "CASE WHEN {amount} > 10 THEN 1 ELSE 0 END"
        multi_stage: true
    measures:
      - name: amount
        type: sum
        sql: amount
      - name: fiscal_shift
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - name: fiscal_year
      - name: bad_interval
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - time_dimension: sold_at
            interval: 1 fortnight
            type: prior
      - name: shift_on_text
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - time_dimension: region
            interval: 1 day
            type: prior
      - name: not_staged
        type: sum
        sql: amount
        time_shift:
          - interval: 1 day
      - name: rolling_stage
        multi_stage: true
        type: number
        sql: "{amount}"
        rolling_window:
          trailing: 2 day
      - name: median_stage
        multi_stage: true
        type: count_distinct_approx
        sql: "{amount}"
      - name: rank_without_order
        multi_stage: true
        type: rank
      - name: share_by_nowhere
        multi_stage: true
        type: sum
        sql: "{amount}"
        group_by: [nowhere]
      - name: bucketed_number
        multi_stage: true
        type: number
        sql: "{amount}"
        add_group_by: [sold_at.month]
      - name: row_sql
        multi_stage: true
        type: sum
        sql: "{CUBE}.amount"
  - name: other
    sql_table: sales
    dimensions:
      - name: region
        type: string
        sql: region
    measures:
      - name: amount
        type: sum
        sql: amount
`;

const good = `cubes:
  - name: sales
    sql_table: sales
    dimensions:
      - name: region
        type: string
        sql: region
      - name: sold_at
        type: time
        sql: sold_at
    measures:
      - name: amount
        type: sum
        sql: amount
      - name: amount_week_ago
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - time_dimension: sold_at
            interval: 1 week
            type: prior
      - name: amount_next_week
        multi_stage: true
        type: sum
        sql: "{amount}"
        time_shift:
          - time_dimension: sold_at
            interval: 1 week
            type: next
      - name: region_rank
        multi_stage: true
        type: rank
        order_by:
          - sql: "{amount}"
            dir: desc
        reduce_by: [region]
      - name: week_share
        multi_stage: true
        type: number
        sql: "100.0 * {amount} / NULLIF({amount_all_regions}, 0)"
      - name: amount_all_regions
        multi_stage: true
        type: sum
        sql: "{amount}"
        reduce_by: [region]
`;

const salesTables = {
  sales: {
    columns: { id: 'INTEGER', region: 'TEXT', amount: 'INTEGER', sold_at: 'TIMESTAMP' } as const,
    rows: [
      [1, 'north', 10, '2024-01-01 10:00:00'],
      [2, 'south', 30, '2024-01-02 10:00:00'],
      [3, 'north', 20, '2024-01-08 10:00:00'],
      [4, 'south', 5, '2024-01-09 10:00:00'],
      [5, 'north', 40, '2024-01-15 10:00:00'],
    ],
  },
};

describe('multi-stage measures in the model', () => {
  it('refuses what it cannot plan, naming file, line, cube and member', () => {
    const { model, errors } = compileModel([{ path: 'model/sales.yml', content: refused }]);
    const byMember = (member: string) =>
      errors
        .filter((e) => e.member === member)
        .map((e) => `${e.file}:${e.line} ${e.cube}.${e.member}: ${e.message}`);
    expect(byMember('amount_bucket')).toContain(
      'model/sales.yml:18 sales.amount_bucket: Multi-stage dimensions are not supported',
    );
    expect(byMember('fiscal_shift')).toEqual([
      "model/sales.yml:27 sales.fiscal_shift: time_shift: named calendar shifts ('fiscal_year') are not supported",
    ]);
    expect(byMember('bad_interval')).toEqual([
      "model/sales.yml:33 sales.bad_interval: time_shift: invalid interval '1 fortnight'",
    ]);
    expect(byMember('shift_on_text')).toEqual([
      expect.stringMatching(
        /^model\/sales\.yml:\d+ sales\.shift_on_text: time_shift: sales\.region is not a time dimension$/,
      ),
    ]);
    expect(byMember('not_staged')).toEqual([
      'model/sales.yml:48 sales.not_staged: time_shift needs multi_stage: true',
    ]);
    expect(byMember('rolling_stage')).toEqual([
      'model/sales.yml:54 sales.rolling_stage: rolling_window on a multi-stage measure of type number is not supported',
    ]);
    expect(byMember('median_stage')).toEqual([
      expect.stringContaining('type count_distinct_approx are not supported'),
    ]);
    expect(byMember('rank_without_order')).toEqual([
      expect.stringContaining('A rank measure needs order_by'),
    ]);
    expect(byMember('share_by_nowhere')).toEqual([
      expect.stringContaining("group_by: 'nowhere' is not a dimension of the model"),
    ]);
    expect(byMember('bucketed_number')).toEqual([
      expect.stringContaining('add_group_by on a multi-stage measure of type number are not supported'),
    ]);
    expect(byMember('row_sql')).toEqual([
      expect.stringContaining('may reference only measures and dimensions'),
    ]);
    // the other cube of the same file is intact
    expect(errors.filter((e) => e.cube === 'other')).toEqual([]);
    expect(model.cubes.get('other')!.measures.get('amount')!.multiStage).toBeNull();
  });

  it('lists multi-stage measures in /v1/meta as number measures', () => {
    const meta = getMeta(compileModelOrThrow([{ path: 'm.yml', content: good }]), {});
    const measures = meta.cubes.find((c) => c.name === 'sales')!.measures;
    expect(measures.map((m) => [m.name, m.type, m.aggType])).toEqual([
      ['sales.amount', 'number', 'sum'],
      ['sales.amount_week_ago', 'number', 'sum'],
      ['sales.amount_next_week', 'number', 'sum'],
      ['sales.region_rank', 'number', 'rank'],
      ['sales.week_share', 'number', 'number'],
      ['sales.amount_all_regions', 'number', 'sum'],
    ]);
  });

  it('shifts prior and next, ranks and shares per week (hand-computed)', async () => {
    const model = compileModelOrThrow([{ path: 'm.yml', content: good }]);
    const engine = await duckdbEngine(salesTables);
    try {
      const run = (query: CubeQuery) =>
        runQuery(engine, compileQuery(model, query, { dialect: 'duckdb', securityContext: {} }));
      const weekly = await run({
        measures: ['sales.amount', 'sales.amount_week_ago', 'sales.amount_next_week'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'week', dateRange: ['2024-01-01', '2024-01-21'] },
        ],
        order: { 'sales.sold_at': 'asc' },
      });
      expect(
        weekly.map((r) => [
          r['sales.sold_at.week'],
          r['sales.amount'],
          r['sales.amount_week_ago'],
          r['sales.amount_next_week'],
        ]),
      ).toEqual([
        ['2024-01-01T00:00:00.000', '40', null, '25'],
        ['2024-01-08T00:00:00.000', '25', '40', '40'],
        ['2024-01-15T00:00:00.000', '40', '25', null],
      ]);
      const ranked = await run({
        measures: ['sales.amount', 'sales.region_rank', 'sales.week_share'],
        dimensions: ['sales.region'],
        timeDimensions: [
          { dimension: 'sales.sold_at', granularity: 'week', dateRange: ['2024-01-01', '2024-01-14'] },
        ],
        order: [
          ['sales.sold_at', 'asc'],
          ['sales.region', 'asc'],
        ],
      });
      expect(
        ranked.map((r) => [
          r['sales.region'],
          r['sales.amount'],
          r['sales.region_rank'],
          Number(r['sales.week_share']),
        ]),
      ).toEqual([
        ['north', '10', '2', 25],
        ['south', '30', '1', 75],
        ['north', '20', '1', 80],
        ['south', '5', '2', 20],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('computes every stage under the row-level policy: a share of total is of the rows the context may read', async () => {
    const guarded = `${good}    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ userAttributes.region }"]
views:
  - name: sales_view
    cubes:
      - join_path: sales
        includes: [region, sold_at, amount, amount_all_regions, amount_week_ago]
`;
    const model = compileModelOrThrow([{ path: 'm.yml', content: guarded }]);
    const engine = await duckdbEngine(salesTables);
    const north = { serviceCloud: { groups: ['staff'], userAttributes: { region: 'north' } } };
    try {
      for (const owner of ['sales', 'sales_view']) {
        const rows = await runQuery(
          engine,
          compileQuery(
            model,
            {
              measures: [`${owner}.amount`, `${owner}.amount_all_regions`, `${owner}.amount_week_ago`],
              dimensions: [`${owner}.region`],
              timeDimensions: [{ dimension: `${owner}.sold_at`, dateRange: ['2024-01-08', '2024-01-14'] }],
            },
            { dialect: 'duckdb', securityContext: north },
          ),
        );
        // north only: 20 in the week of the 8th, 10 the week before; south's 35 and 30 never show
        expect(rows).toEqual([
          {
            [`${owner}.region`]: 'north',
            [`${owner}.amount`]: '20',
            [`${owner}.amount_all_regions`]: '20',
            [`${owner}.amount_week_ago`]: '10',
          },
        ]);
      }
    } finally {
      await engine.close();
    }
  });

  it('refuses, by name, a rank ordered by a dimension the query does not have', () => {
    const model = compileModelOrThrow([
      {
        path: 'm.yml',
        content: `${good}      - name: sale_order
        multi_stage: true
        type: rank
        order_by:
          - sql: "{sold_at}"
            dir: asc
        reduce_by: [sold_at]
`,
      },
    ]);
    expect(() =>
      compileQuery(
        model,
        { measures: ['sales.sale_order'], dimensions: ['sales.region'] },
        { dialect: 'duckdb', securityContext: {} },
      ),
    ).toThrow(new UserError('sales.sale_order needs sales.sold_at in the query (or in add_group_by)'));
  });

  it('refuses an ungrouped query with a multi-stage measure as a bad query', () => {
    const model = compileModelOrThrow([{ path: 'm.yml', content: good }]);
    expect(() =>
      compileQuery(
        model,
        {
          measures: ['sales.amount_week_ago'],
          dimensions: ['sales.region'],
          ungrouped: true,
          allowUngroupedWithoutPrimaryKey: true,
        },
        { dialect: 'duckdb', securityContext: {} },
      ),
    ).toThrow(UserError);
  });
});
