import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type Replica,
  startReplica,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { loadConfig } from '../../config/config.ts';
import { listen, normalizeNumbers, tokenFor } from '../data/test-support.ts';
import { shopManifest } from './test-support.ts';

/**
 * dbt sync end to end (issue 25 item 3): a dbt project's manifest, written for the test in dbt's
 * v12 format, synced into cubes on a branch of a deployment over a DuckDB warehouse holding the
 * project's tables; the branch validates and answers the data API as hand-written SQL does. Jobs
 * are claimed rows: a second replica never runs one twice, and a cancelled one commits nothing.
 */
describe('dbt sync', () => {
  let server: TestServer;
  /** A replica with background work on: it runs the jobs it accepts (the main server's is off). */
  let worker: Replica;
  let deploymentId: number;
  let baseUrl: string;
  let expected: Record<string, unknown>[];
  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, app = server.app) =>
    app.inject({
      method,
      url: `/api/v1/deployments/${deploymentId}/dbt-sync${url}`,
      headers: bearer(server.adminKey),
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
  const statusOf = async (id: string) => (await api('GET', `/${id}`)).json();

  beforeAll(async () => {
    server = await startTestServer();
    const defaults = loadConfig({});
    // Its sweep never fires during the file: the tests below drive the sweep (`work`) themselves.
    worker = await startReplica(server, {
      config: { scheduler: { ...defaults.scheduler, disabled: false, intervalMs: 3_600_000 } },
    });
    // The warehouse the dbt project built: its DuckDB catalog is named after the file, `shop`.
    const dir = path.join(server.config.dataDir, 'warehouses');
    mkdirSync(dir, { recursive: true });
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path.join(dir, 'shop.duckdb'));
    const conn = await instance.connect();
    for (const statement of [
      'CREATE TABLE customers (customer_id INTEGER, name VARCHAR, country VARCHAR, signed_up_at TIMESTAMP, preferences VARCHAR)',
      `INSERT INTO customers VALUES (1, 'Ada', 'DE', '2026-01-05 10:00', '{}'), (2, 'Bo', 'FR', '2026-02-01 09:00', '{}'),
        (3, 'Cy', 'DE', '2026-02-11 12:00', '{}'), (4, 'Di', 'US', '2026-03-01 08:00', '{}')`,
      `CREATE TABLE orders (order_id INTEGER, customer_id INTEGER, status VARCHAR, amount DECIMAL(10,2), is_gift BOOLEAN,
        ordered_at TIMESTAMP, note VARCHAR)`,
      `INSERT INTO orders VALUES (10, 1, 'shipped', 120.50, false, '2026-03-02 10:00', null),
        (11, 1, 'placed', 30.00, true, '2026-03-05 11:00', 'gift wrap'), (12, 2, 'shipped', 99.99, false, '2026-03-06 12:00', null),
        (13, 3, 'returned', 15.25, true, '2026-04-01 13:00', null), (14, 3, 'shipped', 40.00, false, '2026-04-02 14:00', null),
        (15, 4, 'shipped', 5.00, false, '2026-04-03 15:00', null)`,
      'CREATE TABLE order_items (order_item_id INTEGER, product_id INTEGER)',
    ])
      await conn.run(statement);
    // The hand-written SQL the generated cubes must agree with.
    const reader = await conn.runAndReadAll(`
      SELECT c.country, SUM(o.amount) AS revenue, COUNT(*) AS orders,
        SUM(o.amount) / COUNT(*) AS aov, SUM(CASE WHEN o.is_gift THEN 1 ELSE 0 END) AS gifts,
        COUNT(DISTINCT o.customer_id) AS buyers
      FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id
      GROUP BY c.country ORDER BY c.country`);
    expected = reader.getRowObjectsJS().map((r) => ({
      'customers.country': r.country,
      'orders.revenue': String(r.revenue),
      'orders.order_count': String(r.orders),
      'orders.average_order_value': String(r.aov),
      'orders.gift_orders': String(r.gifts),
      'orders.customers_with_orders': String(r.buyers),
    }));
    conn.closeSync();
    instance.closeSync();
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'Shop', dataSource: { type: 'duckdb', path: 'warehouses/shop.duckdb' } },
    });
    expect(created.json()).toMatchObject({ creationStep: 'ready' });
    deploymentId = created.json().id;
    baseUrl = await listen(server);
  });
  afterAll(async () => {
    await worker?.close();
    await server?.close();
  });

  it('syncs a manifest onto a branch whose cubes validate and answer as hand-written SQL', async () => {
    const started = await api('POST', '', { manifest: shopManifest('shop'), ref: 'main' }, worker.app);
    expect(started.statusCode, started.body).toBe(200);
    const { syncJobId, branchName, workflowId } = started.json();
    expect(branchName).toMatch(/^dbt-sync\/main-\d{14}-[0-9a-f]{8}$/);
    expect(workflowId).toBe(syncJobId);

    // The replica that accepted it runs it; any replica answers for it.
    let status = await statusOf(syncJobId);
    for (let i = 0; i < 200 && !['COMPLETED', 'FAILED'].includes(status.status); i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await statusOf(syncJobId);
    }
    expect(status).toMatchObject({
      status: 'COMPLETED',
      progress: { stage: 'COMPLETED', percentComplete: 100 },
    });

    const result = (await api('GET', `/${syncJobId}/result`)).json();
    expect(result).toMatchObject({
      syncJobId,
      cubeCount: 3,
      manifestStats: { models: 3, sources: 1, macros: 3 },
      generatedFiles: [
        { path: 'model/dbt/customers.yml' },
        { path: 'model/dbt/order_items.yml' },
        { path: 'model/dbt/orders.yml' },
      ],
    });
    const logs = (await api('GET', `/${syncJobId}/logs`))
      .json()
      .items.map((l: { message: string }) => l.message);
    expect(logs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Generated cube orders from model\.shop\.orders: 7 dimensions, 8 measures, 1 joins$/,
        ),
        expect.stringMatching(/^Skipped customers\.preferences: data_type json/),
        expect.stringMatching(/^Skipped metric cumulative_revenue/),
        expect.stringMatching(/^Wrote 3 files onto branch dbt-sync\/main-/),
      ]),
    );
    const [run] = (await api('GET', '?status=COMPLETED&trigger=api')).json().items;
    expect(run).toMatchObject({
      syncJobId,
      deploymentId,
      status: 'COMPLETED',
      trigger: 'api',
      source: 'manifest',
      branchName,
      gitRef: 'main',
      stats: { cubeCount: 3, dbtVersion: '1.8.7', manifestGeneratedAt: '2026-11-20T09:30:00.123456Z' },
    });
    expect(run.phases.map((p: { phase: string }) => p.phase)).toEqual([
      'parse-manifest',
      'generate-cubes',
      'write-cube-files',
    ]);

    const validated = await server.app.inject({
      url: `/build/api/v1/deployments/${deploymentId}/data-model/validate?branchName=${encodeURIComponent(branchName)}`,
      headers: bearer(server.adminKey),
    });
    expect(validated.json()).toMatchObject({ valid: true, errors: [], cubesCount: 3 });

    // Over real HTTP, with a token that reads the branch.
    const token = await tokenFor(server, deploymentId, { branch: branchName });
    const res = await fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: {
          measures: [
            'orders.revenue',
            'orders.order_count',
            'orders.average_order_value',
            'orders.gift_orders',
            'orders.customers_with_orders',
          ],
          dimensions: ['customers.country'],
          order: { 'customers.country': 'asc' },
        },
      }),
    });
    const body = (await res.json()) as { data: Record<string, unknown>[]; error?: string };
    expect(res.status, body.error).toBe(200);
    expect(normalizeNumbers(body.data)).toEqual(normalizeNumbers(expected));
    expect(body.data).toHaveLength(3);
  });

  it('with output "files" generates without committing, and pages the files', async () => {
    const { syncJobId, branchName } = (
      await api('POST', '', { manifest: shopManifest('shop'), output: 'files', branchName: 'dbt/files-only' })
    ).json();
    expect(branchName).toBe('dbt/files-only');
    expect((await api('GET', `/${syncJobId}/generated-files`)).statusCode).toBe(409);
    expect(await server.services.dbtSyncRunner.process(syncJobId)).toBe(true);
    const first = (await api('GET', `/${syncJobId}/generated-files?first=2`)).json();
    expect(first.items.map((f: { path: string }) => f.path)).toEqual([
      'model/dbt/customers.yml',
      'model/dbt/order_items.yml',
    ]);
    expect(first.items[1].content).toMatch(/Generated by dbt sync from model\.shop\.order_items/);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (
      await api('GET', `/${syncJobId}/generated-files?first=2&after=${first.pageInfo.endCursor}`)
    ).json();
    expect(second.items.map((f: { path: string }) => f.path)).toEqual(['model/dbt/orders.yml']);
    expect(second.items[0].content).toMatch(/relationship: many_to_one/);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const branches = await server.app.inject({
      url: `/build/api/v1/deployments/${deploymentId}/branches`,
      headers: bearer(server.adminKey),
    });
    expect(branches.json().items.map((b: { name: string }) => b.name)).not.toContain('dbt/files-only');
  });

  it('runs a job once however many replicas race for it, and a cancelled one commits nothing', async () => {
    const { syncJobId, branchName } = (
      await api('POST', '', { manifest: shopManifest('shop'), branchName: 'dbt/raced' })
    ).json();
    const ran = await Promise.all([
      server.services.dbtSyncRunner.process(syncJobId),
      worker.services.dbtSyncRunner.process(syncJobId),
      server.services.dbtSyncRunner.process(syncJobId),
    ]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect((await statusOf(syncJobId)).status).toBe('COMPLETED');
    const writes = await server.store.db
      .selectFrom('audit_log')
      .select('after')
      .where('action', '=', 'data_model.write_files')
      .execute();
    expect(writes.filter((w) => JSON.stringify(w.after).includes(`"${branchName}"`))).toHaveLength(1);

    const cancelled = (
      await api('POST', '', { manifest: shopManifest('shop'), branchName: 'dbt/cancelled' })
    ).json();
    expect((await api('GET', `/${cancelled.syncJobId}/result`)).statusCode).toBe(409);
    expect((await api('DELETE', `/${cancelled.syncJobId}`)).json().message).toMatch(/cancelled/);
    expect(await server.services.dbtSyncRunner.process(cancelled.syncJobId)).toBe(false);
    expect(await statusOf(cancelled.syncJobId)).toMatchObject({
      status: 'FAILED',
      error: 'The sync was cancelled',
    });
    expect(
      (await api('GET', '?status=CANCELLED')).json().items.map((r: { syncJobId: string }) => r.syncJobId),
    ).toEqual([cancelled.syncJobId]);
    const files = await server.app.inject({
      url: `/build/api/v1/deployments/${deploymentId}/data-model/files?branchName=dbt/cancelled`,
      headers: bearer(server.adminKey),
    });
    expect(files.json().items).toEqual([]);
    // A finished job's record is removed by a second DELETE; then it is gone.
    expect((await api('DELETE', `/${cancelled.syncJobId}`)).json().message).toMatch(/removed/);
    expect((await api('GET', `/${cancelled.syncJobId}`)).statusCode).toBe(404);
  });

  it('takes over a job whose runner died once its lease passed, and not before', async () => {
    const { syncJobId } = (await api('POST', '', { manifest: shopManifest('shop'), output: 'files' })).json();
    // A runner claimed it and died: its lease still holds, so no sweep touches it.
    const lease = (until: Date) =>
      server.store.db
        .updateTable('dbt_sync_jobs')
        .set({ claim_token: 'dead-runner', lease_until: until })
        .where('sync_job_id', '=', syncJobId)
        .execute();
    await lease(new Date(Date.now() + 60_000));
    expect(await worker.services.dbtSyncRunner.work()).toBe(0);
    expect((await statusOf(syncJobId)).status).toBe('INITIALIZING');
    await lease(new Date(Date.now() - 1_000));
    expect(await worker.services.dbtSyncRunner.work()).toBe(1);
    expect((await statusOf(syncJobId)).status).toBe('COMPLETED');
  });

  it('refuses bad manifests with a 400 naming the field, and makes no job', async () => {
    const before = (await api('GET', '?first=100')).json().items.length;
    const manifest = shopManifest('shop');
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          manifest: {
            ...manifest,
            metadata: { dbt_schema_version: 'https://schemas.getdbt.com/dbt/manifest/v11.json' },
          },
        },
        'body/manifest/metadata/dbt_schema_version',
      ],
      [{ manifest: { ...manifest, nodes: undefined } }, 'body/manifest/nodes'],
      [
        { manifest: { ...manifest, nodes: { 'seed.shop.x': { resource_type: 'seed' } } } },
        'body/manifest/nodes',
      ],
      [
        { manifest: { ...manifest, nodes: { 'model.shop.x': { resource_type: 'model', name: 'x' } } } },
        'body/manifest/nodes/model.shop.x/schema',
      ],
      [{}, 'body/manifest'],
      [{ manifest, source: 'git' }, 'body/source'],
      [{ manifest, branchName: 'main' }, 'body/branchName'],
    ];
    for (const [payload, field] of cases) {
      const res = await api('POST', '', payload);
      expect(res.statusCode, field).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await api('GET', '?first=100')).json().items).toHaveLength(before);
    expect((await api('GET', '/nosuchjob')).statusCode).toBe(404);
  });
});
