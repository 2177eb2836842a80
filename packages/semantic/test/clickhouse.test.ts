import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileQuery, type DialectName } from '../src/index.ts';
import { clickhouseEngine, duckdbEngine, type Engine, runQuery } from './engines.ts';
import { extraTables, modelWithExtras } from './fixtures/engine-extras.ts';
import { ADMIN, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The ClickHouse dialect on a real ClickHouse: chdb (embedded ClickHouse 26.7), one session for
 * the file, with the settings the driver sends (CLICKHOUSE_SETTINGS) (issue 24 item 1):
 * - the shared query suite gives DuckDB's rows, every query of it (none is refused);
 * - the planner's date-range and rolling-window shapes give what hand-written ClickHouse SQL
 *   gives, through ClickHouse's own zone conversion (toTimeZone), as do hours across both DST
 *   changes in New York and `contains` with a literal `%` and `_` (positionCaseInsensitive);
 * - a median and multi-stage measures combined by a FULL JOIN give DuckDB's rows.
 */
const model = modelWithExtras();

let clickhouse: Engine;
let duck: Engine;
beforeAll(async () => {
  clickhouse = await clickhouseEngine(undefined, extraTables("DateTime64(3, 'UTC')", 'Int64', 'String'));
  duck = await duckdbEngine();
  for (const s of extraTables('TIMESTAMP')) await duck.run(s, []);
});
afterAll(async () => {
  await clickhouse?.close();
  await duck?.close();
});

const compile = (q: CubeQuery, dialect: DialectName) =>
  compileQuery(model, q, { dialect, now: NOW, securityContext: ADMIN });

/** Numbers as strings differ in float digits between engines (Float64 vs DECIMAL); round them. */
function normalize(rows: Record<string, unknown>[]) {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v)
          ? String(Number(Number(v).toFixed(6)))
          : v,
      ]),
    ),
  );
}

/** Values only, in order: numbers as numbers, times as `YYYY-MM-DD HH:mm:ss`. */
function values(rows: Record<string, unknown>[]): unknown[][] {
  const value = (v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (v instanceof Date) return v.toISOString().slice(0, 19).replace('T', ' ');
    if (typeof v === 'bigint') return Number(v);
    if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
    if (typeof v === 'string') return v.slice(0, 19).replace('T', ' ');
    return v;
  };
  return rows.map((r) => Object.values(r).map(value));
}

async function ours(q: CubeQuery) {
  const c = compile(q, 'clickhouse');
  return values(await clickhouse.run(c.sql, c.params));
}
const hand = async (sql: string) => values(await clickhouse.run(sql, []));
const bothEngines = async (q: CubeQuery) => {
  const mine = normalize(await runQuery(clickhouse, compile(q, 'clickhouse')));
  const theirs = normalize(await runQuery(duck, compile(q, 'duckdb')));
  return { mine, theirs };
};

describe('ClickHouse (chdb): the shared query suite gives DuckDB rows', () => {
  for (const [name, query] of Object.entries(queries)) {
    it(name, async () => {
      const { mine, theirs } = await bothEngines(query);
      expect(theirs.length).toBeGreaterThan(0);
      expect(mine).toEqual(theirs);
    });
  }
});

const byDay = (cube: string, dateRange: [string, string], extra: Partial<CubeQuery> = {}): CubeQuery => ({
  measures: [`${cube}.count`],
  timeDimensions: [{ dimension: `${cube}.created_at`, granularity: 'day', dateRange }],
  ...extra,
});
const ny = (col: string) => `toTimeZone(${col}, 'America/New_York')`;
/** A trailing 7-day sum per local day, by hand: a dense day series, daily sums, a 7-row window. */
const handRolling = (tz: string, from: string, to: string) => {
  const day = `toDate(toTimeZone(created_at, '${tz}'))`;
  return `SELECT toDateTime(day, 'UTC'), s FROM (
      SELECT days.day AS day, sum(daily.amount) OVER (ORDER BY days.day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS s
      FROM (SELECT toDate('${from}') - 6 + number AS day FROM numbers(dateDiff('day', toDate('${from}'), toDate('${to}')) + 7)) AS days
      LEFT JOIN (SELECT ${day} AS d, sum(amount) AS amount FROM orders GROUP BY d) AS daily ON daily.d = days.day
    ) WHERE day >= toDate('${from}') ORDER BY day`;
};

describe('ClickHouse (chdb): the planner answers what hand-written SQL answers', () => {
  it('a date range by day keeps the last day whole', async () => {
    const q = byDay('shapes', ['2024-01-01', '2024-03-05'], {
      filters: [{ member: 'shapes.status', operator: 'equals', values: ['completed'] }],
    });
    const theirs = await hand(`SELECT toStartOfDay(created_at) AS day, count() AS n FROM orders
      WHERE status = 'completed' AND created_at >= '2024-01-01' AND created_at < '2024-03-06' GROUP BY day ORDER BY day`);
    expect(theirs.length).toBeGreaterThan(0);
    expect(await ours(q)).toEqual(theirs);
  });
  it('local days in New York', async () => {
    const q = byDay('shapes', ['2024-01-31', '2024-02-01'], { timezone: 'America/New_York' });
    const theirs = await hand(`SELECT toStartOfDay(${ny('created_at')}) AS day, count() AS n FROM orders
      WHERE created_at >= '2024-01-31 05:00:00' AND created_at < '2024-02-02 05:00:00' GROUP BY day ORDER BY day`);
    expect(theirs.length).toBeGreaterThan(0);
    expect(await ours(q)).toEqual(theirs);
  });
  for (const [tz, from, to] of [
    ['UTC', '2024-02-25', '2024-03-07'],
    ['America/New_York', '2024-01-21', '2024-02-03'],
  ] as const) {
    it(`a trailing 7-day window by day in ${tz}`, async () => {
      const q: CubeQuery = {
        measures: ['shapes.rolling_7d'],
        timeDimensions: [{ dimension: 'shapes.created_at', granularity: 'day', dateRange: [from, to] }],
        timezone: tz,
      };
      const theirs = await hand(handRolling(tz, from, to));
      expect(theirs.length).toBeGreaterThan(10);
      expect(await ours(q)).toEqual(theirs);
    });
  }
  it('a trailing 7-day window over a whole range', async () => {
    const q: CubeQuery = {
      measures: ['shapes.rolling_7d'],
      timeDimensions: [{ dimension: 'shapes.created_at', dateRange: ['2024-02-01', '2024-03-05'] }],
    };
    expect(await ours(q)).toEqual(
      await hand(
        `SELECT sum(amount) FROM orders WHERE created_at >= '2024-02-28' AND created_at < '2024-03-06'`,
      ),
    );
  });

  for (const [day, next, from, to] of [
    ['2024-03-10', '2024-03-11', '2024-03-10 05:00:00', '2024-03-11 04:00:00'],
    ['2024-11-03', '2024-11-04', '2024-11-03 04:00:00', '2024-11-04 05:00:00'],
  ] as const) {
    it(`hours of the DST day ${day} in America/New_York, and the day itself`, async () => {
      const hours = await ours({
        measures: ['dst_events.count'],
        timeDimensions: [{ dimension: 'dst_events.at', granularity: 'hour', dateRange: [day, day] }],
        timezone: 'America/New_York',
      });
      // by the wall clock's text: the repeated 01:00 of November is one local hour
      const theirs =
        await hand(`SELECT formatDateTime(${ny('created_at')}, '%Y-%m-%d %H:00:00') AS h, count() AS n
        FROM dst_events WHERE created_at >= '${from}' AND created_at < '${to}' GROUP BY h ORDER BY h`);
      expect(hours).toEqual(theirs);
      expect(hours.length).toBeGreaterThan(1);
      const days = await ours({
        measures: ['dst_events.count'],
        timeDimensions: [{ dimension: 'dst_events.at', granularity: 'day', dateRange: [day, next] }],
        timezone: 'America/New_York',
      });
      const handDays =
        await hand(`SELECT toDateTime(toDate(${ny('created_at')}), 'UTC') AS d, count() AS n FROM dst_events
        WHERE created_at >= '${from}' AND toDate(${ny('created_at')}) <= toDate('${next}') GROUP BY d ORDER BY d`);
      expect(days).toEqual(handDays);
      // the same buckets as DuckDB computes
      const c = compile(
        {
          measures: ['dst_events.count'],
          timeDimensions: [{ dimension: 'dst_events.at', granularity: 'hour', dateRange: [day, day] }],
          timezone: 'America/New_York',
        },
        'duckdb',
      );
      expect(hours).toEqual(values(await duck.run(c.sql, c.params)));
    });
  }

  for (const [operator, value, where] of [
    ['contains', '50%', "positionCaseInsensitive(name, '50%') > 0"],
    ['contains', 'e_c', "positionCaseInsensitive(name, 'e_c') > 0"],
    ['notContains', 'e_c', "positionCaseInsensitive(name, 'e_c') = 0"],
    ['startsWith', 'sale 50%', "startsWith(lower(name), 'sale 50%')"],
    ['endsWith', '_case', "endsWith(lower(name), '_case')"],
  ] as const) {
    it(`${operator} ${value}: % and _ match themselves`, async () => {
      const q: CubeQuery = {
        measures: ['labels.count'],
        dimensions: ['labels.name'],
        filters: [{ member: 'labels.name', operator, values: [value] }],
        order: { 'labels.name': 'asc' },
      };
      const theirs = await hand(
        `SELECT name, count() FROM labels WHERE ${where} GROUP BY name ORDER BY name`,
      );
      expect(theirs.length).toBeGreaterThan(0);
      expect(await ours(q)).toEqual(theirs);
    });
  }
});

describe('ClickHouse (chdb): what MySQL and Trino refuse gives DuckDB rows here', () => {
  it('a median (quantileExactInclusive, interpolated as percentile_cont)', async () => {
    const { mine, theirs } = await bothEngines({
      measures: ['shapes.median_amount'],
      dimensions: ['shapes.status'],
    });
    expect(theirs.length).toBeGreaterThan(1);
    expect(mine).toEqual(theirs);
  });
  it('multi-stage measures combined with their base by dimensions (a FULL JOIN)', async () => {
    const { mine, theirs } = await bothEngines({
      measures: ['staged.amount', 'staged.amount_prior_month'],
      dimensions: ['staged.status'],
      timeDimensions: [
        { dimension: 'staged.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
      order: [
        ['staged.created_at', 'asc'],
        ['staged.status', 'asc'],
      ],
    });
    expect(theirs.length).toBeGreaterThan(1);
    expect(mine).toEqual(theirs);
  });
});
