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
