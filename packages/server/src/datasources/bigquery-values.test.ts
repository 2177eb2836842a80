import { describe, expect, it } from 'vitest';
import { bigQueryValue, epochMillis, queryParameters } from './bigquery-values.ts';

/** The REST API's JSON cells as the data API reads them, by the result schema's field types. */
describe('BigQuery values by field type', () => {
  it.each([
    ['12', { type: 'INTEGER' }, 12],
    ['9007199254740993', { type: 'INT64' }, 9007199254740993n],
    ['12.50', { type: 'NUMERIC' }, '12.50'],
    ['123456789012345678901234567890.5', { type: 'BIGNUMERIC' }, '123456789012345678901234567890.5'],
    ['1.5E3', { type: 'FLOAT' }, 1500],
    ['-Infinity', { type: 'FLOAT64' }, -Infinity],
    ['true', { type: 'BOOLEAN' }, true],
    ['false', { type: 'BOOL' }, false],
    ['hello', { type: 'STRING' }, 'hello'],
    [null, { type: 'STRING' }, null],
    ['12:30:00', { type: 'TIME' }, '12:30:00'],
  ])('%s as %o', (value, field, expected) => {
    expect(bigQueryValue(value, { name: 'x', ...field })).toEqual(expected);
  });

  it('reads dates, wall clocks and epoch-second timestamps as UTC Dates, to the millisecond', () => {
    const date = bigQueryValue('2024-03-10', { name: 'd', type: 'DATE' }) as Date;
    expect(date.toISOString()).toBe('2024-03-10T00:00:00.000Z');
    const wall = bigQueryValue('2024-03-10T02:30:00.123456', { name: 'w', type: 'DATETIME' }) as Date;
    expect(wall.toISOString()).toBe('2024-03-10T02:30:00.123Z');
    const ts = bigQueryValue('1.7100378001234E9', { name: 't', type: 'TIMESTAMP' }) as Date;
    expect(ts.toISOString()).toBe('2024-03-10T02:30:00.123Z');
  });

  it('reads epoch seconds digit by digit, rounding toward the earlier instant', () => {
    expect(epochMillis('1.7040672E9')).toBe(1_704_067_200_000);
    expect(epochMillis('1704067200.999999')).toBe(1_704_067_200_999);
    expect(epochMillis('-1.5E0')).toBe(-1500);
    expect(epochMillis('-1.0005E0')).toBe(-1001);
    expect(epochMillis('1.0E-3')).toBe(1);
    expect(epochMillis('0')).toBe(0);
  });

  it('reads repeated and record fields', () => {
    const field = {
      name: 'r',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'a', type: 'INTEGER' },
        { name: 'b', type: 'STRING' },
      ],
    };
    expect(bigQueryValue([{ v: { f: [{ v: '1' }, { v: 'x' }] } }], field)).toEqual([{ a: 1, b: 'x' }]);
  });
});

describe('BigQuery query parameters', () => {
  it('types each value, NULL without a value', () => {
    expect(queryParameters(['a\\%', 3, 2.5, true, null, 9007199254740993n])).toEqual([
      { name: 'p1', parameterType: { type: 'STRING' }, parameterValue: { value: 'a\\%' } },
      { name: 'p2', parameterType: { type: 'INT64' }, parameterValue: { value: '3' } },
      { name: 'p3', parameterType: { type: 'FLOAT64' }, parameterValue: { value: '2.5' } },
      { name: 'p4', parameterType: { type: 'BOOL' }, parameterValue: { value: 'true' } },
      { name: 'p5', parameterType: { type: 'STRING' }, parameterValue: {} },
      { name: 'p6', parameterType: { type: 'INT64' }, parameterValue: { value: '9007199254740993' } },
    ]);
  });
});
