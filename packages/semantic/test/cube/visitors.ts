import type { Tables } from '../fixtures/data.ts';

/**
 * The data of Cube's PostgreSQL integration tests (PostgresDBRunner.prepareFixture): visitors with
 * their check-ins and cards. Times are midnight UTC, the evening before in Los Angeles.
 */
export const visitorTables: Tables = {
  visitors: {
    columns: {
      id: 'INTEGER',
      amount: 'INTEGER',
      created_at: 'TIMESTAMP',
      updated_at: 'TIMESTAMP',
      status: 'INTEGER',
      source: 'TEXT',
    },
    rows: [
      [1, 100, '2017-01-03 00:00:00', '2017-01-30 00:00:00', 1, 'some'],
      [2, 200, '2017-01-05 00:00:00', '2017-01-15 00:00:00', 1, 'some'],
      [3, 300, '2017-01-06 00:00:00', '2017-01-20 00:00:00', 2, 'google'],
      [4, 400, '2017-01-07 00:00:00', '2017-01-25 00:00:00', 2, null],
      [5, 500, '2017-01-07 00:00:00', '2017-01-25 00:00:00', 2, null],
      [6, 500, '2016-09-07 00:00:00', '2016-09-07 00:00:00', 2, null],
    ],
  },
  visitor_checkins: {
    columns: { id: 'INTEGER', visitor_id: 'INTEGER', created_at: 'TIMESTAMP', source: 'TEXT' },
    rows: [
      [1, 1, '2017-01-03 00:00:00', null],
      [2, 1, '2017-01-04 00:00:00', null],
      [3, 1, '2017-01-05 00:00:00', 'google'],
      [4, 2, '2017-01-05 00:00:00', null],
      [5, 2, '2017-01-05 00:00:00', null],
      [6, 3, '2017-01-06 00:00:00', null],
    ],
  },
  cards: {
    columns: { id: 'INTEGER', visitor_id: 'INTEGER', visitor_checkin_id: 'INTEGER' },
    rows: [
      [1, 1, 1],
      [2, 1, 2],
      [3, 3, 6],
    ],
  },
  left_table: {
    columns: { id: 'INTEGER', total: 'DOUBLE', description: 'TEXT' },
    rows: ['ABC', 'BAC', 'BCA', 'CBA', 'CAB', 'ACB'].map((d, i) => [i + 1, 2.5, d]),
  },
  right_table: {
    columns: { id: 'INTEGER', total: 'DOUBLE', description: 'TEXT' },
    rows: ['ABC', 'BAC', 'BCA', 'CBA', 'CAB', 'ACB'].map((d, i) => [i + 1, 2.5, d]),
  },
  mid_table: {
    columns: { id: 'INTEGER', left_id: 'INTEGER', right_id: 'INTEGER' },
    rows: [1, 2, 3, 4, 5, 6].map((i) => [i, i, i]),
  },
  compound_key_cards: {
    columns: {
      id_a: 'INTEGER',
      id_b: 'INTEGER',
      visitor_id: 'INTEGER',
      visitor_checkin_id: 'INTEGER',
      visit_rank: 'INTEGER',
    },
    rows: [
      [1, 1, 1, 1, 10],
      [2, 1, 1, 2, 5],
      [2, 2, 3, 6, 7],
      [2, 2, 2, 4, 8],
      [2, 3, 4, 5, 2],
    ],
  },
};

/**
 * The visitors model of Cube's sql-generation tests, in YAML; the cubes'
 * security-context and FILTER_PARAMS conditions are left out (they are true without a context),
 * which changes no result of the cases ported here.
 */
export const visitorModel = `
cubes:
  - name: visitors
    sql_table: visitors
    joins:
      - name: visitor_checkins
        relationship: has_many
        sql: "{CUBE}.id = {visitor_checkins}.visitor_id"
    measures:
      - name: visitor_count
        type: number
        sql: count(*)
      - name: revenue
        type: sum
        sql: amount
      - name: visitor_revenue
        type: sum
        sql: amount
        filters:
          - sql: "{CUBE}.source = 'some'"
      - name: per_visitor_revenue
        type: number
        sql: "{visitor_revenue} / {visitor_count}"
      - name: revenueRunning
        type: running_total
        sql: amount
      - name: revenueRolling
        type: sum
        sql: amount
        rolling_window:
          trailing: 2 day
          offset: start
      - name: revenueRolling3day
        type: sum
        sql: amount
        rolling_window:
          trailing: 3 day
          offset: start
      - name: countRolling
        type: count
        rolling_window:
          trailing: 2 day
          offset: start
      - name: revenue_qtd
        type: sum
        sql: amount
        rolling_window:
          type: to_date
          granularity: quarter
      - name: runningCount
        type: running_total
        sql: "1"
      - name: runningRevenuePerCount
        type: number
        sql: "round({revenueRunning} / {runningCount})"
      - name: strCase
        type: string
        sql: "CASE WHEN {visitor_count} > 1 THEN 'More than 1' ELSE ({visitor_revenue})::text END"
      - name: unique_sources
        type: count_distinct
        sql: source
      - name: foo
        type: count
      - name: bar
        type: count
      - name: averageCheckins
        type: avg
        sql: "{doubledCheckings}"
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source
      - name: created_at
        type: time
        sql: created_at
      - name: updated_at
        type: time
        sql: updated_at
      - name: questionMark
        type: string
        sql: "replace('some string question string???', 'string', 'with some ???')"
      - name: checkins
        type: number
        sql: "{visitor_checkins.visitor_checkins_count}"
        sub_query: true
      - name: checkinsRolling
        type: number
        sql: "{visitor_checkins.visitorCheckinsRolling}"
        sub_query: true
      - name: checkinsWithPropagation
        type: number
        sql: "{visitor_checkins.visitor_checkins_count}"
        sub_query: true
        propagate_filters_to_sub_query: true
      - name: subQueryFail
        type: number
        sql: "2"
        sub_query: true
      - name: doubledCheckings
        type: number
        sql: "{checkins} * 2"
      - name: minVisitorCheckinDate
        type: time
        sql: "{visitor_checkins.minDate}"
        sub_query: true

  - name: visitor_checkins
    sql_table: visitor_checkins
    joins:
      - name: cards
        relationship: has_many
        sql: "{CUBE}.id = {cards}.visitor_checkin_id"
    measures:
      - name: visitor_checkins_count
        type: count
      - name: id_sum
        type: sum
        sql: id
      - name: visitorCheckinsRolling
        type: count
        rolling_window:
          trailing: unbounded
      - name: revenue_per_checkin
        type: number
        sql: "{visitors.visitor_revenue} / {visitor_checkins_count}"
      - name: google_sourced_checkins
        type: count
        sql: id
        filters:
          - sql: "{visitors}.source = 'google'"
      - name: unique_google_sourced_checkins
        type: count_distinct
        sql: id
        filters:
          - sql: "{visitors}.source = 'google'"
      - name: unique_sources_per_checking
        type: number
        sql: "{visitors.unique_sources} / {visitor_checkins_count}"
      - name: minDate
        type: min
        sql: created_at
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: visitor_id
        type: number
        sql: visitor_id
      - name: source
        type: string
        sql: source
      - name: created_at
        type: time
        sql: created_at
      - name: cardsCount
        type: number
        sql: "{cards.count}"
        sub_query: true

  - name: visitor_checkins_sources
    sql: select id, source from visitor_checkins
    joins:
      - name: cards
        relationship: has_many
        sql: "{CUBE}.id = {cards}.visitor_checkin_id"
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: source
        type: string
        sql: source

  - name: cards
    sql: select * from cards
    joins:
      - name: visitors
        relationship: belongs_to
        sql: "{visitors}.id = {cards}.visitor_id"
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true

  - name: compound
    sql: select * from compound_key_cards
    joins:
      - name: visitors
        relationship: belongs_to
        sql: "{visitors}.id = {CUBE}.visitor_id"
    measures:
      - name: count
        type: count
      - name: rank_avg
        type: avg
        sql: visit_rank
    dimensions:
      - name: id_a
        type: number
        sql: id_a
        primary_key: true
      - name: id_b
        type: number
        sql: id_b
        primary_key: true

  - name: left_cube
    sql: SELECT * FROM left_table
    measures:
      - name: total_sum
        type: sum
        sql: total
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: description
        type: string
        sql: description

  - name: right_cube
    sql: SELECT * FROM right_table
    measures:
      - name: total_sum
        type: sum
        sql: total
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true
      - name: description
        type: string
        sql: description

  - name: mid_cube
    sql: SELECT * FROM mid_table
    joins:
      - name: left_cube
        relationship: has_many
        sql: "{CUBE}.left_id = {left_cube}.id"
      - name: right_cube
        relationship: has_many
        sql: "{CUBE}.right_id = {right_cube}.id"
    dimensions:
      - name: id
        type: number
        sql: id
        primary_key: true

views:
  - name: visitors_visitors_checkins_view
    cubes:
      - join_path: visitors
        includes: [revenue, source, updated_at, visitor_revenue]
      - join_path: visitors.visitor_checkins
        includes: [visitor_checkins_count, id_sum]
`;
