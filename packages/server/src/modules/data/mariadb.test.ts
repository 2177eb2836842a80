import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { QueryCancelledError } from '../../datasources/driver.ts';
import { MysqlDriver } from '../../datasources/mysql-driver.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { copySampleToMysql } from '../../datasources/sample/copy-to-mysql.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { engineQueries } from './engine-queries.ts';
import { client, copyDemoModel, listen, normalizeNumbers, rawResponse, tokenFor } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
// the data API's query timeout, which the slow cube below outlasts
process.env.TESSERA_QUERY_TIMEOUT_MS = '2000';
const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root' };
const secret = 'hunter2-never-shown';

async function mariadbUp(): Promise<boolean> {
  try {
    await (await mysql.createConnection({ ...MARIADB, connectTimeout: 2000 })).end();
    return true;
  } catch {
    return false;
  }
}
const up = await mariadbUp();

/** The queries of engines.test.ts (DuckDB against PostgreSQL), here DuckDB against MariaDB. */
const queries = engineQueries;

// cubes only this deployment has: one MySQL cannot compute, one whose SQL the engine refuses,
// one that takes seconds (to watch its tag in the process list and cancel it)
const extraModel = `cubes:
  - name: amounts
    sql_table: orders
    measures:
      - name: median_amount
        type: median
        sql: amount
      - name: broken
        type: sum
        sql: no_such_column
  - name: slow
    sql: SELECT SLEEP(6) AS s, 1 AS id
    measures:
      - name: count
        type: count
`;

/**
 * MySQL and MariaDB as a warehouse (issue 24 items 1-3) on the real MariaDB at 127.0.0.1:3306, in
 * a database of its own dropped after the run: the data API's answers equal DuckDB's on the same
 * rows and hand-written SQL's; a connection test says what failed without naming the password;
 * the catalogue lists keys; an engine error is a 400 when the query is at fault, a 503 when the
 * engine is; a statement carries a comment naming Tessera and the deployment and is killed on
 * the engine when its request is cancelled.
 */
describe.skipIf(!up)('MySQL/MariaDB data sources', () => {
  let server: TestServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let maria: ReturnType<typeof client>;
  let mariaToken: string;
  let deploymentId: number;
  let admin: mysql.Connection;
  const database = `tessera_maria_${process.pid}_${Date.now()}`;
  const noGrants = `tessera_ng_${process.pid}`;
  const settings = { type: 'mysql', host: MARIADB.host, port: MARIADB.port, database, user: 'root' };
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
    admin = await mysql.createConnection(MARIADB);
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE USER IF NOT EXISTS '${noGrants}'@'%' IDENTIFIED BY '${secret}'`);
    await admin.query(`CREATE USER IF NOT EXISTS '${noGrants}'@'localhost' IDENTIFIED BY '${secret}'`);
    const [[zones]] = (await admin.query(
      "SELECT CONVERT_TZ('2024-01-01', 'UTC', 'America/New_York') AS t",
    )) as unknown as [[{ t: unknown }]];
    if (zones.t === null) throw new Error('MariaDB has no time-zone tables: load them (.ci/run does)');
    const file = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(file, scale);
    await copySampleToMysql(file, { ...MARIADB, database });

    const created = await call('POST', '/api/v1/deployments', { name: 'maria', dataSource: settings });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: false });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    mariaToken = await tokenFor(server, deploymentId, ctx);
    maria = client(baseUrl, deploymentId, mariaToken);
  });
  afterAll(async () => {
    await server?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin?.query(`DROP USER IF EXISTS '${noGrants}'@'%'`);
    await admin?.query(`DROP USER IF EXISTS '${noGrants}'@'localhost'`);
    await admin?.end();
  });

  /** The demo's model files, and the extra cubes, for a deployment. */
  const copyModel = async (to: number) => {
    const files = await server.store.db
      .selectFrom('model_files')
      .select(['path', 'content', 'branch'])
      .where('deployment_id', '=', server.demoDeploymentId)
      .execute();
    await server.store.db
      .insertInto('model_files')
      .values([
        ...files.map((f) => ({ ...f, deployment_id: to })),
        { path: 'model/extra.yml', content: extraModel, branch: files[0]!.branch, deployment_id: to },
      ])
      .execute();
  };

  const load = (query: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: mariaToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of Object.entries(queries)) {
      it(name, async () => {
        const [d, m] = await Promise.all([duck.load(query), maria.load(query)]);
        expect(rawResponse(m).results[0]!.dbType).toBe('mysql');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(m.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it('gives what hand-written SQL gives, by status and by New York month', async () => {
    const byStatus = await maria.load(queries.by_status!);
    const [statusRows] = (await admin.query(
      `SELECT status, COUNT(*) AS n, SUM(amount) AS total FROM ${database}.orders GROUP BY status ORDER BY status`,
    )) as unknown as [Array<{ status: string; n: number; total: string }>];
    expect(
      byStatus
        .rawData()
        .map((r) => [r['orders.status'], Number(r['orders.count']), Number(r['orders.total_amount'])]),
    ).toEqual(statusRows.map((r) => [r.status, Number(r.n), Number(r.total)]));

    const monthly = await maria.load(queries.monthly_in_new_york!);
    const [monthRows] = (await admin.query(
      `SELECT DATE_FORMAT(CONVERT_TZ(created_at, '+00:00', 'America/New_York'), '%Y-%m-01T00:00:00.000') AS m, COUNT(*) AS n
       FROM ${database}.orders
       WHERE created_at >= '2024-01-01 05:00:00' AND created_at < '2025-01-01 05:00:00' GROUP BY 1 ORDER BY 1`,
    )) as unknown as [Array<{ m: string; n: number }>];
    expect(monthly.rawData().map((r) => [r['orders.created_at.month'], Number(r['orders.count'])])).toEqual(
      monthRows.map((r) => [r.m, Number(r.n)]),
    );
  });

  it('refuses a median with a 400 naming the feature and the engine', async () => {
    const res = await load({ measures: ['amounts.median_amount'] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/Median measures are not supported on MySQL\/MariaDB/);
  });

  it("answers the engine's refusal of the model's SQL with a 400, an engine out of reach with a 503", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/Query failed: Unknown column '[a-z_.]*no_such_column'/);

    const dead = await call('POST', '/api/v1/deployments', {
      name: 'dead maria',
      dataSource: { ...settings, port: 1, password: secret },
    });
    await copyModel(dead.json().id);
    const deadToken = await tokenFor(server, dead.json().id, {});
    const res = await fetch(`${baseUrl}/data/${dead.json().id}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: deadToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { measures: ['orders.count'] } }),
    });
    expect(res.status).toBe(503);
    expect(await res.text()).not.toContain(secret);
  });

  it.each([
    [
      { port: 1 },
      'host_unreachable',
      'port',
      /Nothing accepts connections at 127\.0\.0\.1:1: check the host and port, and that MySQL is running/,
    ],
    [
      { user: 'tessera_no_such_user' },
      'login_refused',
      'password',
      /MySQL refused the login of user tessera_no_such_user/,
    ],
    [
      // root logs in without a password: with one, the login itself is refused
      { database: 'tessera_no_such_db', password: undefined },
      'database_missing',
      'database',
      /There is no database tessera_no_such_db/,
    ],
    [{ host: 'nohost.invalid' }, 'host_unknown', 'host', /nohost\.invalid cannot be resolved/],
    [{ user: noGrants }, 'permission_missing', 'user', /may not read database .*: grant it SELECT/],
  ])('a connection test of %o says %s, never the password', async (change, problem, field, words) => {
    const res = await call('POST', '/api/v1/data-sources/test', { ...settings, password: secret, ...change });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
    expect(res.body).not.toContain(secret);
  });

  it('passes a connection test of the saved source', async () => {
    const res = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(res.json()).toMatchObject({ ok: true, problem: null });
  });

  it('lists schemas, tables, columns with types, primary and foreign keys', async () => {
    await admin.query(
      `CREATE TABLE ${database}.shops (id INT PRIMARY KEY, \`City Name\` VARCHAR(40) NOT NULL)`,
    );
    await admin.query(`CREATE TABLE ${database}.sales (
      shop_id INT NOT NULL, line INT NOT NULL, amount DECIMAL(10,2), PRIMARY KEY (shop_id, line),
      FOREIGN KEY (shop_id) REFERENCES ${database}.shops (id))`);
    const res = await call('GET', `/api/v1/deployments/${deploymentId}/data-source/tables`);
    expect(res.statusCode, res.body).toBe(200);
    const schema = res.json().schemas.find((s: { name: string }) => s.name === database);
    const table = (name: string) => schema.tables.find((t: { name: string }) => t.name === name);
    expect(table('shops')).toEqual({
      schema: database,
      name: 'shops',
      columns: [
        { name: 'id', type: 'int(11)', nullable: false, primaryKey: true },
        { name: 'City Name', type: 'varchar(40)', nullable: false, primaryKey: false },
      ],
      foreignKeys: [],
    });
    expect(
      table('sales')
        .columns.filter((c: { primaryKey: boolean }) => c.primaryKey)
        .map((c: { name: string }) => c.name),
    ).toEqual(['shop_id', 'line']);
    expect(table('sales').foreignKeys).toEqual([
      {
        columns: ['shop_id'],
        referencedSchema: database,
        referencedTable: 'shops',
        referencedColumns: ['id'],
      },
    ]);
    expect(table('orders').columns.map((c: { name: string }) => c.name)).toContain('created_at');
  });

  it('tags its statements with Tessera and the deployment, and kills one that outlasts the query timeout', async () => {
    const started = Date.now();
    const request = load({ measures: ['slow.count'] });
    const running = async () => {
      // this file's database: deployment ids repeat across the test stores
      const [rows] = (await admin.query(
        "SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE '/* tessera deployment=%' AND DB = ?",
        [database],
      )) as unknown as [Array<{ ID: number; INFO: string }>];
      return rows.filter((r) =>
        new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]{12} \\*/ `).test(r.INFO),
      );
    };
    let seen: Array<{ INFO: string }> = [];
    for (let i = 0; i < 40 && seen.length === 0; i++) {
      seen = await running();
      if (seen.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen.length).toBe(1);
    expect(seen[0]!.INFO).toMatch(/SLEEP\(6\)/);
    const res = await request;
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await res.text()).toMatch(/timeout/i);
    let left = seen;
    for (let i = 0; i < 40 && left.length > 0; i++) {
      left = await running();
      if (left.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    // killed on the engine: gone well before SLEEP(6) would have ended
    expect(left).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5500);
  });

  it('the driver cancels on the engine when its signal aborts (a request timing out)', async () => {
    const driver = new MysqlDriver({ host: MARIADB.host, database, user: 'root', max: 2, deploymentId: 0 });
    try {
      const controller = new AbortController();
      const started = Date.now();
      const query = driver.query('SELECT SLEEP(5) AS s', [], { signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      await expect(query).rejects.toBeInstanceOf(QueryCancelledError);
      expect(Date.now() - started).toBeLessThan(3000);
      // the pool's connection is usable again
      expect(await driver.query('SELECT $1 AS one', [1])).toEqual([{ one: 1 }]);
    } finally {
      await driver.close();
    }
  });
});

if (!up)
  describe.skip(`MariaDB at 127.0.0.1:3306 unreachable: MySQL data sources skipped (${path.basename(import.meta.filename)})`, () => {});
