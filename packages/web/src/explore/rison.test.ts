import { describe, expect, it } from 'vitest';
import { readState, writeState } from './query-state.ts';
import { decodeRison, encodeRison, risonParam } from './rison.ts';

describe('Rison in the address', () => {
  it('reads back what it wrote, strings that need quotes included', () => {
    const query = {
      measures: ['orders.count', 'orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: 'last 12 months' }],
      filters: [{ member: 'orders.status', operator: 'equals', values: ["it's (done)!", '42', '-1', ''] }],
      order: [['orders.count', 'desc']],
      limit: 500,
      ungrouped: false,
      total: true,
      x: null,
    };
    const text = encodeRison(query);
    expect(text).toContain('measures:!(orders.count,orders.total_amount)');
    expect(text).toContain("'it!'s (done)!!'");
    expect(decodeRison(text)).toEqual(query);
    expect(decodeURIComponent(risonParam(query))).toBe(text);
    expect(risonParam(query)).toContain('(dimension:orders.created_at,granularity:month,dateRange:');
  });

  it('says where a malformed text goes wrong, and a page starts empty with the problem', () => {
    expect(() => decodeRison('(measures:!(a,b)')).toThrow(/at character 17/);
    expect(() => decodeRison('(a:1)x')).toThrow(/after the value/);
    const state = readState('?q=(measures:!(a');
    expect(state.query).toEqual({});
    expect(state.problem).toMatch(/could not be read/);
  });

  it('writes one address per question, and reads Cube’s object order', () => {
    const search = writeState({ measures: ['orders.count'], dimensions: [], filters: [] }, 'bar');
    expect(search).toBe('?q=(measures:!(orders.count))&chart=bar');
    const state = readState(
      `?q=${risonParam({ dimensions: ['orders.status'], order: { 'orders.status': 'desc' } })}`,
    );
    expect(state.query).toEqual({ dimensions: ['orders.status'], order: [['orders.status', 'desc']] });
    expect(readState('?chart=nonsense').chart).toBeNull();
  });
});
