import { describe, expect, it } from 'vitest';
import { type CubeQuery, compileQuery, expandCompareDateRange, UserError } from '../src/index.ts';
import { ADMIN, fixtureModel, NOW } from './fixtures/model.ts';

const model = fixtureModel();
const compile = (q: CubeQuery) =>
  compileQuery(model, q, { dialect: 'duckdb', securityContext: ADMIN, now: NOW });
const fails = (q: CubeQuery, message: string | RegExp) => {
  expect(() => compile(q)).toThrow(UserError);
  expect(() => compile(q)).toThrow(message);
};

describe('query validation', () => {
  it.each<[string, CubeQuery, string | RegExp]>([
    ['unknown member', { measures: ['orders.foo'] }, 'Unknown member: orders.foo'],
    ['unknown cube', { dimensions: ['nope.x'] }, 'Unknown member: nope.x'],
    ['dimension as measure', { measures: ['orders.status'] }, /orders.status is a dimension, not a measure/],
    [
      'bad operator',
      {
        measures: ['orders.count'],
        filters: [{ member: 'orders.status', operator: 'bogus', values: ['x'] }],
      },
      "Operator 'bogus' is not supported for filter on orders.status",
    ],
    [
      'string operator on number',
      {
        measures: ['orders.count'],
        filters: [{ member: 'orders.amount', operator: 'contains', values: ['1'] }],
      },
      "Operator 'contains' is not supported for filter on orders.amount of type number",
    ],
    [
      'bad number',
      { measures: ['orders.count'], filters: [{ member: 'orders.amount', operator: 'gt', values: ['abc'] }] },
      'Invalid number value "abc" for filter on orders.amount',
    ],
    [
      'bad date range',
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-13-01', '2024-01-02'] }],
      },
      /Invalid date range/,
    ],
    [
      'unparsable relative range',
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'sometime soon' }],
      },
      /Invalid date range: 'sometime soon'/,
    ],
    [
      'limit over max',
      { measures: ['orders.count'], limit: 60000 },
      'Limit 60000 exceeds maximum row limit of 50000',
    ],
    [
      'bad timezone',
      { measures: ['orders.count'], timezone: 'Mars/Olympus' },
      'Unknown timezone: Mars/Olympus',
    ],
    [
      'unknown granularity',
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'decade' }],
      },
      "Unknown granularity 'decade' for orders.created_at",
    ],
    [
      'order not in query',
      { measures: ['orders.count'], order: { 'orders.status': 'asc' } },
      'Order member is not part of the query: orders.status',
    ],
    [
      'mixed measure and dimension in one or',
      {
        measures: ['orders.count'],
        filters: [
          {
            or: [
              { member: 'orders.count', operator: 'gt', values: ['1'] },
              { member: 'orders.status', operator: 'set' },
            ],
          },
        ],
      },
      'You cannot use dimension and measure in same condition',
    ],
  ])('%s', (_, q, message) => fails(q, message));

  it('applies Cube defaults: limit 10000, default order, timezone UTC', () => {
    const c = compile({ measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(c.normalizedQuery.limit).toBe(10000);
    expect(c.normalizedQuery.order).toEqual([['orders.count', 'desc']]);
    expect(c.normalizedQuery.timezone).toBe('UTC');
    expect(c.aliases).toEqual({ orders__status: 'orders.status', orders__count: 'orders.count' });
  });

  it('resolves relative date ranges against the injected clock and zone', () => {
    const range = (dateRange: string, timezone = 'UTC') =>
      compileQuery(
        model,
        {
          measures: ['orders.count'],
          timeDimensions: [{ dimension: 'orders.created_at', dateRange }],
          timezone,
        },
        { dialect: 'duckdb', securityContext: ADMIN, now: NOW },
      ).normalizedQuery.timeDimensions?.[0].dateRange;
    expect(range('today')).toEqual(['2024-03-10T00:00:00.000', '2024-03-10T23:59:59.999']);
    expect(range('yesterday')).toEqual(['2024-03-09T00:00:00.000', '2024-03-09T23:59:59.999']);
    expect(range('this week')).toEqual(['2024-03-04T00:00:00.000', '2024-03-10T23:59:59.999']);
    expect(range('last quarter')).toEqual(['2023-10-01T00:00:00.000', '2023-12-31T23:59:59.999']);
    expect(range('last 7 days')).toEqual(['2024-03-03T00:00:00.000', '2024-03-09T23:59:59.999']);
    expect(range('next 2 months')).toEqual(['2024-04-01T00:00:00.000', '2024-05-31T23:59:59.999']);
    expect(range('from 7 days ago to now')).toEqual(['2024-03-03T00:00:00.000', '2024-03-10T12:00:00.000']);
    expect(range('this year', 'Pacific/Kiritimati')).toEqual([
      '2024-01-01T00:00:00.000',
      '2024-12-31T23:59:59.999',
    ]);
  });

  it('binds date range bounds as UTC instants computed in the query zone', () => {
    const c = compileQuery(
      model,
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-01-31'] }],
        timezone: 'America/New_York',
      },
      { dialect: 'postgres', securityContext: ADMIN, now: NOW },
    );
    // UTC wall clock, bound as `timestamp` (dialect/postgres.ts: no per-row conversion of the column)
    expect(c.params).toEqual(['2024-01-01T05:00:00.000', '2024-02-01T04:59:59.999']);
    expect(c.sql).not.toContain('2024');
  });

  it('never splices filter values into SQL', () => {
    const evil = "x'; DROP TABLE orders; --";
    const c = compile({
      measures: ['orders.count'],
      filters: [{ member: 'orders.status', operator: 'contains', values: [evil] }],
    });
    expect(c.sql).not.toContain('DROP');
    expect(c.params).toContain(evil);
  });

  it('expands compareDateRange into one query per range', () => {
    const qs = expandCompareDateRange({
      measures: ['orders.count'],
      timeDimensions: [
        {
          dimension: 'orders.created_at',
          granularity: 'day',
          compareDateRange: ['this week', ['2024-01-01', '2024-01-07']],
        },
      ],
    });
    expect(qs.map((q) => q.timeDimensions?.[0].dateRange)).toEqual([
      'this week',
      ['2024-01-01', '2024-01-07'],
    ]);
  });
});
