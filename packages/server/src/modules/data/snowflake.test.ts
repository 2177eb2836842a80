import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../../../test/harness.ts';
import { selfSignedCertificate } from '../../../test/self-signed-certificate.ts';
import {
  type SnowflakeProtocolServer,
  startSnowflakeProtocolServer,
} from '../../../test/snowflake-protocol-server.ts';
import { engineQueries } from './engine-queries.ts';
import {
  client,
  copyDemoModel,
  copySampleTables,
  normalizeNumbers,
  type RecordingServer,
  rawResponse,
  startRecordingServer,
  tokenFor,
} from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const passphrase = 'hunter2-snowflake-never-shown';
const oauthToken = 'oauth-token-never-shown-7f3a';

/** The user's key pair: the private key PKCS#8 PEM, encrypted with the passphrase, as Snowflake's guide makes it. */
const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
});
/** Another user's key: Snowflake does not know its public key. */
const otherKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
}).privateKey;
/** A line from the middle of each private key's PEM body, which no response or log may hold. */
const keyLines = [keys.privateKey, otherKey].map((pem) => pem.split('\n')[5]!);

/**
 * Which of the shared engine queries (engine-queries.ts) run on the protocol server's DuckDB with
 * Snowflake's SQL unchanged, compared row for row with the DuckDB deployment's answers. The others
 * are checked only as golden SQL (packages/semantic/test/golden/*.snowflake.golden.sql):
 * - monthly_in_new_york: CONVERT_TIMEZONE is Snowflake's; DuckDB has no function of that name.
 */
const goldenOnly = new Set(['monthly_in_new_york']);
const onDuckDb = Object.entries(engineQueries).filter(([name]) => !goldenOnly.has(name));

// cubes only this deployment has: one whose SQL the engine refuses, one that runs until cancelled
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
`;

/**
 * Snowflake as a warehouse (issue 24 items 1-3) against a server in this process speaking the SQL
 * API v2 over HTTPS (test/snowflake-protocol-server.ts), with the SQL run on DuckDB over a copy
 * of the sample data: the data API's rows equal the DuckDB deployment's for the queries DuckDB can
 * run as Snowflake SQL; each request carries a key-pair JWT the server verifies; statements carry
 * Tessera's query tag and are polled through 202s; results come in several partitions; a 503 on
 * submit is retried with the same request id; a client going away cancels the statement; a
 * compilation error is a 400 in Snowflake's words; connection tests say what failed; the key, its
 * passphrase and the OAuth token appear in no response and no log line.
 */
describe('Snowflake data sources (SQL API protocol server)', () => {
  let server: TestServer;
  let snowflake: SnowflakeProtocolServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let snowClient: ReturnType<typeof client>;
  let snowToken: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  const log: string[] = [];
  const bodies: string[] = [];
  let recording: RecordingServer;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    recording.call(method, url, payload);
  const load = (query: unknown, signal?: AbortSignal) =>
    recording.load(deploymentId, snowToken, query, signal);

  beforeAll(async () => {
    recording = await startRecordingServer({ log, bodies });
    ({ server, baseUrl } = recording);
    const tls = selfSignedCertificate();
    snowflake = await startSnowflakeProtocolServer({
      account: 'xy12345.eu-central-1',
      user: 'tessera_reader',
      publicKey: keys.publicKey,
      oauthTokens: [oauthToken],
      tls,
      warehouses: ['REPORTING_WH'],
      database: 'ANALYTICS',
      partitionSize: 7,
    });
    // the sample's tables copied into the protocol server's DuckDB (schema `main`)
    await copySampleTables(server, snowflake.duck, scale);

    settings = {
      type: 'snowflake',
      account: 'xy12345.eu-central-1',
      host: snowflake.host,
      user: 'tessera_reader',
      warehouse: 'REPORTING_WH',
      database: 'ANALYTICS',
      schema: 'main',
      role: 'ANALYST',
      caCertificate: tls.cert,
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'snowflake',
      dataSource: { ...settings, privateKey: keys.privateKey, privateKeyPassphrase: passphrase },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({
      ...settings,
      hasPassword: false,
      hasPrivateKey: true,
      hasPrivateKeyPassphrase: true,
      hasOauthToken: false,
    });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    snowToken = await tokenFor(server, deploymentId, ctx);
    snowClient = client(baseUrl, deploymentId, snowToken);
  });
  afterAll(async () => {
    await server?.close();
    await snowflake?.close();
  });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of onDuckDb) {
      it(name, async () => {
        const [d, s] = await Promise.all([duck.load(query), snowClient.load(query)]);
        expect(rawResponse(s).results[0]!.dbType).toBe('snowflake');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(s.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it('submits with a request id, timeout, session and query tag, polls through 202s, and reads every partition', async () => {
    const before = snowflake.statements.length;
    // a query of its own, which no earlier test left in the result cache
    const rows = (await snowClient.load({ ...engineQueries.ungrouped!, limit: 19 })).rawData();
    // 19 rows in partitions of 7: partition 0 with the result, 1 and 2 fetched (gzip-compressed)
    expect(rows.map((r) => Number(r['orders.id']))).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    expect(rows[0]!['orders.created_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    const sent = snowflake.statements.slice(before);
    expect(sent).toHaveLength(1);
    const { sql, body, headers, requestId, pendingAnswers, partitionsServed } = sent[0]!;
    expect(partitionsServed).toEqual([0, 1, 2]);
    expect(pendingAnswers).toBeGreaterThanOrEqual(2);
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sql).toMatch(new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`));
    expect(body).toMatchObject({
      timeout: 3600,
      warehouse: 'REPORTING_WH',
      database: 'ANALYTICS',
      schema: 'main',
      role: 'ANALYST',
      parameters: { TIMEZONE: 'UTC' },
    });
    const tag = JSON.parse((body.parameters as { QUERY_TAG: string }).QUERY_TAG);
    expect(tag).toEqual({
      application: 'tessera',
      deployment: deploymentId,
      query: expect.stringMatching(/^[0-9a-f]+$/),
    });
    expect(headers['x-snowflake-authorization-token-type']).toBe('KEYPAIR_JWT');
  });

  it('retries a submit answered 503 with the same request id, and runs the statement once', async () => {
    const before = snowflake.statements.length;
    snowflake.busyNext();
    const rows = (await snowClient.load({ ...engineQueries.ungrouped!, limit: 3 })).rawData();
    expect(rows).toHaveLength(3);
    const sent = snowflake.statements.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ busyAnswers: 1, submits: 2, retried: true });
  });

  it('cancels the statement on Snowflake (POST .../cancel) when the client goes away', async () => {
    const controller = new AbortController();
    const running = new Promise<string>((resolve) => snowflake.events.once('running', resolve));
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const handle = await running;
    const cancelled = new Promise<string>((resolve) => snowflake.events.once('cancelled', resolve));
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await cancelled).toBe(handle);
  });

  it("answers a SQL compilation error (422) with a 400 in Snowflake's words", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatch(
      /^Query failed: SQL compilation error: Binder Error: .*no_such_column/,
    );
  });

  it.each([
    [
      { privateKey: otherKey, privateKeyPassphrase: '' },
      'login_refused',
      'privateKey',
      /refused the key-pair login of user tessera_reader: .*RSA_PUBLIC_KEY_FP; this key's is SHA256:[A-Za-z0-9+/=]{44}\)/,
    ],
    [
      { privateKey: undefined, privateKeyPassphrase: undefined, oauthToken: 'expired-token' },
      'login_refused',
      'oauthToken',
      /refused the OAuth token for user tessera_reader: it may have expired/,
    ],
    [
      { warehouse: 'NO_WH' },
      'permission_missing',
      'warehouse',
      /no warehouse NO_WH that role ANALYST may use/,
    ],
    [
      { database: 'NOWHERE' },
      'database_missing',
      'database',
      /no database NOWHERE that role ANALYST may use/,
    ],
    [{ host: '127.0.0.1:1' }, 'host_unreachable', 'port', /Nothing accepts connections at 127\.0\.0\.1:1/],
    [
      { host: undefined, account: 'nohost.invalid' },
      'host_unknown',
      'account',
      /nohost\.snowflakecomputing\.com|nohost\.invalid/,
    ],
  ])('a connection test of %o says %s, never the key', async (change, problem, field, words) => {
    const res = await call('POST', '/api/v1/data-sources/test', {
      ...settings,
      privateKey: keys.privateKey,
      privateKeyPassphrase: passphrase,
      ...change,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
  });

  it('passes a connection test of the saved source, and of an OAuth token', async () => {
    const saved = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(saved.json()).toMatchObject({ ok: true, problem: null });
    const oauth = await call('POST', '/api/v1/data-sources/test', { ...settings, oauthToken });
    expect(oauth.json()).toMatchObject({ ok: true, problem: null });
    expect(snowflake.statements.at(-1)!.headers['x-snowflake-authorization-token-type']).toBe('OAUTH');
  });

  it('refuses a key that is no PEM private key, or with a wrong passphrase, naming the field, and saves nothing', async () => {
    for (const change of [
      { privateKey: keys.publicKey },
      { privateKey: keys.privateKey, privateKeyPassphrase: 'wrong' },
    ]) {
      const res = await call('POST', '/api/v1/data-sources/test', { ...settings, ...change });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/privateKey/);
      expect(res.body).toMatch(/not a PEM private key/);
    }
  });

  it('lists tables and columns with types from information_schema', async () => {
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

  it('never writes the key, its passphrase or the OAuth token in a response, a log line or a request but its JWT', async () => {
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    expect(log.length).toBeGreaterThan(0);
    const everything = [...bodies, log.join('')].join('\n');
    for (const secret of [...keyLines, passphrase, oauthToken]) expect(everything).not.toContain(secret);
    for (const line of keyLines) expect(snowflake.authorizations.join('\n')).not.toContain(line);
  });
});
