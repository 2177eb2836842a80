import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * Issue 15 item 2 model constructs over HTTP: a branch whose model uses a granularity reference,
 * SQL_UTILS.convertTz, a hierarchy, a view folder, a split view and a view member of its own.
 * `/v1/meta` lists them in Cube's shape and `/v1/load` answers them from the sample warehouse.
 */
const files = [
  {
    path: 'model/orders.yml',
    content: `cubes:
  - name: c_orders
    sql_table: orders
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
      - name: created_month
        sql: "{created_at.month}"
        type: time
      - name: created_local
        sql: "{SQL_UTILS.convertTz('created_at')}"
        type: time
    hierarchies:
      - name: timeline
        title: Timeline
        levels: [created_month, created_at]
views:
  - name: c_sales
    cubes:
      - join_path: c_orders
        includes: [count, status, timeline]
      - join_path: c_orders
        alias: ids
        split: true
        includes: [id]
    measures:
      - name: orders
        sql: "{count}"
    folders:
      - name: Main
        includes: [orders, status, { name: When, includes: [created_month, created_at] }]
`,
  },
];

describe('model constructs over the data API', () => {
  let server: TestServer;
  let token: string;
  const base = () => `/data/${server.demoDeploymentId}/cubejs-api/v1`;

  beforeAll(async () => {
    server = await startTestServer();
    const put = await server.app.inject({
      method: 'PUT',
      url: `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { branchName: 'constructs', files },
    });
    expect(put.statusCode, put.body).toBe(200);
    token = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
      branch: 'constructs',
    });
  });
  afterAll(() => server?.close());

  const load = async (query: unknown) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `${base()}/load`,
      headers: { authorization: token },
      payload: { query },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, string>[];
  };

  it('lists hierarchies, folders and split views in /v1/meta as Cube does', async () => {
    const res = await server.app.inject({ url: `${base()}/meta`, headers: { authorization: token } });
    expect(res.statusCode, res.body).toBe(200);
    const cubes = res.json().cubes as Record<string, unknown>[];
    const byName = (n: string) => cubes.find((c) => c.name === n)!;
    expect(byName('c_orders').hierarchies).toEqual([
      {
        name: 'c_orders.timeline',
        title: 'Timeline',
        levels: ['c_orders.created_month', 'c_orders.created_at'],
        public: true,
      },
    ]);
    const sales = byName('c_sales');
    expect(sales.hierarchies).toEqual([
      {
        name: 'c_sales.timeline',
        title: 'Timeline',
        levels: ['c_sales.created_month', 'c_sales.created_at'],
        public: true,
        aliasMember: 'c_orders.timeline',
      },
    ]);
    expect(sales.folders).toEqual([
      {
        name: 'Main',
        members: ['c_sales.orders', 'c_sales.status', 'c_sales.created_month', 'c_sales.created_at'],
      },
    ]);
    expect(sales.nestedFolders).toEqual([
      {
        name: 'Main',
        members: [
          'c_sales.orders',
          'c_sales.status',
          { name: 'When', members: ['c_sales.created_month', 'c_sales.created_at'] },
        ],
      },
    ]);
    expect((byName('c_sales_ids').dimensions as { name: string }[]).map((d) => d.name)).toEqual([
      'c_sales_ids.id',
    ]);
  });

  it('answers a granularity reference, SQL_UTILS and a view member of its own', async () => {
    const query = {
      measures: ['c_orders.count'],
      timeDimensions: [{ dimension: 'c_orders.created_at', granularity: 'month' }],
    };
    const byMonth = await load({ ...query, order: { 'c_orders.created_at': 'asc' } });
    const viaReference = await load({
      measures: ['c_sales.orders'],
      dimensions: ['c_sales.created_month'],
      order: { 'c_sales.created_month': 'asc' },
    });
    expect(byMonth.length).toBeGreaterThan(1);
    expect(viaReference).toEqual(
      byMonth.map((r) => ({
        'c_sales.created_month': r['c_orders.created_at.month'],
        'c_sales.orders': r['c_orders.count'],
      })),
    );
    // In UTC, convertTz changes nothing: the same months
    const local = await load({
      measures: ['c_orders.count'],
      timeDimensions: [{ dimension: 'c_orders.created_local', granularity: 'month' }],
      order: { 'c_orders.created_local': 'asc' },
    });
    expect(local.map((r) => [r['c_orders.created_local.month'], r['c_orders.count']])).toEqual(
      byMonth.map((r) => [r['c_orders.created_at.month'], r['c_orders.count']]),
    );
  });
});
