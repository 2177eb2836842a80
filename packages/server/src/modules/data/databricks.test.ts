import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DatabricksProtocolServer,
  startDatabricksProtocolServer,
} from '../../../test/databricks-protocol-server.ts';
import type { TestServer } from '../../../test/harness.ts';
import { selfSignedCertificate } from '../../../test/self-signed-certificate.ts';
import { engineQueries } from './engine-queries.ts';
import {
  client,
  copyDemoModel,
  copySampleTables,
  normalizeNumbers,
  type RecordingServer,
  rawResponse,
  rolledCube,
  startRecordingServer,
  tokenFor,
} from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
// the data API's query timeout, which the sleeping cubes below outlast
process.env.TESSERA_QUERY_TIMEOUT_MS = '1500';
const token = 'dapi0123456789abcdef-never-shown';
const clientSecret = 'dose-oauth-secret-never-shown-51c2';
const clientId = '6f1c2a3b-service-principal';

// cubes only this deployment has: one whose SQL the engine refuses, one it fails on, one that runs
// until cancelled, a median and a filter with a quote and a backslash
const extraModel = `cubes:
  - name: amounts
    sql_table: orders
    measures:
      - name: broken
        type: sum
        sql: no_such_column
      - name: median_amount
        type: median
        sql: amount
    dimensions:
      - name: status
        sql: status
        type: string
  - name: internal
    sql: SELECT 1 AS id, 'tessera_protocol_internal' AS s
    measures:
      - name: count
        type: count
  - name: slow
    sql: SELECT 1 AS id, 'tessera_protocol_sleep' AS s
    measures:
      - name: count
        type: count
  - name: slow_too
    sql: SELECT 2 AS id, 'tessera_protocol_sleep' AS s
    measures:
      - name: count
        type: count
${rolledCube}  - name: labels
    # Databricks SQL: a quote in a literal is \\', a backslash \\\\ ("STRING type")
    sql: >-
      SELECT 1 AS id, 'O\\'Brien C:\\\\temp 50%' AS label
    measures:
      - name: count
        type: count
    dimensions:
      - name: label
        sql: label
        type: string
`;

/**
 * Databricks SQL as a warehouse (issue 24 items 1-3) against a server in this process speaking the
 * Statement Execution API 2.0 over HTTPS (test/databricks-protocol-server.ts), with the SQL run on
 * DuckDB over a copy of the sample data: the data API's rows equal the DuckDB deployment's for the
 * shared engine queries; each request carries the token; statements carry Tessera's comment and
 * only the API's documented fields, are polled through PENDING and RUNNING, and come in several
 * chunks; a 429 on submit is retried; a client going away or the data API's timeout cancels the statement; a deployment runs
 * at most `maxConnections` statements at once; a failed statement is a 400 (the query's SQLSTATE)
 * or a 503 (the engine's); connection tests say what failed; the token and the OAuth secret appear
 * in no response and no log line.
 */
describe('Databricks data sources (Statement Execution API protocol server)', () => {
  let server: TestServer;
  let databricks: DatabricksProtocolServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let dbxClient: ReturnType<typeof client>;
  let dbxToken: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  const log: string[] = [];
  const bodies: string[] = [];
  let recording: RecordingServer;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    recording.call(method, url, payload);
  const load = (query: unknown, signal?: AbortSignal) =>
    recording.load(deploymentId, dbxToken, query, signal);

  beforeAll(async () => {
    recording = await startRecordingServer({ log, bodies });
    ({ server, baseUrl } = recording);
    const tls = selfSignedCertificate();
    databricks = await startDatabricksProtocolServer({
      tokens: [token],
      oauthClients: [{ id: clientId, secret: clientSecret }],
      tls,
      warehouses: ['a1b2c3d4e5f60718'],
      catalog: 'analytics',
      chunkSize: 7,
    });
    // the sample's tables copied into the protocol server's DuckDB (schema `main`)
    await copySampleTables(server, databricks.duck, scale);

    settings = {
      type: 'databricks',
      host: databricks.host,
      httpPath: '/sql/1.0/warehouses/a1b2c3d4e5f60718',
      catalog: 'analytics',
      schema: 'main',
      caCertificate: tls.cert,
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'databricks',
      dataSource: { ...settings, host: `https://${databricks.host}/`, token },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({
      ...settings,
      hasPassword: false,
      hasToken: true,
      hasClientSecret: false,
    });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    dbxToken = await tokenFor(server, deploymentId, ctx);
    dbxClient = client(baseUrl, deploymentId, dbxToken);
  });
  afterAll(async () => {
    await server?.close();
    await databricks?.close();
  });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of Object.entries(engineQueries)) {
      it(name, async () => {
        const [d, s] = await Promise.all([duck.load(query), dbxClient.load(query)]);
        expect(rawResponse(s).results[0]!.dbType).toBe('databricks');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(s.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it('submits to the warehouse with catalog, schema and the statement comment, and reads every chunk', async () => {
    const before = databricks.statements.length;
    // a query of its own, which no earlier test left in the result cache
    const rows = (await dbxClient.load({ ...engineQueries.ungrouped!, limit: 19 })).rawData();
    // 19 rows in chunks of 7: chunk 0 with the result, 1 and 2 by their links
    expect(rows.map((r) => Number(r['orders.id']))).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(rows[0]!['orders.created_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    const sent = databricks.statements.slice(before);
    expect(sent).toHaveLength(1);
    const { sql, body, headers, chunksServed } = sent[0]!;
    expect(chunksServed).toEqual([0, 1, 2]);
    expect(sql).toMatch(new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`));
    expect(body).toMatchObject({
      warehouse_id: 'a1b2c3d4e5f60718',
      catalog: 'analytics',
      schema: 'main',
      wait_timeout: '5s',
      on_wait_timeout: 'CONTINUE',
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
    });
    // only the fields the API documents: an unknown one could make Databricks refuse every submit
    expect(Object.keys(body).sort()).toEqual([
      'catalog',
      'disposition',
      'format',
      'on_wait_timeout',
      'schema',
      'statement',
      'wait_timeout',
      'warehouse_id',
    ]);
    expect(headers.authorization).toBe(`Bearer ${token}`);
  });

  it('polls a statement through PENDING and RUNNING until it succeeds', async () => {
    databricks.holdNext(2);
    const before = databricks.statements.length;
    const rows = (await dbxClient.load({ ...engineQueries.ungrouped!, limit: 4 })).rawData();
    expect(rows).toHaveLength(4);
    expect(databricks.statements.slice(before).map((s) => s.states)).toEqual([
      ['PENDING', 'RUNNING', 'RUNNING', 'SUCCEEDED'],
    ]);
  });

  it('retries a submit answered 429, and runs the statement once', async () => {
    const before = databricks.statements.length;
    databricks.busyNext();
    const rows = (await dbxClient.load({ ...engineQueries.ungrouped!, limit: 3 })).rawData();
    expect(rows).toHaveLength(3);
    expect(databricks.busyAnswers).toBe(0);
    expect(databricks.statements.slice(before)).toHaveLength(1);
  });

  it('cancels the statement on Databricks (POST .../cancel) when the client goes away', async () => {
    const controller = new AbortController();
    const running = new Promise<string>((resolve) => databricks.events.once('running', resolve));
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const id = await running;
    const cancelled = new Promise<string>((resolve) => databricks.events.once('cancelled', resolve));
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await cancelled).toBe(id);
  });

  it('cancels the statement on Databricks when the query outlasts the data API timeout', async () => {
    const running = new Promise<string>((resolve) => databricks.events.once('running', resolve));
    // a filter of its own, so that this is a new execution rather than the one cancelled above
    const request = load({
      measures: ['slow.count'],
      filters: [{ member: 'slow.count', operator: 'gt', values: ['0'] }],
    });
    const id = await running;
    const cancelled = new Promise<string>((resolve) =>
      databricks.events.on('cancelled', (c: string) => c === id && resolve(c)),
    );
    const res = await request;
    expect(res.status).toBe(504);
    expect(res.text).toMatch(/timeout/i);
    expect(await cancelled).toBe(id);
  });

  it('runs at most maxConnections statements of a deployment at once: the next starts when one ends', async () => {
    const created = await call('POST', '/api/v1/deployments', {
      name: 'databricks-one-at-a-time',
      dataSource: { ...settings, token, maxConnections: 1 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().id;
    await copyDemoModel(server, id, [{ path: 'model/extra.yml', content: extraModel }]);
    const auth = await tokenFor(server, id, { securityContext: { serviceCloud: { groups: ['admin'] } } });
    const order: string[] = [];
    const onRunning = (s: string) => order.push(`running ${s}`);
    const onCancelled = (s: string) => order.push(`cancelled ${s}`);
    databricks.events.on('running', onRunning);
    databricks.events.on('cancelled', onCancelled);
    const start = (measure: string, controller: AbortController) =>
      fetch(`${baseUrl}/data/${id}/cubejs-api/v1/load`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: { measures: [measure] } }),
        signal: controller.signal,
      }).catch((e: Error) => e);
    try {
      const first = new AbortController();
      const second = new AbortController();
      const firstRunning = new Promise<string>((resolve) => databricks.events.once('running', resolve));
      const one = start('slow.count', first);
      const firstId = await firstRunning;
      const firstCancelled = new Promise<void>((resolve) =>
        databricks.events.on('cancelled', (c: string) => c === firstId && resolve()),
      );
      const secondRunning = new Promise<string>((resolve) =>
        databricks.events.on('running', (r: string) => r !== firstId && resolve(r)),
      );
      const two = start('slow_too.count', second);
      // time for the second request to reach the deployment's driver and wait there for a slot
      // (were there no bound, its statement would start now, before the first is aborted)
      await new Promise((r) => setTimeout(r, 300));
      order.push('first aborted');
      first.abort();
      const secondId = await secondRunning;
      await firstCancelled;
      second.abort();
      await Promise.all([one, two]);
      // the second statement was submitted only once the first's client left and its slot was freed
      expect(order.indexOf('first aborted')).toBeLessThan(order.indexOf(`running ${secondId}`));
      expect(order).toContain(`cancelled ${firstId}`);
    } finally {
      databricks.events.off('running', onRunning);
      databricks.events.off('cancelled', onCancelled);
    }
  });

  it("answers the query's SQLSTATE (42703) with a 400 in Databricks' words, an internal error with a 503", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatch(
      /^Query failed: \[UNRESOLVED_COLUMN\.WITH_SUGGESTION\] Binder Error: .*no_such_column/,
    );
    const failed = await load({ measures: ['internal.count'] });
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.text).error).toMatch(/failed while running the query/);
  });

  it('builds a rollup on the warehouse (CREATE SCHEMA, CREATE TABLE ... AS) and answers from it with the raw rows', async () => {
    const monthly = {
      measures: ['rolled.count', 'rolled.amount'],
      dimensions: ['rolled.status'],
      timeDimensions: [{ dimension: 'rolled.created_at', granularity: 'month' }],
      order: { 'rolled.created_at': 'asc', 'rolled.status': 'asc' },
      renewQuery: true,
    } as const;
    const raw = await dbxClient.load(monthly);
    expect(rawResponse(raw).results[0]!.usedPreAggregations).toEqual({});
    const before = databricks.statements.length;
    const deployment = await server.services.deployments.require(server.tenantId, deploymentId);
    const report = await server.services.preAggregations.refresh(deployment);
    expect(report.built.length).toBeGreaterThan(0);
    const ddl = databricks.statements.slice(before).map((s) => s.sql.replace(/^\/\*[^*]*\*\/ /, ''));
    expect(ddl.some((q) => /^CREATE SCHEMA IF NOT EXISTS /.test(q))).toBe(true);
    expect(ddl.some((q) => /^CREATE TABLE \S+ AS SELECT/.test(q))).toBe(true);
    const rolled = await dbxClient.load(monthly);
    expect(Object.keys(rawResponse(rolled).results[0]!.usedPreAggregations as object)).toHaveLength(1);
    expect(raw.rawData().length).toBeGreaterThan(1);
    expect(normalizeNumbers(rolled.rawData())).toEqual(normalizeNumbers(raw.rawData()));
  });

  it('computes a median, and matches a value holding a quote, a backslash and a percent sign', async () => {
    const median = await load({ measures: ['amounts.median_amount'] });
    expect(median.status, median.text).toBe(200);
    const [row] = (
      await databricks.duck.runAndReadAll('SELECT median(amount)::DOUBLE FROM main.orders')
    ).getRows();
    expect(Number(JSON.parse(median.text).data[0]['amounts.median_amount'])).toBeCloseTo(Number(row![0]), 6);

    const labels = await load({
      measures: ['labels.count'],
      dimensions: ['labels.label'],
      filters: [{ member: 'labels.label', operator: 'contains', values: ["O'Brien C:\\temp 50%"] }],
    });
    expect(labels.status, labels.text).toBe(200);
    expect(JSON.parse(labels.text).data).toEqual([
      { 'labels.label': "O'Brien C:\\temp 50%", 'labels.count': expect.anything() },
    ]);
    const missing = await load({
      measures: ['labels.count'],
      filters: [{ member: 'labels.label', operator: 'contains', values: ['50_'] }],
    });
    expect(Number(JSON.parse(missing.text).data[0]['labels.count'])).toBe(0);
  });

  it('refuses the SQL API with a 400 naming it and Databricks, and sends nothing', async () => {
    const before = databricks.statements.length;
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${deploymentId}/cubejs-api/v1/cubesql`,
      headers: { authorization: dbxToken },
      payload: { query: 'SELECT status, MEASURE(count) FROM orders GROUP BY 1' },
    });
    bodies.push(res.body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/The SQL API \(\/v1\/cubesql\) is not supported on Databricks/);
    expect(databricks.statements.length).toBe(before);
  });

  it.each([
    [{ token: 'dapi-revoked' }, 'login_refused', 'token', /refused the access token: it may have expired/],
    [{ token: undefined }, 'login_refused', 'token', /^No access token or OAuth client is saved: add/],
    [
      { httpPath: '/sql/1.0/warehouses/0000000000000000' },
      'database_missing',
      'httpPath',
      /has no SQL warehouse 0000000000000000: copy the HTTP path/,
    ],
    [
      { catalog: 'nowhere' },
      'database_missing',
      'catalog',
      /no catalog nowhere that the token's user may use/,
    ],
    [{ schema: 'nowhere' }, 'database_missing', 'schema', /no schema nowhere that the token's user may use/],
    [{ host: '127.0.0.1:1' }, 'host_unreachable', 'host', /Nothing accepts connections at 127\.0\.0\.1:1/],
    [{ host: 'nohost.invalid' }, 'host_unknown', 'host', /nohost\.invalid cannot be resolved/],
    [
      { token: undefined, clientId, clientSecret: 'wrong-secret' },
      'login_refused',
      'clientSecret',
      /refused the OAuth client 6f1c2a3b-service-principal at \/oidc\/v1\/token/,
    ],
  ])('a connection test of %o says %s, never the token', async (change, problem, field, words) => {
    const res = await call('POST', '/api/v1/data-sources/test', { ...settings, token, ...change });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
  });

  it('refuses the queries and fails the connection test of a warehouse whose session time zone is not UTC, saying how to set it', async () => {
    const tls = selfSignedCertificate();
    const elsewhere = await startDatabricksProtocolServer({
      tokens: [token],
      tls,
      warehouses: ['a1b2c3d4e5f60718'],
      catalog: 'analytics',
      timezone: 'America/New_York',
    });
    try {
      const remote = { ...settings, host: elsewhere.host, caCertificate: tls.cert, token };
      const res = await call('POST', '/api/v1/data-sources/test', remote);
      expect(res.json()).toMatchObject({
        ok: false,
        message: expect.stringMatching(
          /time zone America\/New_York; .*set the SQL configuration parameter TIMEZONE to UTC/,
        ),
      });
      const created = await call('POST', '/api/v1/deployments', {
        name: 'databricks-new-york',
        dataSource: remote,
      });
      expect(created.statusCode, created.body).toBe(200);
      const id = created.json().id;
      await copyDemoModel(server, id);
      const auth = await tokenFor(server, id, { securityContext: { serviceCloud: { groups: ['admin'] } } });
      const answer = await fetch(`${baseUrl}/data/${id}/cubejs-api/v1/load`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: engineQueries.monthly_in_new_york }),
      });
      const text = await answer.text();
      bodies.push(text);
      expect(answer.status).toBe(503);
      expect(JSON.parse(text).error).toMatch(
        /runs statements in the time zone America\/New_York, and Tessera reads timestamps as UTC/,
      );
      // only the time zone was asked: no statement of the query ran in the wrong hours
      expect(elsewhere.statements.map((s) => s.sql)).not.toContainEqual(expect.stringMatching(/orders/));
    } finally {
      await elsewhere.close();
    }
  });

  it('passes a connection test of the saved source, and of an OAuth service principal', async () => {
    const saved = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(saved.json()).toMatchObject({ ok: true, problem: null });
    const before = databricks.statements.length;
    const oauth = await call('POST', '/api/v1/data-sources/test', { ...settings, clientId, clientSecret });
    expect(oauth.json()).toMatchObject({ ok: true, problem: null });
    expect(databricks.statements.at(before)!.headers.authorization).toMatch(/^Bearer dapi-oauth-/);
  });

  it('refuses settings without a warehouse, with a malformed HTTP path, or with two credentials, naming the field, and saves nothing', async () => {
    for (const [change, field] of [
      [{ httpPath: undefined }, 'httpPath'],
      [{ httpPath: '/sql/protocolv1/o/123/0123-abc' }, 'httpPath'],
      [{ host: undefined }, 'host'],
      [{ clientId, clientSecret }, 'clientId'],
    ] as const) {
      const res = await call('POST', '/api/v1/deployments', {
        name: 'databricks-bad',
        dataSource: { ...settings, token, ...change },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toContain(field);
    }
    const list = await call('GET', '/api/v1/deployments');
    expect(JSON.stringify(list.json())).not.toContain('databricks-bad');
  });

  it('lists tables and columns with types, and primary and foreign keys, from information_schema', async () => {
    // Unity Catalog's keys are informational (declared, not enforced); DuckDB's are enforced
    await databricks.duck.run('CREATE TABLE main.accounts (id INTEGER PRIMARY KEY, name VARCHAR)');
    await databricks.duck.run(
      'CREATE TABLE main.invoices (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES main.accounts (id))',
    );
    const res = await call('GET', `/api/v1/deployments/${deploymentId}/data-source/tables`);
    expect(res.statusCode, res.body).toBe(200);
    const schema = res.json().schemas.find((s: { name: string }) => s.name === 'main');
    const orders = schema.tables.find((t: { name: string }) => t.name === 'orders');
    expect(orders.columns).toContainEqual({
      name: 'created_at',
      type: 'TIMESTAMP',
      nullable: true,
      primaryKey: false,
    });
    const invoices = schema.tables.find((t: { name: string }) => t.name === 'invoices');
    expect(invoices.columns.find((c: { name: string }) => c.name === 'id').primaryKey).toBe(true);
    expect(invoices.foreignKeys).toEqual([
      {
        columns: ['account_id'],
        referencedSchema: 'main',
        referencedTable: 'accounts',
        referencedColumns: ['id'],
      },
    ]);
  });

  it('never writes the token or the OAuth secret in a response or a log line', async () => {
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    expect(log.length).toBeGreaterThan(0);
    const everything = [...bodies, log.join('')].join('\n');
    for (const secret of [token, clientSecret]) expect(everything).not.toContain(secret);
  });
});
