import { PassThrough } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClickhouseProtocolServer,
  startClickhouseProtocolServer,
} from '../../../test/clickhouse-protocol-server.ts';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { sampleDatabaseFile } from '../../datasources/registry.ts';
import { ensureSampleDatabase } from '../../datasources/sample/generate.ts';
import { engineQueries } from './engine-queries.ts';
import { client, copyDemoModel, listen, normalizeNumbers, rawResponse, tokenFor } from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
// the data API's query timeout, which the sleeping cube below outlasts
process.env.TESSERA_QUERY_TIMEOUT_MS = '1500';
const secret = 'hunter2-clickhouse-never-shown';

// cubes only this deployment has: a median (which ClickHouse computes), one whose SQL the engine
// refuses, one that runs until cancelled, one the server lacks the memory for (protocol-server markers)
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
    sql: SELECT 1 AS id, 'tessera_protocol_sleep' AS s
    measures:
      - name: count
        type: count
  - name: heavy
    sql: SELECT 1 AS id, 'tessera_protocol_out_of_memory' AS s
    measures:
      - name: count
        type: count
`;

/**
 * ClickHouse as a warehouse (issue 24 items 1-3) against a server in this process speaking
 * ClickHouse's HTTP interface (test/clickhouse-protocol-server.ts), each statement run by a real
 * ClickHouse (chdb) over a copy of the sample data: every shared engine query gives the DuckDB
 * deployment's rows (New York months included); statements carry Tessera's query id, log comment
 * and settings; a query outlasting the timeout, or whose client goes away, is cancelled on the
 * server; an analysis error is a 400 and MEMORY_LIMIT_EXCEEDED a 503; connection tests say what
 * failed; the catalogue lists columns with ClickHouse's types; the password appears in no
 * response and no log line.
 */
describe('ClickHouse data sources (protocol server on chdb)', () => {
  let server: TestServer;
  let clickhouse: ClickhouseProtocolServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let chClient: ReturnType<typeof client>;
  let chToken: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  const log: string[] = [];
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const load = (query: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: chToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (line: Buffer) => log.push(line.toString('utf8')));
    server = await startTestServer({}, undefined, logStream);
    baseUrl = await listen(server);
    clickhouse = await startClickhouseProtocolServer({ users: { analyst: secret } });
    const file = sampleDatabaseFile(server.config.dataDir);
    await ensureSampleDatabase(file, scale);
    await clickhouse.loadDuckDbFile(file, 'shop');

    settings = {
      type: 'clickhouse',
      host: '127.0.0.1',
      port: clickhouse.port,
      database: 'shop',
      user: 'analyst',
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'clickhouse',
      dataSource: { ...settings, password: secret },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: true });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    chToken = await tokenFor(server, deploymentId, ctx);
    chClient = client(baseUrl, deploymentId, chToken);
  });
  afterAll(async () => {
    await server?.close();
    await clickhouse?.close();
  });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of Object.entries(engineQueries)) {
      it(name, async () => {
        const [d, c] = await Promise.all([duck.load(query), chClient.load(query)]);
        expect(rawResponse(c).results[0]!.dbType).toBe('clickhouse');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(c.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
    it('a median (exact, interpolated) as percentile_cont computes it', async () => {
      const rows = (await chClient.load({ measures: ['amounts.median_amount'] })).rawData();
      const instance = await DuckDBInstance.create(sampleDatabaseFile(server.config.dataDir), {
        access_mode: 'READ_ONLY',
      });
      const conn = await instance.connect();
      // as DOUBLE, as PostgreSQL's percentile_cont computes it: DuckDB's of a DECIMAL keeps its scale
      const reader = await conn.runAndReadAll(
        'SELECT quantile_cont(CAST(amount AS DOUBLE), 0.5) FROM orders',
      );
      const [[expected]] = reader.getRows() as number[][];
      conn.closeSync();
      instance.closeSync();
      expect(normalizeNumbers(rows)).toEqual(
        normalizeNumbers([{ 'amounts.median_amount': String(expected) }]),
      );
    });
  });

  it('sends each statement with Tessera and the deployment in its query id, log comment and SQL, with the settings the dialect expects', async () => {
    const before = clickhouse.statements.length;
    const rows = (await chClient.load({ ...engineQueries.ungrouped!, limit: 17 })).rawData();
    expect(rows.map((r) => Number(r['orders.id']))).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    const sent = clickhouse.statements.slice(before);
    expect(sent).toHaveLength(1);
    const { queryId, sql, params, headers } = sent[0]!;
    expect(queryId).toMatch(new RegExp(`^tessera-d${deploymentId}-[0-9a-f]+-[0-9a-f]{8}$`));
    expect(sql).toMatch(new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`));
    expect(sql).toMatch(/\nFORMAT JSON$/);
    expect(params.get('log_comment')).toMatch(
      new RegExp(`^tessera deployment=${deploymentId} query=[0-9a-f]+$`),
    );
    expect(params.get('database')).toBe('shop');
    expect(
      Object.fromEntries(
        [...params].filter(([k]) => /join_use_nulls|null_for_empty|timezone|on_client_close/.test(k)),
      ),
    ).toEqual({
      join_use_nulls: '1',
      aggregate_functions_null_for_empty: '1',
      session_timezone: 'UTC',
      cancel_http_readonly_queries_on_client_close: '1',
    });
    expect(headers.authorization).toMatch(/^Basic /);
    expect(headers['user-agent']).toMatch(/^tessera /);
  });

  it('cancels the statement on the server when the client goes away', async () => {
    const controller = new AbortController();
    const running = new Promise<string>((resolve) => clickhouse.events.once('running', resolve));
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const id = await running;
    const ended = new Promise<string>((resolve) => {
      clickhouse.events.once('closed', resolve);
      clickhouse.events.once('killed', resolve);
    });
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await ended).toBe(id);
  });

  it('answers a query outlasting the timeout with a timeout, and sends KILL QUERY for its id', async () => {
    const running = new Promise<string>((resolve) => clickhouse.events.once('running', resolve));
    // a filter of its own, so that this is a new execution rather than the one cancelled above
    const started = Date.now();
    const res = await load({
      measures: ['slow.count'],
      filters: [{ member: 'slow.count', operator: 'gt', values: ['0'] }],
    });
    const id = await running;
    expect(res.status).toBe(504);
    expect(await res.text()).toMatch(/timeout/i);
    expect(Date.now() - started).toBeLessThan(4000);
    for (
      let i = 0;
      i < 40 && !clickhouse.statements.some((s) => s.sql.includes(id) && /^KILL QUERY/.test(s.sql));
      i++
    )
      await new Promise((r) => setTimeout(r, 25));
    expect(clickhouse.statements.map((s) => s.sql)).toContain(`KILL QUERY WHERE query_id = '${id}' ASYNC`);
  });

  it("answers an analysis error with a 400 in the engine's words, MEMORY_LIMIT_EXCEEDED with a 503, neither naming the password", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    const badBody = await bad.text();
    expect(JSON.parse(badBody).error).toMatch(/^Query failed: .*no_such_column/);
    expect(badBody).not.toContain(secret);

    const heavy = await load({ measures: ['heavy.count'] });
    expect(heavy.status).toBe(503);
    const heavyBody = await heavy.text();
    expect(JSON.parse(heavyBody).error).toMatch(/out of connections or resources right now/);
    expect(heavyBody).not.toContain(secret);
  });

  it.each([
    [
      { password: 'wrong' },
      'login_refused',
      'password',
      /ClickHouse at 127\.0\.0\.1:\d+ refused the login of user analyst/,
    ],
    [
      { database: 'nowhere' },
      'database_missing',
      'database',
      /There is no database nowhere at 127\.0\.0\.1:\d+/,
    ],
    [{ port: 1 }, 'host_unreachable', 'port', /Nothing accepts connections at 127\.0\.0\.1:1/],
    [{ host: 'nohost.invalid' }, 'host_unknown', 'host', /nohost\.invalid cannot be resolved/],
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

  it('refuses settings without a host, naming the field, and saves nothing', async () => {
    const res = await call('POST', '/api/v1/data-sources/test', { type: 'clickhouse', password: secret });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/host/);
    expect(res.body).not.toContain(secret);
  });

  it("lists databases, tables and columns with ClickHouse's types", async () => {
    const res = await call('GET', `/api/v1/deployments/${deploymentId}/data-source/tables`);
    expect(res.statusCode, res.body).toBe(200);
    const schema = res.json().schemas.find((s: { name: string }) => s.name === 'shop');
    const orders = schema.tables.find((t: { name: string }) => t.name === 'orders');
    expect(orders.columns).toContainEqual({
      name: 'created_at',
      type: "Nullable(DateTime64(6, 'UTC'))",
      nullable: true,
      primaryKey: false,
    });
    expect(orders.foreignKeys).toEqual([]);
    expect(res.json().schemas.map((s: { name: string }) => s.name)).not.toContain('system');
  });

  it('never writes the password in a log line or the deployment logs', async () => {
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    expect(logs.body).not.toContain(secret);
    expect(log.length).toBeGreaterThan(0);
    expect(log.join('')).not.toContain(secret);
    expect(log.join('')).not.toContain(Buffer.from(`analyst:${secret}`).toString('base64'));
  });
});
