import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { contentClient } from '../workspace/test-client.ts';
import { widgetData } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

type Row = Record<string, string | null>;

const day = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString().replace('Z', '');
const ms = (value: string) => Date.parse(`${value}Z`);

const daily = {
  measures: ['orders.count'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }],
  order: { 'orders.created_at': 'asc' },
};
const dailyByStatus = {
  measures: ['orders.count'],
  dimensions: ['orders.status'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }],
  order: { 'orders.created_at': 'asc' },
};

/**
 * A report's fillMissingRows (spec 2.3): the widget-data endpoint answers every period of the
 * time series, with 0 for the measures of the periods the data has no rows for.
 */
describe('fillMissingRows on widget data', () => {
  let server: TestServer;
  let publicId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const api = contentClient(server, server.demoDeploymentId);
    const wb = await api.workbook(`Fill ${Math.random().toString(36).slice(2, 8)}`);
    const fill = { member: 'orders.created_at' };
    const reports: [string, unknown, unknown][] = [
      ['plain', daily, null],
      ['filled', daily, fill],
      ['byStatus', dailyByStatus, null],
      ['byStatusFilled', dailyByStatus, fill],
      ['byStatusExcluded', dailyByStatus, { ...fill, excludedDimensions: ['orders.status'] }],
    ];
    const widgets = [];
    for (const [name, query, fillMissingRows] of reports) {
      const r = await api.report({
        name,
        jsonQuery: JSON.stringify(query),
        workbookId: wb.id,
        fillMissingRows,
      });
      widgets.push({ id: name, position: { x: 0, y: 0, w: 4, h: 4 }, config: { reportId: r.id } });
    }
    const board = await api.ok('POST', `/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: { widgets },
    });
    publicId = board.publicId;
  });
  afterAll(() => server?.close());

  const rows = async (widget: string, body: Record<string, unknown> = {}) => {
    const res = await widgetData(server, publicId, widget, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Row[];
  };

  it('answers every day from the first to the last, the missing ones with 0', async () => {
    const plain = await rows('plain');
    const filled = await rows('filled');
    const key = 'orders.created_at.day';
    const first = ms(plain[0][key]!);
    const last = ms(plain[plain.length - 1][key]!);
    const days = (last - first) / day + 1;
    // The sample has days without orders; otherwise this test would prove nothing.
    expect(plain.length).toBeLessThan(days);
    expect(filled.map((r) => r[key])).toEqual(Array.from({ length: days }, (_, i) => at(first + i * day)));
    const byDay = new Map(plain.map((r) => [r[key], r]));
    for (const r of filled) {
      const original = byDay.get(r[key]);
      if (original) expect(r).toEqual(original);
      else expect(r).toEqual({ [key]: r[key], 'orders.created_at': r[key], 'orders.count': '0' });
    }
  });

  it("runs over the dashboard's date range and grain, beyond the days that have rows", async () => {
    const plain = await rows('plain');
    const start = ms(plain[0]['orders.created_at.day']!) - 10 * day;
    const range = [at(start).slice(0, 10), at(start + 40 * day).slice(0, 10)];
    const filters = [{ member: 'orders.created_at', operator: 'inDateRange', values: range }];
    const filled = await rows('filled', { filters });
    expect(filled).toHaveLength(41);
    expect(filled[0]).toEqual({
      'orders.created_at.day': at(start),
      'orders.created_at': at(start),
      'orders.count': '0',
    });
    expect(filled[40]['orders.created_at.day']).toBe(at(start + 40 * day));
    const monthly = await rows('filled', {
      filters,
      timeGrains: [{ member: 'orders.created_at', grain: 'month' }],
    });
    const months = monthly.map((r) => r['orders.created_at.month']!.slice(0, 7));
    expect(months).toEqual([
      ...new Set(Array.from({ length: 41 }, (_, i) => at(start + i * day).slice(0, 7))),
    ]);
  });

  it('fills each combination of the other dimensions, except the excluded ones', async () => {
    const plain = await rows('byStatus');
    const filled = await rows('byStatusFilled');
    const statuses = [...new Set(plain.map((r) => r['orders.status']))];
    const present = plain.map((r) => r['orders.created_at.day']!).sort();
    const days: string[] = [];
    for (let t = ms(present[0]); t <= ms(present[present.length - 1]); t += day) days.push(at(t));
    expect(plain.length).toBeLessThan(statuses.length * days.length);
    expect(filled).toHaveLength(statuses.length * days.length);
    const pairs = new Set(filled.map((r) => `${r['orders.created_at.day']}|${r['orders.status']}`));
    expect(pairs.size).toBe(filled.length);
    const kept = new Set(filled.map((r) => JSON.stringify(r)));
    expect(plain.filter((r) => !kept.has(JSON.stringify(r)))).toEqual([]);
    // Excluded: one added row per day with no rows at all, its status left empty.
    const excluded = await rows('byStatusExcluded');
    const empty = days.filter((m) => !plain.some((r) => r['orders.created_at.day'] === m));
    expect(empty.length).toBeGreaterThan(0);
    expect(excluded).toHaveLength(plain.length + empty.length);
    expect(
      excluded.filter((r) => r['orders.status'] === null).map((r) => r['orders.created_at.day']),
    ).toEqual(empty);
  });
});
