import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BigQueryProtocolServer,
  startBigQueryProtocolServer,
} from '../../../test/bigquery-protocol-server.ts';
import type { TestServer } from '../../../test/harness.ts';
import { selfSignedCertificate } from '../../../test/self-signed-certificate.ts';
import { cubesql } from './cubesql/test-support.ts';
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
const projectId = 'tessera-analytics-42';

/** A service account key JSON as Google Cloud's console writes it, for a new RSA key pair. */
function serviceAccount(email: string, keyId: string) {
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const json = JSON.stringify({
    type: 'service_account',
    project_id: projectId,
    private_key_id: keyId,
    private_key: pair.privateKey,
    client_email: email,
    client_id: '104217654321098765432',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  return { json, publicKey: pair.publicKey, keyId, email, keyLine: pair.privateKey.split('\n')[5]! };
}
const reader = serviceAccount(
  `tessera-reader@${projectId}.iam.gserviceaccount.com`,
  'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
);
const outsider = serviceAccount(
  `no-jobs@${projectId}.iam.gserviceaccount.com`,
  'b2c3d4e5f60718293a4b5c6d7e8f901234567890',
);
/** A key BigQuery does not know (deleted, or never created for the account). */
const stranger = serviceAccount(
  `tessera-reader@${projectId}.iam.gserviceaccount.com`,
  'c3d4e5f60718293a4b5c6d7e8f90123456789012',
);

// cubes only this deployment has: one whose SQL the engine refuses, one that runs until
// cancelled, one that exhausts BigQuery's resources
const extraModel = `cubes:
  - name: amounts
    sql_table: orders
    measures:
      - name: broken
        type: sum
        sql: no_such_column
  - name: slow
    sql: SELECT 1 AS id, 'tessera_protocol_sleep' AS s
    measures:
      - name: count
        type: count
  - name: heavy
    sql: SELECT 1 AS id, 'tessera_protocol_exhausted' AS s
    measures:
      - name: count
        type: count
  - name: napping
    sql: SELECT 1 AS id, 'tessera_protocol_nap' AS s
    measures:
      - name: count
        type: count
${rolledCube}`;

/**
 * BigQuery as a warehouse (issue 24 items 1-3) against a server in this process speaking the REST
 * API v2 over HTTPS (test/bigquery-protocol-server.ts), with the SQL run on DuckDB over a copy of
 * the sample data: the data API's rows equal the DuckDB deployment's for every shared engine
 * query; each request carries a self-signed JWT the server verifies; jobs carry Tessera's labels
 * and a request id, are polled through `jobComplete: false`, and their results come in pages; a
 * 503 on submit is retried with the same request id; a client going away cancels the job; an
 * invalid query is a 400 in BigQuery's words and exhausted resources a 503; connection tests say
 * what failed; the service account key appears in no response, log line or request.
 */
describe('BigQuery data sources (REST API protocol server)', () => {
  let server: TestServer;
  let bigquery: BigQueryProtocolServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let bqClient: ReturnType<typeof client>;
  let bqToken: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  const log: string[] = [];
  const bodies: string[] = [];
  let recording: RecordingServer;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    recording.call(method, url, payload);
  const load = (query: unknown, signal?: AbortSignal) => recording.load(deploymentId, bqToken, query, signal);

  beforeAll(async () => {
    recording = await startRecordingServer({ log, bodies });
    ({ server, baseUrl } = recording);
    const tls = selfSignedCertificate();
    bigquery = await startBigQueryProtocolServer({
      projectId,
      dataset: 'main',
      location: 'EU',
      accounts: [
        { keyId: reader.keyId, email: reader.email, publicKey: reader.publicKey, jobUser: true },
        { keyId: outsider.keyId, email: outsider.email, publicKey: outsider.publicKey, jobUser: false },
      ],
      tls,
      pageSize: 7,
    });
    // the sample's tables copied into the protocol server's DuckDB (schema `main`, the dataset)
    await copySampleTables(server, bigquery.duck, scale);

    settings = {
      type: 'bigquery',
      projectId,
      location: 'EU',
      dataset: 'main',
      apiEndpoint: bigquery.url,
      caCertificate: tls.cert,
      maximumBytesBilled: 10_000_000_000,
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'bigquery',
      dataSource: { ...settings, credentials: reader.json },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: false, hasCredentials: true });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    bqToken = await tokenFor(server, deploymentId, ctx);
    bqClient = client(baseUrl, deploymentId, bqToken);
  });
  afterAll(async () => {
    await server?.close();
    await bigquery?.close();
  });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of Object.entries(engineQueries)) {
      it(name, async () => {
        const [d, b] = await Promise.all([duck.load(query), bqClient.load(query)]);
        expect(rawResponse(b).results[0]!.dbType).toBe('bigquery');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(b.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it('submits GoogleSQL with named parameters, a request id, the dataset, location and labels, polls until jobComplete, and reads every page', async () => {
    const before = bigquery.jobs.length;
    // a query of its own, which no earlier test left in the result cache
    const rows = (await bqClient.load({ ...engineQueries.ungrouped!, limit: 19 })).rawData();
    // 19 rows in pages of 7: the first with the result, two more by pageToken
    expect(rows.map((r) => Number(r['orders.id']))).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(rows[0]!['orders.created_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    const sent = bigquery.jobs.slice(before);
    expect(sent).toHaveLength(1);
    const { sql, body, requestId, pendingAnswers, pagesServed } = sent[0]!;
    expect(pagesServed).toEqual([0, 1, 2]);
    expect(pendingAnswers).toBeGreaterThanOrEqual(2);
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sql).toMatch(new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`));
    expect(body).toMatchObject({
      useLegacySql: false,
      parameterMode: 'NAMED',
      location: 'EU',
      defaultDataset: { projectId, datasetId: 'main' },
      maximumBytesBilled: '10000000000',
      labels: {
        application: 'tessera',
        deployment: String(deploymentId),
        query: expect.stringMatching(/^[0-9a-f]+$/),
      },
    });
  });

  it('sends values as typed named parameters', async () => {
    const before = bigquery.jobs.length;
    await bqClient.load({
      measures: ['orders.count'],
      filters: [
        { member: 'orders.status', operator: 'equals', values: ['completed'] },
        { member: 'orders.amount', operator: 'gt', values: ['100'] },
      ],
    });
    const { sql, body } = bigquery.jobs.slice(before)[0]!;
    expect(sql).toMatch(/`orders`\.status IN \(@p1\)|`orders`\.status = @p1/);
    expect(body.queryParameters).toEqual([
      { name: 'p1', parameterType: { type: 'STRING' }, parameterValue: { value: 'completed' } },
      { name: 'p2', parameterType: { type: 'INT64' }, parameterValue: { value: '100' } },
    ]);
  });

  it.each([
    ['503 backendError', 'backendError', 3],
    ['403 rateLimitExceeded', 'rateLimitExceeded', 4],
  ] as const)('retries a submit answered %s with the same request id, and runs the job once', async (_, reason, limit) => {
    const before = bigquery.jobs.length;
    bigquery.busyNext(reason);
    const rows = (await bqClient.load({ ...engineQueries.ungrouped!, limit })).rawData();
    expect(rows).toHaveLength(limit);
    const sent = bigquery.jobs.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ busyAnswers: 1, submits: 2 });
  });

  it('cancels the job on BigQuery (jobs.cancel) when the client goes away', async () => {
    const controller = new AbortController();
    const running = new Promise<string>((resolve) => bigquery.events.once('running', resolve));
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const jobId = await running;
    const cancelled = new Promise<string>((resolve) => bigquery.events.once('cancelled', resolve));
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await cancelled).toBe(jobId);
  });

  it("answers an invalid query with a 400 in BigQuery's words, exhausted resources with a 503", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatch(/^Query failed: Binder Error: .*no_such_column/);
    const heavy = await load({ measures: ['heavy.count'] });
    expect(heavy.status).toBe(503);
    expect(JSON.parse(heavy.text).error).toMatch(/out of connections or resources right now/);
  });

  it('builds a rollup in BigQuery (CREATE SCHEMA, CREATE TABLE ... AS) and answers from it with the raw rows', async () => {
    const monthly = {
      measures: ['rolled.count', 'rolled.amount'],
      dimensions: ['rolled.status'],
      timeDimensions: [{ dimension: 'rolled.created_at', granularity: 'month' }],
      order: { 'rolled.created_at': 'asc', 'rolled.status': 'asc' },
      renewQuery: true,
    } as const;
    const raw = await bqClient.load(monthly);
    expect(rawResponse(raw).results[0]!.usedPreAggregations).toEqual({});
    const before = bigquery.jobs.length;
    const deployment = await server.services.deployments.require(server.tenantId, deploymentId);
    const report = await server.services.preAggregations.refresh(deployment);
    expect(report.built.length).toBeGreaterThan(0);
    const ddl = bigquery.jobs.slice(before).map((j) => j.sql.replace(/^\/\*[^*]*\*\/ /, ''));
    expect(ddl.some((q) => /^CREATE SCHEMA IF NOT EXISTS /.test(q))).toBe(true);
    expect(ddl.some((q) => /^CREATE TABLE \S+ AS SELECT/.test(q))).toBe(true);
    const rolled = await bqClient.load(monthly);
    expect(Object.keys(rawResponse(rolled).results[0]!.usedPreAggregations as object)).toHaveLength(1);
    expect(raw.rawData().length).toBeGreaterThan(1);
    expect(normalizeNumbers(rolled.rawData())).toEqual(normalizeNumbers(raw.rawData()));
  });

  it('refuses the SQL API with a 400 naming BigQuery, and sends BigQuery nothing', async () => {
    const before = bigquery.jobs.length;
    const answer = await cubesql(
      server,
      deploymentId,
      bqToken,
      'SELECT status, MEASURE(count) FROM orders GROUP BY 1',
    );
    expect(answer.status).toBe(400);
    expect(answer.error).toMatch(/The SQL API is not supported on BigQuery/);
    expect(bigquery.jobs.length).toBe(before);
  });

  it('runs at most maxConnections jobs of a deployment at once: more queries wait for one', async () => {
    const created = await call('POST', '/api/v1/deployments', {
      name: 'bigquery-bounded',
      dataSource: { ...settings, credentials: reader.json, maxConnections: 2 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const bounded = created.json().id as number;
    await copyDemoModel(server, bounded, [{ path: 'model/extra.yml', content: extraModel }]);
    const token = await tokenFor(server, bounded, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
    bigquery.resetPeak();
    // five different queries (none answered from another's execution), each a job of 300 ms
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        client(baseUrl, bounded, token).load({ measures: ['napping.count'], limit: 30 + n }),
      ),
    );
    expect(answers.map((a) => a.rawData()[0]!['napping.count'])).toEqual(['1', '1', '1', '1', '1']);
    expect(bigquery.peakRunning()).toBe(2);
  });

  it.each([
    [
      { credentials: stranger.json },
      'login_refused',
      'credentials',
      /refused the key of service account tessera-reader@/,
    ],
    [
      { credentials: outsider.json },
      'permission_missing',
      'credentials',
      /no-jobs@.* lacks a permission: grant it BigQuery Job User on project tessera-analytics-42.*bigquery\.jobs\.create/,
    ],
    [
      { dataset: 'nowhere' },
      'database_missing',
      'dataset',
      /Project tessera-analytics-42 has no dataset nowhere in location EU/,
    ],
    [
      { projectId: 'no-such-project' },
      'database_missing',
      'projectId',
      /BigQuery has no project no-such-project/,
    ],
    [
      { apiEndpoint: 'https://127.0.0.1:1' },
      'host_unreachable',
      'apiEndpoint',
      /Nothing accepts connections at 127\.0\.0\.1:1/,
    ],
  ])('a connection test of %o says %s, never the key', async (change, problem, field, words) => {
    const res = await call('POST', '/api/v1/data-sources/test', {
      ...settings,
      credentials: reader.json,
      ...change,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
  });

  it('passes a connection test of the saved source, and of one without a dataset', async () => {
    const saved = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(saved.json()).toMatchObject({ ok: true, problem: null });
    const { dataset: _, ...noDataset } = settings;
    const bare = await call('POST', '/api/v1/data-sources/test', { ...noDataset, credentials: reader.json });
    expect(bare.json()).toMatchObject({ ok: true, problem: null });
  });

  it('refuses a key that is no service account key JSON, naming the field, and saves nothing', async () => {
    for (const credentials of ['not json', JSON.stringify({ type: 'authorized_user' }), reader.publicKey]) {
      const res = await call('POST', '/api/v1/data-sources/test', { ...settings, credentials });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/credentials/);
      expect(res.body).toMatch(/is not a service account key JSON/);
    }
    const bad = await call('POST', '/api/v1/deployments', {
      name: 'bad-bigquery',
      dataSource: { ...settings, projectId: 'Has Spaces', dataset: 'a-b', credentials: reader.json },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/projectId/);
    expect(bad.body).toMatch(/dataset/);
  });

  it("lists tables and columns with types from the dataset's INFORMATION_SCHEMA", async () => {
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
  });

  it('never writes the key in a response, a log line or a request but its JWT', async () => {
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    expect(log.length).toBeGreaterThan(0);
    const everything = [...bodies, log.join('')].join('\n');
    for (const account of [reader, outsider, stranger]) {
      expect(everything).not.toContain(account.keyLine);
      expect(bigquery.authorizations.join('\n')).not.toContain(account.keyLine);
    }
  });
});
