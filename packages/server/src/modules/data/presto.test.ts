import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { startTrinoProtocolServer, type TrinoProtocolServer } from '../../../test/trino-protocol-server.ts';
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

/**
 * Presto as a warehouse (issue 24 item 1) against the Trino protocol server of
 * test/trino-protocol-server.ts, which reads Presto's X-Presto-* headers where Trino's are
 * absent, with the SQL run on DuckDB (no Presto can run on this machine): the data API gives the
 * DuckDB deployment's rows for the UTC queries, every header Tessera sends is Presto's, and a
 * query in another zone is refused with a 400 naming the feature and the engine.
 */
describe('Presto data sources (protocol server)', () => {
  let server: TestServer;
  let presto: TrinoProtocolServer;
  let baseUrl: string;
  let deploymentId: number;
  let duck: ReturnType<typeof client>;
  let prestoClient: ReturnType<typeof client>;
  let token: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const utcQueries = Object.entries(engineQueries).filter(([name]) => name !== 'monthly_in_new_york');

  beforeAll(async () => {
    server = await startTestServer();
    baseUrl = await listen(server);
    presto = await startTrinoProtocolServer({ catalog: 'memory', pageSize: 7 });
    await copySampleTables(server, presto.duck, scale);
    const settings = {
      type: 'presto',
      host: '127.0.0.1',
      port: presto.port,
      user: 'analyst',
      catalog: 'memory',
      schema: 'main',
    };
    const created = await call('POST', '/api/v1/deployments', { name: 'presto', dataSource: settings });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().dataSource).toEqual({ ...settings, hasPassword: false });
    deploymentId = created.json().id;
    await copyDemoModel(server, deploymentId);
    const ctx = { securityContext: { serviceCloud: { groups: ['admin'] } } };
    duck = client(baseUrl, server.demoDeploymentId, await tokenFor(server, server.demoDeploymentId, ctx));
    token = await tokenFor(server, deploymentId, ctx);
    prestoClient = client(baseUrl, deploymentId, token);
  });
  afterAll(async () => {
    await server?.close();
    await presto?.close();
  });

  for (const [name, query] of utcQueries) {
    it(`gives the DuckDB rows: ${name}`, async () => {
      const [d, p] = await Promise.all([duck.load(query), prestoClient.load(query)]);
      expect(rawResponse(p).results[0]!.dbType).toBe('presto');
      expect(d.rawData().length).toBeGreaterThan(0);
      expect(normalizeNumbers(p.rawData())).toEqual(normalizeNumbers(d.rawData()));
    });
  }

  it("sends Presto's headers only, naming Tessera and the deployment", async () => {
    const before = presto.statements.length;
    await prestoClient.load({ ...engineQueries.ungrouped!, limit: 9 });
    const [sent] = presto.statements.slice(before);
    expect(sent!.headers).toMatchObject({
      'x-presto-user': 'analyst',
      'x-presto-catalog': 'memory',
      'x-presto-schema': 'main',
      'x-presto-source': 'tessera',
      'x-presto-client-tags': `tessera,deployment-${deploymentId}`,
      'x-presto-time-zone': 'UTC',
      'x-presto-session': 'offset_clause_enabled=true',
    });
    expect(Object.keys(sent!.headers).filter((h) => h.startsWith('x-trino-'))).toEqual([]);
    expect(sent!.sql).toMatch(
      new RegExp(`^/\\* tessera deployment=${deploymentId} query=[0-9a-f]+ \\*/ SELECT`),
    );
  });

  it('refuses a query in another time zone with a 400 naming the feature and Presto', async () => {
    const res = await fetch(`${baseUrl}/data/${deploymentId}/cubejs-api/v1/load`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ query: engineQueries.monthly_in_new_york }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(
      /Time zones other than UTC \(America\/New_York\) are not supported on Presto/,
    );
  });

  it('tests the connection, and says what failed in Presto words', async () => {
    const ok = await call('POST', `/api/v1/deployments/${deploymentId}/data-source/test`, {});
    expect(ok.json()).toMatchObject({ ok: true, problem: null });
    const bad = await call('POST', '/api/v1/data-sources/test', {
      type: 'presto',
      host: '127.0.0.1',
      port: presto.port,
      user: 'analyst',
      catalog: 'hive',
      schema: 'main',
    });
    expect(bad.json()).toMatchObject({
      ok: false,
      problem: 'database_missing',
      field: 'catalog',
      message: expect.stringMatching(/^Presto at 127\.0\.0\.1:\d+ has no catalog hive/),
    });
  });
});
