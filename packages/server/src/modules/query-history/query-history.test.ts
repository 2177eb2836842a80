import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { historyLimit } from './schemas.ts';

/**
 * The SQL editor's query history (issue 21 item 2): each user's own runs on a deployment, newest
 * first, bounded, refused to anyone else.
 */
describe('query history', () => {
  let server: TestServer;
  let deploymentId: number;
  let otherDeploymentId: number;
  /** A developer's key per test, so that each test starts with an empty history. */
  let key: string;

  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = server.demoDeploymentId;
    const other = await send('POST', '/api/v1/deployments', server.adminKey, {
      name: 'second',
      dataSource: { type: 'duckdb', path: ':sample:' },
    });
    otherDeploymentId = other.body.id;
  });
  afterAll(() => server?.close());

  async function send(method: 'GET' | 'POST' | 'DELETE', url: string, asKey: string, payload?: object) {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(asKey),
      ...(payload ? { payload } : {}),
    });
    return { status: res.statusCode, body: res.body ? res.json() : null, text: res.body };
  }
  const history = (id = deploymentId) => `/api/v1/deployments/${id}/query-history`;
  const record = (sql: string, extra: object = {}, asKey = key, id = deploymentId) =>
    send('POST', history(id), asKey, { sql, ...extra });
  const list = async (asKey = key, id = deploymentId, query = '') =>
    (await send('GET', `${history(id)}${query}`, asKey)).body;
  const stored = () =>
    server.store.db.selectFrom('query_history').select(['user_id', 'sql']).orderBy('id').execute();
  const fresh = async () => {
    key = (await userWithKey(server, 'developer')).key;
  };

  it('records runs and lists them newest first, with what each answered', async () => {
    await fresh();
    const first = await record('SELECT status, MEASURE(count) FROM orders GROUP BY 1', {
      rowCount: 5,
      durationMs: 31,
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.any(Number),
      deploymentId,
      sql: 'SELECT status, MEASURE(count) FROM orders GROUP BY 1',
      rowCount: 5,
      durationMs: 31,
      error: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await record('SELECT nope FROM orders', { error: 'Unknown column nope', rowCount: null });
    const listed = await list();
    expect(listed.items.map((e: { sql: string; error: string | null }) => [e.sql, e.error])).toEqual([
      ['SELECT nope FROM orders', 'Unknown column nope'],
      ['SELECT status, MEASURE(count) FROM orders GROUP BY 1', null],
    ]);
    expect(listed.items[1]).toEqual(first.body);
  });

  it('pages newest first with first and after', async () => {
    await fresh();
    for (const n of [1, 2, 3, 4, 5]) await record(`SELECT ${n}`);
    const page1 = await list(key, deploymentId, '?first=2');
    expect(page1.items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT 5', 'SELECT 4']);
    expect(page1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const page2 = await list(key, deploymentId, `?first=2&after=${page1.pageInfo.endCursor}`);
    expect(page2.items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT 3', 'SELECT 2']);
    const page3 = await list(key, deploymentId, `?first=2&after=${page2.pageInfo.endCursor}`);
    expect(page3.items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT 1']);
    expect(page3.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it(`keeps only the newest ${historyLimit} runs per user and deployment, also under concurrent writes`, async () => {
    await fresh();
    for (let n = 1; n <= historyLimit; n++) await record(`SELECT ${n}`);
    // Ten more at once: whichever order they land in, the ten oldest go.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => record(`SELECT ${historyLimit + 1 + i}`)),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    const all = await list(key, deploymentId, '?first=1000');
    expect(all.items).toHaveLength(historyLimit);
    const numbers = all.items.map((e: { sql: string }) => Number(e.sql.split(' ')[1]));
    expect(new Set(numbers)).toEqual(new Set(Array.from({ length: historyLimit }, (_, i) => i + 11)));
    // Newest first: ids descend.
    const ids = all.items.map((e: { id: number }) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // Another deployment's history is a list of its own, untouched by this one's bound.
    await record('SELECT elsewhere', {}, key, otherDeploymentId);
    expect((await list(key, otherDeploymentId)).items.map((e: { sql: string }) => e.sql)).toEqual([
      'SELECT elsewhere',
    ]);
    expect((await list(key, deploymentId, '?first=1000')).items).toHaveLength(historyLimit);
  });

  it("shows each user only their own runs, admins included, and clears only the caller's", async () => {
    await fresh();
    const other = await userWithKey(server, 'developer');
    await record('SELECT mine');
    await record('SELECT theirs', {}, other.key);
    expect((await list()).items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT mine']);
    expect((await list(other.key)).items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT theirs']);
    const adminSees = (await list(server.adminKey)).items.map((e: { sql: string }) => e.sql);
    expect(adminSees).not.toContain('SELECT mine');
    expect(adminSees).not.toContain('SELECT theirs');

    const cleared = await send('DELETE', history(), key);
    expect(cleared.status).toBe(204);
    expect((await list()).items).toEqual([]);
    expect((await list(other.key)).items.map((e: { sql: string }) => e.sql)).toEqual(['SELECT theirs']);
  });

  it('refuses bad input with 400 naming the field, and stores nothing', async () => {
    await fresh();
    const before = await stored();
    const cases: Array<[object, string]> = [
      [{ sql: '' }, 'body/sql'],
      [{}, 'body/sql'],
      [{ sql: 5 }, 'body/sql'],
      [{ sql: 'x'.repeat(100_001) }, 'body/sql'],
      [{ sql: 'SELECT 1', rowCount: -1 }, 'body/rowCount'],
      [{ sql: 'SELECT 1', rowCount: 1.5 }, 'body/rowCount'],
      [{ sql: 'SELECT 1', durationMs: 'slow' }, 'body/durationMs'],
      [{ sql: 'SELECT 1', error: ['x'] }, 'body/error'],
      [{ sql: 'SELECT 1', userId: 1 }, 'body/userId'],
    ];
    for (const [payload, field] of cases) {
      const res = await send('POST', history(), key, payload);
      expect(res.status, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const badCursor = await send('GET', `${history()}?after=not-a-cursor`, key);
    expect(badCursor.status).toBe(400);
    expect(await stored()).toEqual(before);
  });

  it('answers 401 without a credential, 403 to viewers and keys of other deployments, 404 for no deployment', async () => {
    await fresh();
    await record('SELECT 1');
    const before = await stored();
    const viewer = await userWithKey(server, 'viewer');
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [otherDeploymentId] });
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const payload = method === 'POST' ? { sql: 'SELECT 2' } : undefined;
      const none = await server.app.inject({ method, url: history(), ...(payload ? { payload } : {}) });
      expect(none.statusCode, method).toBe(401);
      expect((await send(method, history(), viewer.key, payload)).status, method).toBe(403);
      expect((await send(method, history(), scoped.key, payload)).status, method).toBe(403);
      expect((await send(method, history(2147483647), key, payload)).status, method).toBe(404);
    }
    expect(await stored()).toEqual(before);
  });
});
