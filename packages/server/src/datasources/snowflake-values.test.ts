import { describe, expect, it } from 'vitest';
import { snowflakeValue } from './snowflake-values.ts';

/** The SQL API's text values (format jsonv2) as the data API reads them, by rowType. */
describe('Snowflake values by rowType', () => {
  it.each([
    ['12', { type: 'fixed', scale: 0 }, 12],
    ['9007199254740993', { type: 'fixed', scale: 0 }, 9007199254740993n],
    ['12.50', { type: 'fixed', scale: 2 }, '12.50'],
    ['1.5e3', { type: 'real' }, 1500],
    ['-inf', { type: 'real' }, -Infinity],
    ['true', { type: 'boolean' }, true],
    ['false', { type: 'boolean' }, false],
    ['hello', { type: 'text' }, 'hello'],
    [null, { type: 'text' }, null],
  ])('%s as %o', (value, column, expected) => {
    expect(snowflakeValue(value, { name: 'x', ...column })).toEqual(expected);
  });

  it('reads dates as days and timestamps as epoch seconds, in UTC, to the millisecond', () => {
    const iso = (v: string, type: string) => (snowflakeValue(v, { name: 'x', type }) as Date).toISOString();
    expect(iso('19723', 'date')).toBe('2024-01-01T00:00:00.000Z');
    expect(iso('-1', 'date')).toBe('1969-12-31T00:00:00.000Z');
    expect(iso('1704067200.123456789', 'timestamp_ntz')).toBe('2024-01-01T00:00:00.123Z');
    expect(iso('-1.500000000', 'timestamp_ntz')).toBe('1969-12-31T23:59:58.500Z');
    expect(iso('1704067200.000000000', 'timestamp_ltz')).toBe('2024-01-01T00:00:00.000Z');
    // TIMESTAMP_TZ: the UTC seconds, then the offset in minutes plus 1440 (here +01:00)
    expect(iso('1704067200.000000000 1500', 'timestamp_tz')).toBe('2024-01-01T00:00:00.000Z');
    expect(snowflakeValue('3723.250000000', { name: 'x', type: 'time' })).toBe('01:02:03.250');
  });
});
