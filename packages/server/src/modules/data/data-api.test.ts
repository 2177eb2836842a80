import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { client, listen, rawResponse, tokenFor } from './test-support.ts';

// Small sample (5,000 orders): generated into this test server's data directory on first query.
const scale = 0.005;
process.env.TESSERA_SAMPLE_SCALE = String(scale);

/**
 * The data API through @cubejs-client/core, unchanged, against a Tessera listening on loopback:
 * numbers are checked against SQL run directly on an independently generated copy of the sample.
 */
describe('data API with @cubejs-client/core on the sample data', () => {
  let server: TestServer;
  let baseUrl: string;
  let api: ReturnType<typeof client>;
  let direct: (sql: string) => Promise<Record<string, unknown>[]>;
  let closeDirect: () => void;
  const copyDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-sample-copy-'));

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
    api = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId));
    const file = path.join(copyDir, 'sample.duckdb');
    await ensureSampleDatabase(file, scale);
    const instance = await DuckDBInstance.create(file);
    const conn = await instance.connect();
    direct = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
    closeDirect = () => {
      conn.closeSync();
      instance.closeSync();
    };
  });
  afterAll(async () => {
    closeDirect?.();
    await server?.close();
    rmSync(copyDir, { recursive: true, force: true });
  });

  it('loads counts and sums that match direct SQL on the same data', async () => {
    const rs = await api.load({
      measures: ['orders.count', 'orders.total_amount', 'orders.unique_customers'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    });
    const expected = await direct(
      `SELECT status, count(*) AS n, sum(amount) AS total, count(DISTINCT customer_id) AS uc
       FROM orders GROUP BY 1 ORDER BY 1`,
    );
    expect(rs.rawData()).toEqual(
      expected.map((r) => ({
        'orders.status': r.status,
        'orders.count': String(r.n),
        'orders.total_amount': String(r.total),
        'orders.unique_customers': String(r.uc),
      })),
    );
    expect(rawResponse(rs).results[0]).toMatchObject({
      dataSource: 'default',
      dbType: 'duckdb',
      external: false,
      slowQuery: false,
      usedPreAggregations: {},
    });
    expect(rawResponse(rs).results[0].lastRefreshTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(rs.annotation().measures['orders.count']).toMatchObject({ type: 'number' });
  });

  it('counts an order with many line items once (fan-out)', async () => {
    const rs = await api.load({ measures: ['orders.count', 'orders.total_amount', 'line_items.count'] });
    const [row] = await direct(
      'SELECT (SELECT count(*) FROM orders) o, (SELECT sum(amount) FROM orders) t, (SELECT count(*) FROM line_items) li',
    );
    expect(rs.rawData()).toEqual([
      {
        'orders.count': String(row.o),
        'orders.total_amount': String(row.t),
        'line_items.count': String(row.li),
      },
    ]);
    expect(Number(row.li)).toBeGreaterThan(Number(row.o));
  });

  it('pivots a monthly time series with chartPivot and tablePivot', async () => {
    const rs = await api.load({
      measures: ['orders.count'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-06-30'] },
      ],
    });
    const expected = await direct(
      `SELECT strftime(date_trunc('month', created_at), '%Y-%m-%dT%H:%M:%S.000') AS m, count(*) AS n FROM orders
       WHERE created_at >= '2024-01-01' AND created_at < '2024-07-01' GROUP BY 1 ORDER BY 1`,
    );
    const chart = rs.chartPivot();
    expect(chart.map((p) => [p.x, p['orders.count']])).toEqual(expected.map((r) => [r.m, Number(r.n)]));
    expect(rs.tablePivot()).toHaveLength(6);
    expect(rs.tablePivot()[0]).toMatchObject({ 'orders.created_at.month': '2024-01-01T00:00:00.000' });
  });

  it('serves meta with cubes, the view and member types', async () => {
    const meta = await api.meta();
    const names = meta.cubes.map((c) => c.name).sort();
    expect(names).toEqual(['customers', 'line_items', 'orders', 'products', 'sales']);
    const orders = meta.cubes.find((c) => c.name === 'orders')!;
    expect(orders.measures.map((m) => m.name)).toContain('orders.rolling_amount_7d');
    expect(meta.cubes.find((c) => c.name === 'sales')!.type).toBe('view');
    expect(meta.resolveMember('orders.count', 'measures')).toMatchObject({ title: 'Orders Count' });
  });

  it('answers compareDateRange and blending queries as multi results', async () => {
    const compare = await api.load({
      measures: ['orders.count'],
      timeDimensions: [
        {
          dimension: 'orders.created_at',
          granularity: 'month',
          compareDateRange: [
            ['2024-01-01', '2024-03-31'],
            ['2025-01-01', '2025-03-31'],
          ],
        },
      ],
    });
    expect(rawResponse(compare).queryType).toBe('compareDateRangeQuery');
    expect(compare.decompose()).toHaveLength(2);
    expect(compare.chartPivot()).toHaveLength(3);
    // Cube's shape: every row names its range, and the pivot query pivots on it.
    const ranges = [
      '2024-01-01T00:00:00.000 - 2024-03-31T23:59:59.999',
      '2025-01-01T00:00:00.000 - 2025-03-31T23:59:59.999',
    ];
    const monthly = async (from: string, to: string) =>
      (
        await direct(
          `SELECT strftime(date_trunc('month', created_at), '%Y-%m-%dT%H:%M:%S.000') AS m, count(*) AS n FROM orders
           WHERE created_at >= '${from}' AND created_at < '${to}' GROUP BY 1 ORDER BY 1`,
        )
      ).map((r) => ({
        'orders.created_at.month': r.m,
        'orders.created_at': r.m,
        'orders.count': String(r.n),
      }));
    const body = rawResponse(compare);
    expect(body.results.map((r) => r.data)).toEqual([
      (await monthly('2024-01-01', '2024-04-01')).map((r) => ({ ...r, compareDateRange: ranges[0] })),
      (await monthly('2025-01-01', '2025-04-01')).map((r) => ({ ...r, compareDateRange: ranges[1] })),
    ]);
    expect(compare.pivotQuery()).toMatchObject({
      dimensions: ['compareDateRange'],
      queryType: 'compareDateRangeQuery',
    });
    expect(compare.seriesNames().map((s) => s.key)).toEqual(ranges.map((r) => `${r},orders.count`));
    // The client lays the ranges side by side, one column per range, month by month.
    expect(compare.tableColumns().map((c) => c.key)).toEqual(['orders.created_at.month', ...ranges]);
    const [first, second] = body.results.map((r) => r.data as Record<string, string>[]);
    expect(compare.tablePivot()[0]).toEqual({
      'orders.created_at.month': '2024-01-01T00:00:00.000',
      [`${ranges[0]},orders.count`]: first[0]['orders.count'],
      [`${ranges[1]},orders.count`]: second[0]['orders.count'],
    });
    const blended = await api.load([
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year' }],
      },
      {
        measures: ['customers.count'],
        timeDimensions: [{ dimension: 'customers.created_at', granularity: 'year' }],
      },
    ]);
    expect(rawResponse(blended).queryType).toBe('blendingQuery');
    expect(blended.chartPivot().length).toBeGreaterThanOrEqual(3);
  });

  it('returns the SQL and the dry run of a query', async () => {
    const sql = await api.sql({ measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(sql.sql()).toMatch(/count\(/i);
    const dry = await api.dryRun({ measures: ['orders.count'] });
    expect(dry).toMatchObject({ queryType: 'regularQuery', normalizedQueries: [expect.any(Object)] });
  });

  it('supports compact and columnar response formats', async () => {
    const compact = await api.load(
      { measures: ['orders.count'], dimensions: ['orders.status'] },
      {},
      undefined,
      'compact',
    );
    const columnar = await api.load(
      { measures: ['orders.count'], dimensions: ['orders.status'] },
      {},
      undefined,
      'columnar',
    );
    const plain = await api.load({ measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(compact.rawData()).toEqual(plain.rawData());
    expect(columnar.rawData()).toEqual(plain.rawData());
  });
});
