import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeQuery, compileQuery, type DialectName } from '../src/index.ts';
import { type Engine, postgresAvailable, postgresEngine, runQuery } from './engines.ts';
import { extraTables, modelWithExtras } from './fixtures/engine-extras.ts';
import { ADMIN, NOW } from './fixtures/model.ts';
import { queries } from './queries.ts';

/**
 * The Redshift dialect's SQL run on the real PostgreSQL at 127.0.0.1:5432 (skipped with a message
 * when unreachable), standing in for Redshift: no Redshift can run on this machine, and Redshift
 * speaks PostgreSQL's protocol and, for most of what the planner prints, its SQL. Its rows must
 * equal the PostgreSQL dialect's on the same tables (issue 24 "What it must show").
 *
 * Two Redshift behaviours are reproduced on the stand-in's session, each per AWS's SQL reference:
 * - CONVERT_TIMEZONE(source, target, ts), a Redshift function, is defined on the run's schema as
 *   `(ts AT TIME ZONE source) AT TIME ZONE target`: the timestamp read in the source zone, the
 *   target zone's wall clock returned as a TIMESTAMP, DST followed by the IANA rules (the
 *   CONVERT_TIMEZONE page). Only for zone names, which are all the planner passes; Redshift's
 *   POSIX-style offsets are not mimicked.
 * - standard_conforming_strings is off, so that `'\\'` is one backslash, as Redshift reads string
 *   literals (the LIKE page: "the default is two backslashes ('\\')").
 * What only Redshift has is checked as golden SQL only (golden/*.redshift.golden.sql), each named
 * below with the function that keeps it off PostgreSQL, so that the list cannot go stale.
 */
const goldenOnly: Record<string, RegExp> = {
  // APPROXIMATE COUNT(DISTINCT), Redshift's HyperLogLog estimate
  distinct_counts: /APPROXIMATE COUNT\(DISTINCT /,
  // DATEDIFF(second, ...) and DATEADD(day|month, ...): Redshift's datepart keywords
  custom_fiscal_quarter: /DATEADD\(month, /,
  custom_fortnight: /DATEADD\(day, /,
};

const model = modelWithExtras();

const standIn = [
  'SET standard_conforming_strings = off',
  'SET escape_string_warning = off',
  `CREATE FUNCTION convert_timezone(source text, target text, ts timestamp) RETURNS timestamp
     LANGUAGE sql IMMUTABLE AS 'SELECT (ts AT TIME ZONE source) AT TIME ZONE target'`,
  ...extraTables('TIMESTAMP'),
];

const up = await postgresAvailable();
let pg: Engine;
beforeAll(async () => {
  if (!up) return;
  pg = await postgresEngine();
  for (const s of standIn) await pg.run(s, []);
});
afterAll(async () => {
  await pg?.close();
});

const compile = (q: CubeQuery, dialect: DialectName) =>
  compileQuery(model, q, { dialect, securityContext: ADMIN, now: NOW });

/** The PostgreSQL dialect's rows, read with PostgreSQL's own literals (its `ESCAPE '\'`). */
async function postgresRows(q: CubeQuery) {
  await pg.run('SET standard_conforming_strings = on', []);
  try {
    return await runQuery(pg, compile(q, 'postgres'));
  } finally {
    await pg.run('SET standard_conforming_strings = off', []);
  }
}

describe.skipIf(!up)('Redshift SQL on PostgreSQL gives the PostgreSQL dialect rows', () => {
  for (const [name, query] of Object.entries(queries)) {
    if (name in goldenOnly) {
      it(`${name} is golden SQL only: ${goldenOnly[name]!.source}`, () => {
        expect(compile(query, 'redshift').sql).toMatch(goldenOnly[name]!);
      });
      continue;
    }
    it(name, async () => {
      const expected = await postgresRows(query);
      expect(expected.length).toBeGreaterThan(0);
      expect(await runQuery(pg, compile(query, 'redshift'))).toEqual(expected);
    });
  }

  for (const [day, next] of [
    ['2024-03-10', '2024-03-11'],
    ['2024-11-03', '2024-11-04'],
  ] as const) {
    it(`hours and the day of the DST change ${day} in America/New_York`, async () => {
      for (const [granularity, dateRange] of [
        ['hour', [day, day]],
        ['day', [day, next]],
      ] as const) {
        const q: CubeQuery = {
          measures: ['dst_events.count'],
          timeDimensions: [{ dimension: 'dst_events.at', granularity, dateRange: [...dateRange] }],
          timezone: 'America/New_York',
        };
        const expected = await postgresRows(q);
        expect(expected.length).toBeGreaterThan(granularity === 'hour' ? 1 : 0);
        expect(await runQuery(pg, compile(q, 'redshift'))).toEqual(expected);
      }
    });
  }

  for (const [operator, value, names] of [
    ['contains', '50%', ['Sale 50% off']],
    ['contains', 'e_c', ['snake_case', 'SNAKE_CASE']],
    ['notContains', 'e_c', ['Sale 50 off', 'Sale 50% off', 'Sale 500 off', 'snakeXcase']],
    ['startsWith', 'sale 50%', ['Sale 50% off']],
    ['endsWith', '_case', ['snake_case', 'SNAKE_CASE']],
  ] as const) {
    it(`${operator} ${value}: % and _ match themselves, letters in any case`, async () => {
      const q: CubeQuery = {
        measures: ['labels.count'],
        dimensions: ['labels.name'],
        filters: [{ member: 'labels.name', operator, values: [value] }],
        order: { 'labels.name': 'asc' },
      };
      const rows = await runQuery(pg, compile(q, 'redshift'));
      expect(rows.map((r) => r['labels.name']).sort()).toEqual([...names].sort());
      expect(rows).toEqual(await postgresRows(q));
    });
  }
});

if (!up)
  describe.skip('PostgreSQL at 127.0.0.1:5432 is unreachable: Redshift SQL on PostgreSQL skipped', () => {});
