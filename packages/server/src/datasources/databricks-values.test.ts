import { describe, expect, it } from 'vitest';
import { isUtcZone } from './databricks-driver.ts';
import { literal } from './databricks-literals.ts';
import { databricksValue } from './databricks-values.ts';

/** The Statement Execution API's JSON_ARRAY text values as the data API reads them, by type_name. */
describe('Databricks values by type_name', () => {
  it.each([
    ['12', { type_name: 'INT' }, 12],
    ['9007199254740993', { type_name: 'LONG' }, 9007199254740993n],
    ['12.50', { type_name: 'DECIMAL', type_scale: 2 }, '12.50'],
    ['42', { type_name: 'DECIMAL', type_scale: 0 }, 42],
    ['1.5E3', { type_name: 'DOUBLE' }, 1500],
    ['-Infinity', { type_name: 'DOUBLE' }, -Infinity],
    ['true', { type_name: 'BOOLEAN' }, true],
    ['false', { type_name: 'BOOLEAN' }, false],
    ['hello', { type_name: 'STRING' }, 'hello'],
    ['[1,2]', { type_name: 'ARRAY' }, '[1,2]'],
    [null, { type_name: 'STRING' }, null],
  ])('%s as %o', (value, column, expected) => {
    expect(databricksValue(value, { name: 'x', ...column })).toEqual(expected);
  });

  it('reads dates and timestamps, with or without a zone, in UTC to the millisecond', () => {
    const iso = (v: string, type_name: string) =>
      (databricksValue(v, { name: 'x', type_name }) as Date).toISOString();
    expect(iso('2024-01-01', 'DATE')).toBe('2024-01-01T00:00:00.000Z');
    expect(iso('2024-01-01T00:00:00.123Z', 'TIMESTAMP')).toBe('2024-01-01T00:00:00.123Z');
    expect(iso('2024-01-01 00:00:00.123456', 'TIMESTAMP_NTZ')).toBe('2024-01-01T00:00:00.123Z');
    expect(iso('2024-01-01T01:00:00+01:00', 'TIMESTAMP')).toBe('2024-01-01T00:00:00.000Z');
  });
});

describe('Databricks literals', () => {
  it("writes a quote as \\' and a backslash as \\\\ (two quotes would be two literals, concatenated)", () => {
    expect(literal("O'Connell")).toBe("'O\\'Connell'");
    expect(literal('C:\\temp 50\\%')).toBe("'C:\\\\temp 50\\\\%'");
    expect(literal(null)).toBe('NULL');
    expect(literal(12.5)).toBe('12.5');
  });
});

describe('Databricks session time zones taken for UTC (current_timezone())', () => {
  it.each([
    ['UTC', true],
    ['Etc/UTC', true],
    ['Z', true],
    ['+00:00', true],
    ['GMT', true],
    ['Etc/Zulu', true],
    ['Europe/London', false],
    ['America/New_York', false],
    ['+01:00', false],
    ['Not/AZone', false],
  ])('%s: %s', (zone, utc) => {
    expect(isUtcZone(zone)).toBe(utc);
  });
});
