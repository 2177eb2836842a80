import type { CubeQuery, ModelFile } from '../src/index.ts';

/**
 * Multi-stage measures and geo dimensions for the golden SQL (golden.test.ts), on the fixture's
 * orders table: a time_shift (each dialect's interval), a rank (each dialect's window order with
 * PostgreSQL's null placement), a share of a total (stages side by side: FULL JOIN, refused where
 * there is none) and a geo value (each dialect's text cast). Their rows on DuckDB, PostgreSQL,
 * MariaDB and ClickHouse are checked by Cube's cases (test/cube/multi-stage.test.ts).
 */
export const stagesModelFile: ModelFile = {
  path: 'model/order_stages.yml',
  content: `cubes:
  - name: order_stages
    sql_table: orders
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
      - name: place
        type: geo
        latitude:
          sql: amount
        longitude:
          sql: customer_id
    measures:
      - name: revenue
        type: sum
        sql: amount
      - name: revenue_month_before
        multi_stage: true
        type: sum
        sql: "{revenue}"
        time_shift:
          - time_dimension: created_at
            interval: 1 month
            type: prior
      - name: revenue_rank
        multi_stage: true
        type: rank
        order_by:
          - sql: "{revenue}"
            dir: desc
        reduce_by: [order_stages.status]
      - name: revenue_total
        multi_stage: true
        type: sum
        sql: "{revenue}"
        group_by: []
      - name: revenue_share
        multi_stage: true
        type: number
        sql: "100.0 * {revenue} / NULLIF({revenue_total}, 0)"
`,
};

const months: CubeQuery['timeDimensions'] = [
  { dimension: 'order_stages.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
];

export const stageQueries: Record<string, CubeQuery> = {
  stages_time_shift_month_before: { measures: ['order_stages.revenue_month_before'], timeDimensions: months },
  stages_rank_by_status: { measures: ['order_stages.revenue_rank'], dimensions: ['order_stages.status'] },
  stages_share_of_total: {
    measures: ['order_stages.revenue', 'order_stages.revenue_share'],
    dimensions: ['order_stages.status'],
  },
  stages_geo_place: { measures: ['order_stages.revenue'], dimensions: ['order_stages.place'] },
};
