import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AthenaProtocolServer,
  startAthenaProtocolServer,
} from '../../../test/athena-protocol-server.ts';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { engineQueries } from './engine-queries.ts';
import {
  client,
  copyDemoModel,
  copySampleTables,
  listen,
  normalizeNumbers,
  rawResponse,
  tokenFor,
} from './test-support.ts';

const scale = 0.002;
process.env.TESSERA_SAMPLE_SCALE = String(scale);
const keyId = 'AKIATESSERATEST00001';
const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY-never-shown';
/** The server's own AWS identity, as an operator's environment gives it (credentials: server). */
const serverKeyId = 'AKIATESSERASERVER001';
const serverSecret = 'server-own-secret-never-shown';

/**
 * The shared engine queries the protocol server's DuckDB runs as Athena SQL (which is Trino's,
 * packages/semantic/src/dialect/athena.ts), compared row for row with the DuckDB deployment's.
 * monthly_in_new_york is left out for the reasons trino.test.ts gives (with_timezone, DECIMAL
 * division); its SQL is Trino's golden SQL.
 */
const onDuckDb = Object.entries(engineQueries).filter(([name]) => name !== 'monthly_in_new_york');

// cubes only this deployment has: one Athena cannot compute, one whose SQL the engine refuses,
// one that runs until stopped, one Athena lacks the resources for (protocol-server markers)
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
    sql: SELECT 1 AS id, 'tessera_protocol_exhausted' AS s
    measures:
      - name: count
        type: count
`;

/**
 * Athena as a warehouse (issue 24 items 1-3) against a server in this process speaking Athena's
 * AWS JSON 1.1 API (test/athena-protocol-server.ts) through AWS's own SDK, each call SigV4-signed
 * and checked, with the SQL run on DuckDB over a copy of the sample data: the data API's rows
 * equal the DuckDB deployment's; queries carry Tessera's tag, an idempotency token, the workgroup
 * and database; results come in several pages after QUEUED and RUNNING and a throttled poll the
 * SDK retries; a client going away stops the query; a USER error is a 400 and exhausted resources
 * a 503; connection tests say what failed; the secret key appears in no response and no log line.
 */
describe('Athena data sources (protocol server)', () => {
  let server: TestServer;
  let athena: AthenaProtocolServer;
  let baseUrl: string;
  let duck: ReturnType<typeof client>;
  let athenaClient: ReturnType<typeof client>;
  let athenaToken: string;
  let deploymentId: number;
  let settings: Record<string, unknown>;
  const log: string[] = [];
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const load = (query: unknown, signal?: AbortSignal) =>
    fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: athenaToken, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (line: Buffer) => log.push(line.toString('utf8')));
    server = await startTestServer({ awsServerCredentials: true }, undefined, logStream);
    baseUrl = await listen(server);
    athena = await startAthenaProtocolServer({
      keys: { [keyId]: secret, [serverKeyId]: serverSecret },
      workgroups: { primary: 's3://tessera-results/', analysts: null },
      pageSize: 7,
      throttleOnce: true,
    });
    // the sample's tables copied into the protocol server's DuckDB (database `main`)
    await copySampleTables(server, athena.duck, scale);

    settings = {
      type: 'athena',
      region: 'eu-west-1',
      workgroup: 'primary',
      outputLocation: 's3://tessera-results/athena/',
      database: 'main',
      accessKeyId: keyId,
      endpoint: athena.url,
    };
    const created = await call('POST', '/api/v1/deployments', {
      name: 'athena',
      dataSource: { ...settings, secretAccessKey: secret },
    });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: false, hasSecretAccessKey: true });
    expect(created.body).not.toContain(secret);
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId, [{ path: 'model/extra.yml', content: extraModel }]);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    athenaToken = await tokenFor(server, deploymentId, ctx);
    athenaClient = client(baseUrl, deploymentId, athenaToken);
  });
  afterAll(async () => {
    await server?.close();
    await athena?.close();
  });

  describe('the data API gives DuckDB rows', () => {
    for (const [name, query] of onDuckDb) {
      it(name, async () => {
        const [d, a] = await Promise.all([duck.load(query), athenaClient.load(query)]);
        expect(rawResponse(a).results[0]!.dbType).toBe('athena');
        expect(d.rawData().length).toBeGreaterThan(0);
        expect(normalizeNumbers(a.rawData())).toEqual(normalizeNumbers(d.rawData()));
      });
    }
  });

  it("starts each query tagged with Tessera, in the data source's workgroup and database, and reads every page", async () => {
    const before = athena.queries.length;
    const rows = (await athenaClient.load({ ...engineQueries.ungrouped!, limit: 19 })).rawData();
    // 19 rows and the header row in pages of 7: three pages
    expect(rows.map((r) => Number(r['orders.id']))).toEqual(Array.from({ length: 19 }, (_, i) => i + 1));
    const sent = athena.queries.slice(before);
    expect(sent).toHaveLength(1);
    const q = sent[0]!;
    expect(q.sql).toMatch(new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`));
    expect(q).toMatchObject({
      workgroup: 'primary',
      catalog: 'AwsDataCatalog',
      database: 'main',
      outputLocation: 's3://tessera-results/athena/',
      pagesRead: 3,
    });
    expect(q.token).toMatch(/^[0-9a-f]{64}$/);
    // every call signed with the data source's key; the one throttled poll was retried by the SDK
    expect(athena.requests.every((r) => r.accessKeyId === keyId)).toBe(true);
    expect(athena.throttled).toBe(1);
  });

  it('stops the query on Athena (StopQueryExecution) when the client goes away', async () => {
    const controller = new AbortController();
    const running = new Promise<string>((resolve) => athena.events.once('running', resolve));
    const request = load({ measures: ['slow.count'] }, controller.signal).catch((e: Error) => e);
    const id = await running;
    const cancelled = new Promise<string>((resolve) => athena.events.once('cancelled', resolve));
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await cancelled).toBe(id);
  });

  it("answers a USER error with a 400 in the engine's words, exhausted resources with a 503, neither naming the secret", async () => {
    const bad = await load({ measures: ['amounts.broken'] });
    expect(bad.status).toBe(400);
    const badBody = await bad.text();
    expect(JSON.parse(badBody).error).toMatch(/^Query failed: Binder Error: .*no_such_column/);
    expect(badBody).not.toContain(secret);

    const heavy = await load({ measures: ['heavy.count'] });
    expect(heavy.status).toBe(503);
    const heavyBody = await heavy.text();
    expect(JSON.parse(heavyBody).error).toMatch(/out of connections or resources right now/);
    expect(heavyBody).not.toContain(secret);
  });

  it('refuses a median with a 400 naming the feature and Athena', async () => {
    const res = await load({ measures: ['amounts.median_amount'] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/Median measures are not supported on Athena/);
  });

  it.each([
    [
      { accessKeyId: 'AKIAWRONGWRONGWRONG1' },
      'login_refused',
      'accessKeyId',
      /does not know the access key AKIAWRONGWRONGWRONG1/,
    ],
    [
      { secretAccessKey: 'not-the-secret' },
      'login_refused',
      'secretAccessKey',
      /refused the signature of access key AKIATESSERATEST00001: the secret access key is not that key's/,
    ],
    [{ workgroup: 'nowhere' }, 'database_missing', 'workgroup', /has no workgroup nowhere/],
    [
      { workgroup: 'analysts', outputLocation: undefined },
      'database_missing',
      'outputLocation',
      /Workgroup analysts has no result location/,
    ],
    [
      { database: 'nowhere' },
      'database_missing',
      'database',
      /Catalog AwsDataCatalog has no database nowhere/,
    ],
    [
      { endpoint: 'http://127.0.0.1:1' },
      'host_unreachable',
      'port',
      /Nothing accepts connections at 127\.0\.0\.1:1/,
    ],
  ])('a connection test of %o says %s, never the secret', async (change, problem, field, words) => {
    const res = await call('POST', '/api/v1/data-sources/test', {
      ...settings,
      secretAccessKey: secret,
      ...change,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, problem, field, message: expect.stringMatching(words) });
    expect(res.body).not.toContain(secret);
  });

  it('passes a connection test of the saved source', async () => {
    const res = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(res.json()).toMatchObject({ ok: true, problem: null });
  });

  it('refuses settings without a region or with a result location outside S3, naming the field, and saves nothing', async () => {
    const noRegion = await call('POST', '/api/v1/data-sources/test', {
      ...settings,
      region: undefined,
      secretAccessKey: secret,
    });
    expect(noRegion.statusCode).toBe(400);
    expect(noRegion.body).toMatch(/region/);
    const notS3 = await call('POST', '/api/v1/data-sources/test', {
      ...settings,
      outputLocation: 'https://example.com/results',
      secretAccessKey: secret,
    });
    expect(notS3.statusCode).toBe(400);
    expect(notS3.body).toMatch(/outputLocation/);
    expect(noRegion.body + notS3.body).not.toContain(secret);
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
    expect(orders.foreignKeys).toEqual([]);
  });

  describe("credentials: server (this server's own AWS identity)", () => {
    const serverSettings = () => {
      const { accessKeyId: _key, ...rest } = settings;
      return { ...rest, credentials: 'server' };
    };
    /** The SDK's default chain reads the environment first, as on a host given AWS_* variables. */
    const withServerIdentity = async (work: () => Promise<void>) => {
      const before = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
      process.env.AWS_ACCESS_KEY_ID = serverKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = serverSecret;
      try {
        await work();
      } finally {
        for (const [name, value] of [
          ['AWS_ACCESS_KEY_ID', before.id],
          ['AWS_SECRET_ACCESS_KEY', before.secret],
        ] as const)
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
      }
    };

    it("queries as the server's identity where the operator allows it, and returns no key", async () => {
      await withServerIdentity(async () => {
        const created = await call('POST', '/api/v1/deployments', {
          name: 'athena as the server',
          dataSource: serverSettings(),
        });
        expect(created.statusCode, created.body).toBe(200);
        expect(created.json().dataSource).toEqual({
          ...serverSettings(),
          hasPassword: false,
          hasSecretAccessKey: false,
        });
        const id = created.json().id as number;
        await copyDemoModel(server, id);
        const signedBefore = athena.requests.length;
        const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
        const rows = await client(baseUrl, id, await tokenFor(server, id, ctx)).load({
          measures: ['orders.count'],
        });
        expect(Number(rows.rawData()[0]!['orders.count'])).toBeGreaterThan(0);
        const signed = athena.requests.slice(signedBefore);
        expect(signed.length).toBeGreaterThan(0);
        expect(signed.every((r) => r.accessKeyId === serverKeyId)).toBe(true);
        const test = await call('POST', `/api/v1/deployments/${id}/data-source/test`, {});
        expect(test.json()).toMatchObject({ ok: true });
        expect(created.body + test.body).not.toContain(serverSecret);
      });
    });

    it('says in words, naming the field, that the operator has not allowed it', async () => {
      const { athenaKind } = await import('../../datasources/kinds/athena.ts');
      const context = { dataDir: '', sampleScale: 1, shared: new Map(), deploymentId: null };
      const refused = await athenaKind
        .test(serverSettings() as never, context, 1_000)
        .catch((e: unknown) => e);
      expect(athenaKind.describeFailure(refused, serverSettings() as never, 1_000)).toMatchObject({
        problem: 'login_refused',
        field: 'credentials',
        message: expect.stringMatching(/TESSERA_AWS_SERVER_CREDENTIALS=1/),
      });
    });

    it('refuses an access key beside it, naming the field, and saves nothing', async () => {
      const before = (await call('GET', '/api/v1/deployments')).json();
      const res = await call('POST', '/api/v1/deployments', {
        name: 'athena with both',
        dataSource: { ...serverSettings(), accessKeyId: keyId, secretAccessKey: secret },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/accessKeyId/);
      expect(res.body).not.toContain(secret);
      expect((await call('GET', '/api/v1/deployments')).json()).toEqual(before);
    });
  });

  it('never returns or logs the secret access key', async () => {
    const got = await call('GET', `/api/v1/deployments/${deploymentId}`);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().dataSource).toEqual({ ...settings, hasPassword: false, hasSecretAccessKey: true });
    const logs = await call('GET', `/api/v1/deployments/${deploymentId}/logs`);
    expect(logs.statusCode, logs.body).toBe(200);
    expect(got.body + logs.body).not.toContain(secret);
    expect(log.length).toBeGreaterThan(0);
    expect(log.join('')).not.toContain(secret);
  });
});
