import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdb } from '../src/dialect/duckdb.ts';
import { zoneOffsets } from '../src/dialect/zone-offsets.ts';
import { compileModelOrThrow, compileQuery } from '../src/index.ts';

/**
 * DuckDB's wall clock in a zone comes from the zone's offset changes (dialect/duckdb.ts
 * wallClock), not from ICU per row (issue 24 item 4). It must equal the straightforward
 * `(ts AT TIME ZONE 'UTC') AT TIME ZONE zone` row for row: every quarter hour of 2024 (every
 * local day boundary, also in zones half an hour off the hour), a microsecond either side of
 * each change and of each end of the span the changes are read for (zone-offsets.ts), instants
 * outside that span and NULL, at every grain.
 */
const ZONES = ['America/New_York', 'Europe/London', 'Australia/Adelaide', 'Asia/Kolkata'];
const GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
const icu = (col: string) => `((${col}) AT TIME ZONE 'UTC') AT TIME ZONE $1`;
const ours = (col: string, zone: string) => duckdb.toLocal(col, '$1', zone);

/** Instants a change of offset takes effect during 2024, in `zone`. */
function changes2024(zone: string): number[] {
  return zoneOffsets(zone).changes.filter((c) => c >= Date.UTC(2024, 0, 1) && c < Date.UTC(2025, 0, 1));
}

const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

let instance: DuckDBInstance;
let conn: DuckDBConnection;
const run = async (sql: string, params: unknown[] = []) =>
  (await conn.runAndReadAll(sql, params as never)).getRowsJS().map((r) => r.map(String));

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  conn = await instance.connect();
  // each change, and each end of the span the changes are read for
  const { from, to } = zoneOffsets(ZONES[0]);
  const edges = [...ZONES.flatMap(changes2024), from, to].map(utcText);
  const edgeRows = edges.map((e) => `(TIMESTAMP '${e}')`).join(', ');
  await conn.run(`CREATE TABLE tz_rows AS
    SELECT range AS ts FROM range(TIMESTAMP '2023-12-30', TIMESTAMP '2025-01-03', INTERVAL 15 MINUTE)
    UNION ALL SELECT ts FROM (VALUES ${edgeRows}) v(ts)
    UNION ALL SELECT ts + INTERVAL 1 MICROSECOND FROM (VALUES ${edgeRows}) v(ts)
    UNION ALL SELECT ts - INTERVAL 1 MICROSECOND FROM (VALUES ${edgeRows}) v(ts)
    UNION ALL SELECT * FROM (VALUES (TIMESTAMP '1985-07-01 12:00:00'), (TIMESTAMP '1960-01-01 03:30:00'),
      (TIMESTAMP '2075-07-01 03:30:00'), (NULL)) v(ts)`);
});
afterAll(() => {
  conn?.closeSync();
  instance?.closeSync();
});

describe.each(ZONES)('DuckDB wall clock in %s', (zone) => {
  it('finds the zone’s changes of offset in 2024 (DST twice, none in Kolkata)', () => {
    expect(changes2024(zone)).toHaveLength(zone === 'Asia/Kolkata' ? 0 : 2);
  });

  it('equals AT TIME ZONE on every row, untruncated and at every grain', async () => {
    const differs = [
      `${ours('ts', zone)} IS DISTINCT FROM ${icu('ts')}`,
      ...GRAINS.map(
        (g) => `date_trunc('${g}', ${ours('ts', zone)}) IS DISTINCT FROM date_trunc('${g}', ${icu('ts')})`,
      ),
    ];
    const [[rows, ...differing]] = await run(
      `SELECT count(*), ${differs.map((d) => `count(*) FILTER (WHERE ${d})`).join(', ')} FROM tz_rows`,
      [zone],
    );
    expect(Number(rows)).toBeGreaterThan(35_000);
    expect(differing).toEqual(differs.map(() => '0'));
  });

  // truncLocal skips the offset where any of the zone's offsets gives the same local day
  it('truncates to every grain as AT TIME ZONE does, where truncLocal skips the offset', async () => {
    const differs = GRAINS.map(
      (g) => `${duckdb.truncLocal!(g, 'ts', '$1', zone)} IS DISTINCT FROM date_trunc('${g}', ${icu('ts')})`,
    );
    const [differing] = await run(
      `SELECT ${differs.map((d) => `count(*) FILTER (WHERE ${d})`).join(', ')} FROM tz_rows`,
      [zone],
    );
    expect(differing).toEqual(differs.map(() => '0'));
  });

  it.each(GRAINS)('groups by %s as AT TIME ZONE does, 23- and 25-hour days included', async (grain) => {
    const grouped = (local: string) =>
      run(`SELECT date_trunc('${grain}', ${local}) AS k, count(*) FROM tz_rows GROUP BY 1 ORDER BY 1`, [
        zone,
      ]);
    const [a, b] = [await grouped(ours('ts', zone)), await grouped(icu('ts'))];
    expect(a.length).toBeGreaterThan(1);
    expect(a).toEqual(b);
  });
});

it('gives the DST days their 23 and 25 hours of quarter-hour rows', async () => {
  const quarterHours = async (zone: string, day: string) => {
    const [[n]] = await run(
      `SELECT count(DISTINCT ts) FROM tz_rows WHERE date_trunc('day', ${ours('ts', zone)}) = DATE '${day}'
         AND epoch_us(ts) % 900000000 = 0`,
      [zone],
    );
    return Number(n);
  };
  expect(await quarterHours('America/New_York', '2024-03-10')).toBe(23 * 4);
  expect(await quarterHours('America/New_York', '2024-11-03')).toBe(25 * 4);
  expect(await quarterHours('Europe/London', '2024-03-31')).toBe(23 * 4);
  expect(await quarterHours('Australia/Adelaide', '2024-04-07')).toBe(25 * 4);
  expect(await quarterHours('Australia/Adelaide', '2024-10-06')).toBe(23 * 4);
  expect(await quarterHours('Asia/Kolkata', '2024-03-10')).toBe(24 * 4);
});

describe('DuckDB time zones through the planner', () => {
  const model = compileModelOrThrow([
    {
      path: 'model/tz_rows.yml',
      content: `cubes:
  - name: tz_rows
    sql_table: tz_rows
    measures:
      - name: count
        type: count
    dimensions:
      - name: ts
        sql: ts
        type: time
`,
    },
  ]);
  const compile = (query: Parameters<typeof compileQuery>[1]) =>
    compileQuery(model, query, { dialect: 'duckdb', now: Date.UTC(2024, 5, 1), securityContext: {} });

  it.each(
    ZONES.flatMap((zone) => GRAINS.map((grain) => [zone, grain] as const)),
  )('%s by %s: the rows of the hand-written AT TIME ZONE query', async (zone, grain) => {
    const compiled = compile({
      measures: ['tz_rows.count'],
      timeDimensions: [{ dimension: 'tz_rows.ts', granularity: grain }],
      timezone: zone,
      order: { 'tz_rows.ts': 'asc' },
    });
    expect(compiled.sql).toContain('make_timestamp');
    const planned = await run(compiled.sql, [...compiled.params]);
    const hand = await run(
      `SELECT date_trunc('${grain}', ${icu('ts')}) AS k, count(*) FROM tz_rows GROUP BY 1 ORDER BY 1 NULLS LAST`,
      [zone],
    );
    expect(planned).toEqual(hand);
  });

  // a 25-hour day has 24 wall-clock hours: its repeated hour is one bucket of twice the rows
  it.each([
    ['America/New_York', '2024-03-10', 23],
    ['America/New_York', '2024-11-03', 24],
    ['Australia/Adelaide', '2024-10-06', 23],
    ['Asia/Kolkata', '2024-10-06', 24],
  ] as const)('a local date range in %s on %s: the day’s %i wall-clock hours', async (zone, day, hours) => {
    const compiled = compile({
      measures: ['tz_rows.count'],
      timeDimensions: [{ dimension: 'tz_rows.ts', granularity: 'hour', dateRange: [day, day] }],
      timezone: zone,
      order: { 'tz_rows.ts': 'asc' },
    });
    const planned = await run(compiled.sql, [...compiled.params]);
    const hand = await run(
      `SELECT date_trunc('hour', ${icu('ts')}) AS k, count(*) FROM tz_rows
       WHERE ${icu('ts')} >= TIMESTAMP '${day}' AND ${icu('ts')} < TIMESTAMP '${day}' + INTERVAL 1 DAY
       GROUP BY 1 ORDER BY 1`,
      [zone],
    );
    expect(planned).toEqual(hand);
    expect(planned).toHaveLength(hours);
  });
});
