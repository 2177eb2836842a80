import path from 'node:path';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { copySampleToPostgres } from '../../datasources/sample/copy-to-postgres.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { engineQueries } from './engine-queries.ts';
import { client, copyDemoModel, listen, normalizeNumbers, rawResponse, tokenFor } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const postgresUrl = inject('postgresUrl');
const secret = 'hunter2-redshift-never-shown';

/**
 * A `redshift` data source pointed at the real PostgreSQL of this machine, standing in for
 * Redshift's protocol (no Redshift can run here; issue 24). The database is made to read SQL as
 * Redshift does where the Redshift dialect relies on it, each per AWS's SQL reference:
 * CONVERT_TIMEZONE(source, target, ts) is defined as `(ts AT TIME ZONE source) AT TIME ZONE
 * target` (zone names only, all the planner passes), and string literals read backslash escapes
 * (standard_conforming_strings off, the LIKE page's `'\\'`). What PostgreSQL cannot stand in for
 * is not claimed here: `query_group` (PostgreSQL has no such setting, the driver goes on without
 * the label), SVV_COLUMNS (introspection falls back to the information schema), and a wrong
 * password (this server trusts 127.0.0.1, so a login is refused only for a user it lacks).
 */
describe.skipIf(!postgresUrl)('Redshift data sources (PostgreSQL standing in)', () => {
  let server: TestServer;
  let admin: pg.Client;
  let baseUrl: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  let duck: ReturnType<typeof client>;
  let redshift: ReturnType<typeof client>;
  let token: string;
  const database = `tessera_redshift_${process.pid}_${Date.now()}`;
  const log: string[] = [];
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const load = (query: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });
  /** The deployment's statements running now, as pg_stat_activity shows them. */
  const running = async () =>
    (
      await admin.query<{ query: string; application_name: string }>(
        "SELECT query, application_name FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND datname = $2",
        [`/* tessera deployment=${deploymentId} query=%`, database],
      )
    ).rows;
  const until = async <T>(check: () => Promise<T | false>, ms: number): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await check();
      if (v !== false) return v;
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (line: Buffer) => log.push(line.toString('utf8')));
    server = await startTestServer({}, undefined, logStream);
    baseUrl = await listen(server);
    const file = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(file, scale);
    admin = new pg.Client({ connectionString: postgresUrl! });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(postgresUrl!);
    url.pathname = `/${database}`;
    await copySampleToPostgres(file, { connectionString: url.toString() });
    const standIn = new pg.Client({ connectionString: url.toString() });
    await standIn.connect();
    for (const s of [
      `ALTER DATABASE ${database} SET standard_conforming_strings = off`,
      `ALTER DATABASE ${database} SET escape_string_warning = off`,
      `CREATE FUNCTION convert_timezone(source text, target text, ts timestamp) RETURNS timestamp
         LANGUAGE sql IMMUTABLE AS 'SELECT (ts AT TIME ZONE source) AT TIME ZONE target'`,
      // keys Redshift records without enforcing them, for the model generator
      'CREATE TABLE regions (id int PRIMARY KEY, name varchar(40))',
      'CREATE TABLE stores (id int PRIMARY KEY, region_id int REFERENCES regions (id))',
    ])
      await standIn.query(s);
    await standIn.end();

    settings = {
      type: 'redshift',
      host: url.hostname,
      port: Number(url.port || 5432),
      database,
      user: decodeURIComponent(url.username) || 'postgres',
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'redshift',
      dataSource: { ...settings, password: secret },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: true });
    expect(created.body).not.toContain(secret);
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [
      {
        path: 'model/slow.yml',
        content: `cubes:
  - name: slow
    sql: SELECT 1 AS id FROM pg_sleep(30)
    measures:
      - name: count
        type: count
`,
      },
    ]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    token = await tokenFor(server, deploymentId, ctx);
    redshift = client(baseUrl, deploymentId, token);
  });
  afterAll(async () => {
    await server?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
  });

  describe('the data API gives the DuckDB deployment rows', () => {
    for (const [name, query] of Object.entries(engineQueries)) {
      it(name, async () => {
        const [d, r] = await Promise.all([duck.load(query), redshift.load(query)]);
        expect(rawResponse(r).results[0]!.dbType).toBe('redshift');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(r.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it('names Tessera and the deployment, and cancels the statement when the client goes away', async () => {
    const controller = new AbortController();
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const [seen] = await until(async () => {
      const rows = await running();
      return rows.length > 0 && rows;
    }, 5_000);
    expect(seen!.application_name).toBe(`tessera deployment ${deploymentId}`);
    expect(seen!.query).toMatch(/pg_sleep\(30\)/);
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    await until(async () => (await running()).length === 0, 2_000);
  });

  it.each([
    [{ port: 1 }, 'host_unreachable', 'port', /Nothing accepts connections at 127\.0\.0\.1:1\b/],
    [{ user: 'tessera_no_such_user' }, 'login_refused', 'password', /Redshift refused the login of user/],
    [{ database: 'tessera_no_such_db' }, 'database_missing', 'database', /no database tessera_no_such_db/],
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

  it('lists tables, columns with types, primary and foreign keys', async () => {
    const res = await call('GET', `/api/v1/deployments/${deploymentId}/data-source/tables`);
    expect(res.statusCode, res.body).toBe(200);
    const schema = res.json().schemas.find((s: { name: string }) => s.name === 'public');
    const table = (name: string) => schema.tables.find((t: { name: string }) => t.name === name);
    expect(table('orders').columns).toContainEqual({
      name: 'created_at',
      type: 'timestamp without time zone',
      nullable: true,
      primaryKey: false,
    });
    expect(table('regions').columns).toContainEqual(
      expect.objectContaining({ name: 'id', primaryKey: true }),
    );
    expect(table('stores').foreignKeys).toEqual([
      {
        columns: ['region_id'],
        referencedSchema: 'public',
        referencedTable: 'regions',
        referencedColumns: ['id'],
      },
    ]);
  });

  it('never writes the password in a response, a log line or the deployment logs', async () => {
    const got = await call('GET', `/api/v1/deployments/${deploymentId}`);
    expect(got.json().dataSource).toEqual({ ...settings, hasPassword: true });
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    for (const body of [got.body, logs.body, log.join('')]) expect(body).not.toContain(secret);
  });
});

if (!postgresUrl)
  describe.skip(`PostgreSQL unreachable: Redshift data sources skipped (${path.basename(import.meta.filename)})`, () => {});
