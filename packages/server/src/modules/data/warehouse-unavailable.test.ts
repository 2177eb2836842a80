import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { publishBoard, widgetData } from '../dashboard-data/test-support.ts';
import { cubesql } from './cubesql/test-support.ts';
import { tokenFor } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const postgresUrl = inject('postgresUrl');

/**
 * A deployment whose warehouse cannot be reached answers 503 `warehouse_unavailable` on every
 * path that runs a query (widget data in problem+json, `/v1/load` and `/v1/cubesql` in Cube's
 * shape), in words that name neither the host nor the file; what needs no warehouse still works.
 */
describe('a deployment whose warehouse is unreachable', () => {
  let server: TestServer;
  let publicId: string;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    publicId = (await publishBoard(server)).board.publicId;
    token = await tokenFor(server, server.demoDeploymentId);
  });
  afterAll(() => server?.close());

  const setSource = async (dataSource: Record<string, unknown>) => {
    const res = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/deployments/${server.demoDeploymentId}`,
      headers: bearer(server.adminKey),
      payload: { dataSource },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const load = (query: Record<string, unknown>) =>
    server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query },
    });

  /** Widget data, /v1/load and /v1/cubesql all answer 503 without naming `secret`. */
  const expectUnavailable = async (secret: string) => {
    const widget = await widgetData(server, publicId, 'status');
    expect(widget.status, JSON.stringify(widget.body)).toBe(503);
    expect(widget.body).toMatchObject({ status: 503, code: 'warehouse_unavailable' });
    const loaded = await load({ measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(loaded.statusCode, loaded.body).toBe(503);
    expect(Object.keys(loaded.json())).toEqual(['error']);
    const sql = await cubesql(server, server.demoDeploymentId, token, 'SELECT MEASURE(count) FROM orders');
    expect(sql.status).toBe(503);
    for (const body of [JSON.stringify(widget.body), loaded.body, sql.error ?? '']) {
      expect(body).toMatch(/warehouse cannot be reached/);
      expect(body).not.toContain(secret);
      expect(body).not.toMatch(/ENOTFOUND|ENOENT|getaddrinfo|\.duckdb|database "/);
    }
    // Meta and the SQL a query compiles to need no warehouse.
    const meta = await server.app.inject({
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/meta`,
      headers: { authorization: token },
    });
    expect(meta.statusCode).toBe(200);
  };

  it('on PostgreSQL at a host that does not resolve', async () => {
    await setSource({ type: 'postgres', host: 'nohost.invalid', database: 'warehouse' });
    await expectUnavailable('nohost');
  });

  it.skipIf(!postgresUrl)('on PostgreSQL whose database does not exist (server up)', async () => {
    const url = new URL(postgresUrl!);
    await setSource({
      type: 'postgres',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: 'tessera_no_such_database',
      user: decodeURIComponent(url.username) || 'postgres',
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    });
    await expectUnavailable('tessera_no_such_database');
  });

  it('on a DuckDB file that does not exist, and serves it once the file is there', async () => {
    await setSource({ type: 'duckdb', path: 'warehouses/missing.duckdb' });
    await expectUnavailable('missing');
    // The failed open is not remembered: the file appearing is enough.
    const sample = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(sample, scale);
    mkdirSync(path.join(server.config.dataDir, 'warehouses'));
    copyFileSync(sample, path.join(server.config.dataDir, 'warehouses/missing.duckdb'));
    const res = await load({ measures: ['orders.count'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(Number(res.json().data[0]['orders.count'])).toBeGreaterThan(0);
    expect((await widgetData(server, publicId, 'status')).status).toBe(200);
  });
});

/**
 * A DuckDB `path` is `:sample:` or a file inside the data directory: the API cannot point a
 * deployment at other files of the server, nor at a remote or in-memory database.
 */
describe('DuckDB data-source paths', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const write = (method: 'POST' | 'PUT', url: string, dataSource: Record<string, unknown>) =>
    server.app.inject({
      method,
      url,
      headers: bearer(server.adminKey),
      payload: method === 'POST' ? { name: 'duck', dataSource } : { dataSource },
    });
  const count = async () =>
    (await server.app.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) })).json().count;

  const refused = [
    '/etc/passwd',
    '../outside.duckdb',
    'a/../../outside.duckdb',
    'data//x.duckdb',
    '~/x.duckdb',
    ':memory:',
    'md:my_db',
    's3://bucket/x.duckdb',
    'C:\\x.duckdb',
    'x.duckdb\u0000',
  ];

  it.each(refused)('refuses %j with 400 naming the field, changing nothing', async (bad) => {
    const before = await count();
    const created = await write('POST', '/api/v1/deployments', { type: 'duckdb', path: bad });
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json().errors).toEqual([{ field: 'body/dataSource/path', message: expect.any(String) }]);
    expect(await count()).toBe(before);

    const url = `/api/v1/deployments/${server.demoDeploymentId}`;
    const updated = await write('PUT', url, { type: 'duckdb', path: bad });
    expect(updated.statusCode, updated.body).toBe(400);
    expect(updated.json().errors[0].field).toBe('body/dataSource/path');
    const now = await server.app.inject({ url, headers: bearer(server.adminKey) });
    expect(now.json().dataSource).toMatchObject({ type: 'duckdb', path: ':sample:' });
  });

  it('accepts :sample: and relative paths inside the data directory', async () => {
    for (const good of [':sample:', 'warehouse.duckdb', 'team a/sales-2024.duckdb', './w.duckdb']) {
      const res = await write('POST', '/api/v1/deployments', { type: 'duckdb', path: good });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().dataSource.path).toBe(good);
    }
  });
});
