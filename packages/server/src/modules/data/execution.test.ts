import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { client, listen, rawResponse, tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** Test-only cubes: a cross join slow enough to outlast a short continue-wait, and an endless one. */
const slowModel = `
cubes:
  - name: slow
    sql: "SELECT hash(a.range * 7919 + b.range) % 1000 AS v FROM range(0, 5000) a, range(0, 5000) b"
    measures:
      - name: total
        type: sum
        sql: v
  - name: endless
    sql: "SELECT hash(a.range * 7919 + b.range) % 1000 AS v FROM range(0, 1000000) a, range(0, 1000000) b"
    measures:
      - name: total
        type: sum
        sql: v
`;

describe('query execution: continue wait, shared executions, cache, timeout', () => {
  let server: TestServer;
  let api: ReturnType<typeof client>;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    const baseUrl = await listen(server);
    token = await tokenFor(server, server.demoDeploymentId);
    api = client(baseUrl, server.demoDeploymentId, token);
    await server.store.db
      .insertInto('model_files')
      .values({
        deployment_id: server.demoDeploymentId,
        branch: 'main',
        path: 'model/slow.yml',
        content: slowModel,
      })
      .execute();
    // The insert's change notification drops the compiled model; wait until the new cube shows.
    for (let i = 0; i < 100; i++) {
      const meta = await api.meta();
      if (meta.cubes.some((c) => c.name === 'slow')) break;
      await new Promise((r) => setTimeout(r, 30));
    }
  });
  afterAll(() => server?.close());
  afterEach(() => {
    // a failed test must not leave the next one with a tiny continue-wait or timeout
    Object.assign(server.services.data.settings, { continueWaitMs: 5_000, queryTimeoutMs: 120_000 });
  });

  it('answers "Continue wait" and the client repeat joins the same execution', async () => {
    server.services.data.settings.continueWaitMs = 10;
    const executor = (server.services.data as unknown as { deps: { executor: { executions: number } } }).deps
      .executor;
    const before = executor.executions;
    let waits = 0;
    const rs = await api.load({ measures: ['slow.total'] }, { progressCallback: () => waits++ });
    expect(waits).toBeGreaterThan(0);
    expect(executor.executions).toBe(before + 1);
    expect(Number(rs.rawData()[0]['slow.total'])).toBeGreaterThan(0);

    // the raw protocol: 200 {"error":"Continue wait"}
    const renew = { measures: ['slow.total'], limit: 1 };
    const url = `/data/${server.demoDeploymentId}/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(renew))}`;
    const first = await server.app.inject({ url, headers: { authorization: token } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ error: 'Continue wait' });
    server.services.data.settings.continueWaitMs = 5_000;
  });

  it('serves a repeated query from the result cache with its lastRefreshTime', async () => {
    // Ordered by the dimension: by count alone, DuckDB may order tied counts differently per run.
    const query = {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' as const },
    };
    const a = await api.load(query);
    const b = await api.load(query);
    expect(rawResponse(b).results[0].lastRefreshTime).toBe(rawResponse(a).results[0].lastRefreshTime);
    const c = await api.load({ ...query, renewQuery: true });
    expect(c.rawData()).toEqual(a.rawData());
  });

  it('cancels a query that runs past the timeout', async () => {
    server.services.data.settings.queryTimeoutMs = 300;
    const started = Date.now();
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: token },
      payload: { query: { measures: ['endless.total'] } },
    });
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json().error).toMatch(/timeout/i);
    expect(Date.now() - started).toBeLessThan(5_000);
    server.services.data.settings.queryTimeoutMs = 120_000;
  });
});
