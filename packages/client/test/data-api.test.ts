import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CubeSqlEvent, createDataApi, cubeSqlEvents, type DataApi, DataApiError } from '../src/index.ts';
import { type ListeningServer, startListening } from './support.ts';

/** A cube slow enough to outlast a short continue-wait interval (as the server's execution tests do). */
const slowModel = `
cubes:
  - name: slow
    sql: "SELECT hash(a.range * 7919 + b.range) % 1000 AS v FROM range(0, 3000) a, range(0, 3000) b"
    measures:
      - name: total
        type: sum
        sql: v
`;

describe('data API helpers on the demo deployment', () => {
  let s: ListeningServer;
  let data: DataApi;
  let deploymentId: number;
  const answers: string[] = [];
  beforeAll(async () => {
    s = await startListening();
    deploymentId = s.server.demoDeploymentId;
    const minted = await s.client.POST('/api/v1/deployments/{deploymentId}/token', {
      params: { path: { deploymentId } },
      body: {},
    });
    expect(minted.error).toBeUndefined();
    data = createDataApi({
      baseUrl: s.baseUrl,
      deploymentId,
      token: minted.data!.serviceApiToken,
      fetch: async (request) => {
        const response = await fetch(request);
        if (request.url.endsWith('/load')) answers.push(await response.clone().text());
        return response;
      },
    });
  });
  afterAll(() => s?.close());

  it('reads the model with meta', async () => {
    const meta = await data.meta();
    expect(meta.cubes.map((c) => c.name)).toContain('orders');
    const orders = meta.cubes.find((c) => c.name === 'orders')!;
    expect(orders.measures.map((m) => m.name)).toContain('orders.count');
  });

  it('runs a query with load', async () => {
    const result = await data.load({ measures: ['orders.count'], dimensions: ['orders.status'] });
    const rows = result.data as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(1);
    expect(Number(rows[0]['orders.count'])).toBeGreaterThan(0);
    const multi = await data.load([{ measures: ['orders.count'] }], { queryType: 'multi' });
    expect(multi.results).toHaveLength(1);
  });

  it('repeats the request while the server answers "Continue wait"', async () => {
    const uploaded = await s.client.PUT('/build/api/v1/deployments/{deploymentId}/data-model/files', {
      params: { path: { deploymentId } },
      body: { files: [{ path: 'model/slow.yml', content: slowModel }] },
    });
    expect(uploaded.error).toBeUndefined();
    for (let i = 0; i < 100 && !(await data.meta()).cubes.some((c) => c.name === 'slow'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The server's long-polling interval, shortened as its own execution tests do.
    const settings = s.server.services.data.settings;
    const before = settings.continueWaitMs;
    settings.continueWaitMs = 5;
    try {
      answers.length = 0;
      const result = await data.load({ measures: ['slow.total'], renewQuery: true });
      expect(Number((result.data as Record<string, unknown>[])[0]['slow.total'])).toBeGreaterThan(0);
      expect(answers.length).toBeGreaterThan(1);
      expect(JSON.parse(answers[0])).toEqual({ error: 'Continue wait' });
      expect(JSON.parse(answers.at(-1)!).data).toBeDefined();
    } finally {
      settings.continueWaitMs = before;
    }
  });

  it('reads cubesql as a stream: the schema, then each row', async () => {
    const events: CubeSqlEvent[] = [];
    for await (const event of data.cubesql(
      'SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1 ORDER BY 1',
    )) {
      events.push(event);
    }
    expect(events[0]).toMatchObject({ type: 'schema', schema: [{ name: 'status' }, { name: 'n' }] });
    const rows = events.slice(1);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.every((e) => e.type === 'row' && e.row.length === 2)).toBe(true);
  });

  it('throws a typed error for a bad query and for a bad token', async () => {
    const bad = await data.load({ measures: ['orders.nope'] }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(DataApiError);
    expect((bad as DataApiError).status).toBe(400);
    expect((bad as DataApiError).type).toBe('UserError');
    const sql = data.cubesql('SELECT nothing FROM nowhere');
    await expect(sql.next()).rejects.toBeInstanceOf(DataApiError);
    const stranger = createDataApi({ baseUrl: s.baseUrl, deploymentId, token: 'not-a-token' });
    await expect(stranger.meta()).rejects.toMatchObject({ status: 403 });
  });

  it('aborts a load', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      data.load({ measures: ['orders.count'] }, { signal: controller.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('cubesql lines', () => {
  it('yields rows across data lines and throws on an error line after the stream started', async () => {
    const lines = [
      '{"schema":[{"name":"status","column_type":"String"}],"lastRefreshTime":"2026-01-01T00:00:00.000Z"}',
      '{"data":[["a"],["b"]]}',
      '{"data":[["c"]]}',
      '{"error":"the engine went away"}',
    ];
    const seen: CubeSqlEvent[] = [];
    const failure = await (async () => {
      for await (const event of cubeSqlEvents(lines)) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen.map((e) => (e.type === 'row' ? e.row[0] : 'schema'))).toEqual(['schema', 'a', 'b', 'c']);
    expect(failure).toBeInstanceOf(DataApiError);
    expect((failure as DataApiError).midStream).toBe(true);
    expect((failure as DataApiError).message).toBe('the engine went away');
  });
});
