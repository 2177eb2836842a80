import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileModelOrThrow, compileQuery, type DialectName } from '../src/index.ts';
import { duckdbEngine, type Engine, postgresAvailable, postgresEngine } from './engines.ts';
import { ADMIN, fixtureFiles, NOW } from './fixtures/model.ts';

/**
 * The SQL shapes the planner picks for speed (bench/data-api) must answer exactly what the
 * hand-written SQL for the same question answers, on every engine:
 * - date ranges compare the raw time column with bound UTC wall-clock timestamps, on PostgreSQL
 *   `$n::timestamp` (dialect/postgres.ts), for `timestamp` and `timestamptz` columns alike;
 * - rolling windows first keep the rows between two raw UTC bounds (planner/rolling.ts rawBounds),
 *   a superset of the window's rows, before the exact local-time window condition.
 */
const shapesCube = `cubes:
  - name: shapes
    sql_table: orders
    measures:
      - name: count
        type: count
      - name: rolling_7d
        type: sum
        sql: amount
        rolling_window:
          trailing: 7 day
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
`;
// the same orders with a `timestamptz` column (PostgreSQL only; created in the UTC session)
const tzCube = shapesCube
  .replace('name: shapes', 'name: shapes_tz')
  .replace('sql_table: orders', 'sql_table: orders_tz');
const model = compileModelOrThrow([
  ...fixtureFiles(),
  { path: 'model/shapes.yml', content: shapesCube },
  { path: 'model/shapes_tz.yml', content: tzCube },
]);

const pgUp = await postgresAvailable();
const engines: Partial<Record<DialectName, Engine>> = {};

beforeAll(async () => {
  engines.duckdb = await duckdbEngine();
  if (pgUp) {
    engines.postgres = await postgresEngine();
    await engines.postgres.run(
      'CREATE TABLE orders_tz AS SELECT id, status, amount, created_at::timestamptz AS created_at FROM orders',
      [],
    );
  }
});
afterAll(async () => {
  await engines.duckdb?.close();
  await engines.postgres?.close();
});

/** The engines of this file (MariaDB's hand-written SQL is in mariadb.test.ts). */
type HandEngine = 'duckdb' | 'postgres';

/** The wall clock in a zone, as each engine writes it by hand. */
const local: Record<HandEngine, (col: string, tz: string) => string> = {
  duckdb: (col, tz) => `((${col} AT TIME ZONE 'UTC') AT TIME ZONE '${tz}')`,
  postgres: (col, tz) => `((${col})::timestamptz AT TIME ZONE '${tz}')`,
};
/** Days from `from` to `to` inclusive. */
const days: Record<HandEngine, (from: string, to: string) => string> = {
  duckdb: (from, to) =>
    `SELECT range AS day FROM range(TIMESTAMP '${from}', TIMESTAMP '${to}' + INTERVAL 1 DAY, INTERVAL 1 DAY)`,
  postgres: (from, to) =>
    `SELECT day FROM generate_series(TIMESTAMP '${from}', TIMESTAMP '${to}', INTERVAL '1 day') AS day`,
};

/** A trailing 7-day sum per local day: the rows of (day - 6 days, day + 1 day), by hand. */
function handRolling(d: HandEngine, table: string, tz: string, from: string, to: string): string {
  const t = local[d]('o.created_at', tz);
  return `SELECT days.day, (SELECT sum(o.amount) FROM ${table} o
      WHERE ${t} >= days.day - INTERVAL '6 days' AND ${t} < days.day + INTERVAL '1 day') AS amount
    FROM (${days[d](from, to)}) AS days ORDER BY 1`;
}

interface Case {
  query: CubeQuery;
  hand: (d: HandEngine) => string;
  postgresOnly?: boolean;
}

const byDay = (cube: string, dateRange: [string, string], extra: Partial<CubeQuery> = {}): CubeQuery => ({
  measures: [`${cube}.count`],
  timeDimensions: [{ dimension: `${cube}.created_at`, granularity: 'day', dateRange }],
  ...extra,
});

const cases: Record<string, Case> = {
  // bench/data-api filtered_week: the range's last day is kept whole, the next day's orders are not
  date_range_filter_by_day: {
    query: byDay('shapes', ['2024-01-01', '2024-03-05'], {
      filters: [{ member: 'shapes.status', operator: 'equals', values: ['completed'] }],
    }),
    hand: () => `SELECT date_trunc('day', created_at) AS day, count(*) AS n FROM orders
      WHERE status = 'completed' AND created_at >= TIMESTAMP '2024-01-01' AND created_at < TIMESTAMP '2024-03-06'
      GROUP BY 1 ORDER BY 1`,
  },
  // local days in New York: the UTC bounds are 05:00, and two orders fall on local 2024-01-31
  date_range_filter_new_york: {
    query: byDay('shapes', ['2024-01-31', '2024-02-01'], { timezone: 'America/New_York' }),
    hand: (
      d,
    ) => `SELECT date_trunc('day', ${local[d]('created_at', 'America/New_York')}) AS day, count(*) AS n
      FROM orders WHERE created_at >= TIMESTAMP '2024-01-31 05:00:00' AND created_at < TIMESTAMP '2024-02-02 05:00:00'
      GROUP BY 1 ORDER BY 1`,
  },
  date_range_filter_timestamptz_column: {
    postgresOnly: true,
    query: byDay('shapes_tz', ['2024-01-31', '2024-02-01'], { timezone: 'America/New_York' }),
    hand: () => `SELECT date_trunc('day', created_at AT TIME ZONE 'America/New_York') AS day, count(*) AS n
      FROM orders_tz WHERE created_at >= TIMESTAMPTZ '2024-01-31 05:00:00Z' AND created_at < TIMESTAMPTZ '2024-02-02 05:00:00Z'
      GROUP BY 1 ORDER BY 1`,
  },
  // the first windows reach back to the order of 2024-02-20, days before the date range
  rolling_7d_by_day: {
    query: {
      measures: ['shapes.rolling_7d'],
      timeDimensions: [
        { dimension: 'shapes.created_at', granularity: 'day', dateRange: ['2024-02-25', '2024-03-07'] },
      ],
    },
    hand: (d) => handRolling(d, 'orders', 'UTC', '2024-02-25', '2024-03-07'),
  },
  rolling_7d_new_york: {
    query: {
      measures: ['shapes.rolling_7d'],
      timeDimensions: [
        { dimension: 'shapes.created_at', granularity: 'day', dateRange: ['2024-01-21', '2024-02-03'] },
      ],
      timezone: 'America/New_York',
    },
    hand: (d) => handRolling(d, 'orders', 'America/New_York', '2024-01-21', '2024-02-03'),
  },
  rolling_7d_timestamptz_column: {
    postgresOnly: true,
    query: {
      measures: ['shapes_tz.rolling_7d'],
      timeDimensions: [
        { dimension: 'shapes_tz.created_at', granularity: 'day', dateRange: ['2024-01-21', '2024-02-03'] },
      ],
      timezone: 'America/New_York',
    },
    hand: (d) => handRolling(d, 'orders_tz', 'America/New_York', '2024-01-21', '2024-02-03'),
  },
  // no granularity: one window, the 7 days up to the range's end
  rolling_7d_whole_range: {
    query: {
      measures: ['shapes.rolling_7d'],
      timeDimensions: [{ dimension: 'shapes.created_at', dateRange: ['2024-02-01', '2024-03-05'] }],
    },
    hand: () => `SELECT sum(amount) FROM orders
      WHERE created_at >= TIMESTAMP '2024-02-28' AND created_at < TIMESTAMP '2024-03-06'`,
  },
};

/** Values only, in order: numbers as numbers, times as `YYYY-MM-DD HH:mm:ss`. */
function values(rows: Record<string, unknown>[]): unknown[][] {
  const value = (v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (v instanceof Date) return v.toISOString().slice(0, 19).replace('T', ' ');
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'object') return String(v).slice(0, 19).replace('T', ' ');
    return v;
  };
  return rows.map((r) => Object.values(r).map(value));
}

describe.each(['duckdb', 'postgres'] as const)('planner shapes on %s', (dialect) => {
  for (const [name, c] of Object.entries(cases)) {
    const skip = dialect === 'postgres' ? !pgUp : c.postgresOnly === true;
    it.skipIf(skip)(`${name}: the hand-written SQL's answer`, async () => {
      const engine = engines[dialect]!;
      const compiled = compileQuery(model, c.query, { dialect, now: NOW, securityContext: ADMIN });
      const ours = values(await engine.run(compiled.sql, compiled.params));
      const theirs = values(await engine.run(c.hand(dialect), []));
      expect(ours.length).toBeGreaterThan(0);
      expect(ours).toEqual(theirs);
    });
  }
});
