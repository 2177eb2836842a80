import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';
const postgresUrl = inject('postgresUrl');
const secret = 'hunter2-never-shown';

/**
 * Data sources (issue 21 item 4): a connection test says what failed in words a user can act on
 * and never names the password; a deployment whose source does not answer is not `ready`; the
 * catalogue lists schemas, tables, columns, primary and foreign keys on PostgreSQL and DuckDB,
 * and a model generated from it answers queries.
 */
describe('data sources', () => {
  let server: TestServer;
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  describe.skipIf(!postgresUrl)('on PostgreSQL', () => {
    const url = new URL(postgresUrl ?? 'postgres://127.0.0.1/test');
    const pgSettings = {
      type: 'postgres',
      host: url.hostname,
      port: Number(url.port || 5432),
      database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
      user: decodeURIComponent(url.username) || 'postgres',
      password: url.password ? decodeURIComponent(url.password) : secret,
    };
    const schema = `ds_${process.pid}_${Date.now().toString(36)}`;
    let admin: pg.Client;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: postgresUrl! });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.query(`CREATE TABLE ${schema}.shops (id integer PRIMARY KEY, "City Name" text NOT NULL)`);
      await admin.query(`CREATE TABLE ${schema}.sales (
        shop_id integer NOT NULL REFERENCES ${schema}.shops (id),
        line integer NOT NULL,
        amount numeric(10,2),
        sold_at timestamp,
        paid boolean,
        PRIMARY KEY (shop_id, line))`);
      await admin.query(`INSERT INTO ${schema}.shops VALUES (1, 'Lyon'), (2, 'Oslo')`);
      await admin.query(`INSERT INTO ${schema}.sales VALUES
        (1, 1, 10.50, '2024-01-02', true), (1, 2, 4.50, '2024-01-03', false), (2, 1, 7, '2024-02-01', true)`);
    });
    afterAll(async () => {
      await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin?.end();
    });

    it.each([
      [
        { port: 1 },
        'host_unreachable',
        'port',
        /Nothing accepts connections at .*:1: check the host and port/,
      ],
      [
        { user: 'tessera_no_such_role' },
        'login_refused',
        'password',
        /refused the login of user tessera_no_such_role/,
      ],
      [{ database: 'tessera_no_such_db' }, 'database_missing', 'database', /no database tessera_no_such_db/],
      [{ host: 'nohost.invalid' }, 'host_unknown', 'host', /nohost\.invalid cannot be resolved/],
    ])('a test of unsaved settings %o says %s', async (change, problem, field, words) => {
      const res = await call('POST', '/api/v1/data-sources/test', {
        ...pgSettings,
        ...change,
        password: secret,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
      expect(res.body).not.toContain(secret);
    });

    it('a passing test, and a missing host refused as a field problem', async () => {
      const ok = await call('POST', '/api/v1/data-sources/test', pgSettings);
      expect(ok.json()).toMatchObject({ ok: true, problem: null });
      const bad = await call('POST', '/api/v1/data-sources/test', { type: 'postgres', database: 'x' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual([{ field: 'body/host', message: 'is required for type postgres' }]);
    });

    it('creating a deployment on a dead port stores it as `databases`, not `ready`, until a test passes', async () => {
      const created = await call('POST', '/api/v1/deployments', {
        name: 'Dead port',
        dataSource: { ...pgSettings, port: 1, password: secret },
      });
      expect(created.statusCode, created.body).toBe(200);
      const body = created.json();
      expect(body).toMatchObject({
        creationStep: 'databases',
        connection: { ok: false, problem: 'host_unreachable' },
        dataSource: { hasPassword: true },
      });
      expect(created.body).not.toContain(secret);
      expect((await call('GET', `/api/v1/deployments/${body.id}`)).json().creationStep).toBe('databases');

      // Testing edits does not save them; the saved password is kept when the edit omits it.
      const edit = await call('POST', `/api/v1/deployments/${body.id}/data-source/test`, {
        dataSource: { ...pgSettings, password: undefined },
      });
      expect(edit.json()).toMatchObject(
        url.password ? { ok: false, problem: 'login_refused' } : { ok: true },
      );
      const saved = await call('POST', `/api/v1/deployments/${body.id}/data-source/test`, {});
      expect(saved.json()).toMatchObject({ ok: false, problem: 'host_unreachable' });
      expect((await call('GET', `/api/v1/deployments/${body.id}`)).json().creationStep).toBe('databases');
      const badEdit = await call('POST', `/api/v1/deployments/${body.id}/data-source/test`, {
        dataSource: { type: 'postgres', database: 'x' },
      });
      expect(badEdit.statusCode).toBe(400);
      expect(badEdit.json().errors[0].field).toBe('body/dataSource/host');
      const fixed = await call('PUT', `/api/v1/deployments/${body.id}`, {
        dataSource: { ...pgSettings, password: url.password ? decodeURIComponent(url.password) : '' },
      });
      expect(fixed.json()).toMatchObject({ creationStep: 'ready', connection: { ok: true } });
      const savedAgain = await call('POST', `/api/v1/deployments/${body.id}/data-source/test`, {});
      expect(savedAgain.json()).toMatchObject({ ok: true });
    });

    it('lists schemas, tables, columns with types, primary and foreign keys; generates a model that answers', async () => {
      const created = (
        await call('POST', '/api/v1/deployments', { name: 'Shops', dataSource: { ...pgSettings } })
      ).json();
      expect(created.creationStep).toBe('ready');
      const res = await call('GET', `/api/v1/deployments/${created.id}/data-source/tables`);
      expect(res.statusCode, res.body).toBe(200);
      const mine = res.json().schemas.find((s: { name: string }) => s.name === schema);
      expect(mine.tables.map((t: { name: string }) => t.name).sort()).toEqual(['sales', 'shops']);
      const sales = mine.tables.find((t: { name: string }) => t.name === 'sales');
      expect(sales.columns).toEqual([
        { name: 'shop_id', type: 'integer', nullable: false, primaryKey: true },
        { name: 'line', type: 'integer', nullable: false, primaryKey: true },
        { name: 'amount', type: 'numeric(10,2)', nullable: true, primaryKey: false },
        { name: 'sold_at', type: 'timestamp without time zone', nullable: true, primaryKey: false },
        { name: 'paid', type: 'boolean', nullable: true, primaryKey: false },
      ]);
      expect(sales.foreignKeys).toEqual([
        {
          columns: ['shop_id'],
          referencedSchema: schema,
          referencedTable: 'shops',
          referencedColumns: ['id'],
        },
      ]);

      const generated = await call('POST', `/build/api/v1/deployments/${created.id}/data-model/generate`, {
        tables: [
          { schema, name: 'shops' },
          { schema, name: 'sales' },
        ],
      });
      expect(generated.statusCode, generated.body).toBe(200);
      const files = generated.json().files;
      expect(files.map((f: { path: string }) => f.path)).toEqual(['model/shops.yml', 'model/sales.yml']);
      expect(files[1].content).toContain('relationship: many_to_one');
      expect(files[0].content).toContain('sql: \'"City Name"\'');
      const put = await call('PUT', `/build/api/v1/deployments/${created.id}/data-model/files`, { files });
      expect(put.statusCode, put.body).toBe(200);

      const token = await tokenFor(server, created.id);
      const load = await server.app.inject({
        method: 'POST',
        url: `/data/${created.id}/cubejs-api/v1/load`,
        headers: { authorization: token },
        payload: {
          query: {
            measures: ['sales.total_amount', 'sales.count'],
            dimensions: ['shops.city_name'],
            order: { 'shops.city_name': 'asc' },
          },
        },
      });
      expect(load.statusCode, load.body).toBe(200);
      expect(load.json().data).toEqual([
        { 'shops.city_name': 'Lyon', 'sales.total_amount': '15.00', 'sales.count': '2' },
        { 'shops.city_name': 'Oslo', 'sales.total_amount': '7.00', 'sales.count': '1' },
      ]);
    });

    it('a generate naming a table the source lacks is a 400 naming it', async () => {
      const res = await call(
        'POST',
        `/build/api/v1/deployments/${server.demoDeploymentId}/data-model/generate`,
        {
          tables: [{ schema: 'main', name: 'no_such_table' }],
        },
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ field: 'body/tables/0' });
    });
  });

  it('lists DuckDB tables with keys, and says which file is missing', async () => {
    const dir = path.join(server.config.dataDir, 'warehouses');
    mkdirSync(dir, { recursive: true });
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path.join(dir, 'keys.duckdb'));
    const conn = await instance.connect();
    await conn.run('CREATE TABLE teams (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL)');
    await conn.run(
      'CREATE TABLE players (id BIGINT PRIMARY KEY, team_id INTEGER REFERENCES teams (id), born DATE, rating DOUBLE)',
    );
    conn.closeSync();
    instance.closeSync();

    const missing = await call('POST', '/api/v1/data-sources/test', {
      type: 'duckdb',
      path: 'warehouses/gone.duckdb',
    });
    expect(missing.json()).toMatchObject({ ok: false, problem: 'file_missing', field: 'path' });
    const created = (
      await call('POST', '/api/v1/deployments', {
        name: 'Teams',
        dataSource: { type: 'duckdb', path: 'warehouses/keys.duckdb' },
      })
    ).json();
    expect(created).toMatchObject({ creationStep: 'ready', connection: { ok: true } });
    const res = await call('GET', `/api/v1/deployments/${created.id}/data-source/tables`);
    expect(res.statusCode, res.body).toBe(200);
    const main = res.json().schemas.find((s: { name: string }) => s.name === 'main');
    const players = main.tables.find((t: { name: string }) => t.name === 'players');
    expect(players.columns).toEqual([
      { name: 'id', type: 'BIGINT', nullable: false, primaryKey: true },
      { name: 'team_id', type: 'INTEGER', nullable: true, primaryKey: false },
      { name: 'born', type: 'DATE', nullable: true, primaryKey: false },
      { name: 'rating', type: 'DOUBLE', nullable: true, primaryKey: false },
    ]);
    expect(players.foreignKeys).toEqual([
      { columns: ['team_id'], referencedSchema: 'main', referencedTable: 'teams', referencedColumns: ['id'] },
    ]);
  });

  it('a deployment whose source cannot be reached answers its tables with 503 in words, not internals', async () => {
    const created = (
      await call('POST', '/api/v1/deployments', {
        name: 'Nowhere',
        dataSource: { type: 'duckdb', path: 'warehouses/nowhere.duckdb' },
      })
    ).json();
    expect(created.creationStep).toBe('databases');
    const res = await call('GET', `/api/v1/deployments/${created.id}/data-source/tables`);
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('warehouse_unavailable');
    expect(res.body).not.toMatch(/nowhere|ENOENT/);
  });
});
