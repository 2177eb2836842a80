import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { generateApiKey } from '../../auth/credentials.ts';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer the assertions walk
  body: any;
}

/**
 * Issue 25 item 5, the reference's Usage Analytics token: over real HTTP, an admin's token reads
 * the built-in usage model through the data API, with counts equal to the views and SQL runs this
 * test made; anyone else is refused; one account never sees another's usage.
 */
describe('usage analytics', () => {
  let server: TestServer;
  let port: number;
  const home = 'default.tessera.test';
  const away = 'other.tessera.test';
  let awayKey: string;
  let viewer: Awaited<ReturnType<typeof userWithKey>>;
  let developer: Awaited<ReturnType<typeof userWithKey>>;
  let secondAdmin: Awaited<ReturnType<typeof userWithKey>>;

  /** A request over the loopback, with the Host header that selects the account. */
  const send = (
    host: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          headers: {
            host,
            ...headers,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  const api = (host: string, key: string, method: string, path: string, body?: unknown) =>
    send(host, method, path, { authorization: `Bearer ${key}` }, body);
  const mint = (host: string, key: string) => api(host, key, 'POST', '/api/v1/usage-analytics/token');
  const load = async (host: string, token: string, query: unknown) => {
    const res = await send(host, 'POST', '/data/0/cubejs-api/v1/load', { authorization: token }, { query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Record<string, string | null>[];
  };

  /** A workbook with one SQL report, published; its public id. */
  const publish = async (host: string, key: string, deploymentId: number, name: string) => {
    const d = `/api/v1/deployments/${deploymentId}`;
    const wb = (await api(host, key, 'POST', `${d}/workbooks`, { name })).body;
    const report = (
      await api(host, key, 'POST', `${d}/reports`, { name: 'one', sqlQuery: 'SELECT 1', workbookId: wb.id })
    ).body;
    const board = await api(host, key, 'POST', `${d}/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      config: {
        title: name,
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.id } }],
      },
    });
    expect(board.status, JSON.stringify(board.body)).toBe(200);
    return { publicId: board.body.publicId as string, workbookId: wb.id as number };
  };
  const open = async (host: string, key: string, publicId: string) => {
    const res = await api(host, key, 'GET', `/api/v1/embed/dashboard/${publicId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const runSql = async (host: string, key: string, deploymentId: number, durationMs: number) => {
    const res = await api(host, key, 'POST', `/api/v1/deployments/${deploymentId}/query-history`, {
      sql: `SELECT ${durationMs}`,
      rowCount: 1,
      durationMs,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  let boards: { often: string; once: string; never: string; foreign: string };
  let awayDeployment: number;

  beforeAll(async () => {
    server = await startTestServer({ domain: 'tessera.test' });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
    viewer = await userWithKey(server, 'viewer');
    developer = await userWithKey(server, 'developer');
    secondAdmin = await userWithKey(server, 'admin');
    // A second account with an admin key of its own, as `tessera create-tenant` makes it.
    const repos = server.services.repositories;
    const other = await repos.tenants.create({ name: 'other', displayName: 'Other', customDomain: null });
    const admin = await repos.users.insert(other.id, {
      email: 'admin@other',
      username: 'admin@other',
      role: 'admin',
    });
    const generated = generateApiKey();
    await repos.apiKeys.insert({
      tenantId: other.id,
      userId: admin.id,
      name: 'other admin',
      kind: 'api',
      hash: generated.hash,
      prefix: generated.prefix,
      deploymentIds: null,
      expiresAt: null,
    });
    awayKey = generated.key;
    server.services.tenantResolver.invalidate();

    const demo = server.demoDeploymentId;
    const key = server.adminKey;
    boards = {
      often: (await publish(home, key, demo, 'Often viewed')).publicId,
      once: (await publish(home, key, demo, 'Viewed once')).publicId,
      never: (await publish(home, key, demo, 'Never viewed')).publicId,
      foreign: '',
    };
    const created = await api(away, awayKey, 'POST', '/api/v1/deployments', {
      name: 'away',
      dataSource: { type: 'duckdb', path: ':sample:' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    awayDeployment = created.body.id;
    boards.foreign = (await publish(away, awayKey, awayDeployment, 'Foreign board')).publicId;
  });
  afterAll(() => server?.close());

  it("lists the data API's queries (dashboard widgets here) with who ran them, never another account's", async () => {
    const widget = (host: string, key: string, deploymentId: number, publicId: string) =>
      api(
        host,
        key,
        'POST',
        `/api/v1/deployments/${deploymentId}/dashboards/${publicId}/widgets/w1/data`,
        {},
      );
    const before = await load(home, (await mint(home, server.adminKey)).body.token, {
      measures: ['data_queries.count'],
    });
    for (let i = 0; i < 2; i++)
      expect((await widget(home, server.adminKey, server.demoDeploymentId, boards.once)).status).toBe(200);
    expect((await widget(home, viewer.key, server.demoDeploymentId, boards.once)).status).toBe(403);
    expect((await widget(away, awayKey, awayDeployment, boards.foreign)).status).toBe(200);
    await server.services.deploymentLogs.flush();

    const token = (await mint(home, server.adminKey)).body.token;
    // The usage model keeps a result five seconds (its refresh_key): this read asks past it.
    const [after] = await load(home, token, { measures: ['data_queries.count'], renewQuery: true });
    // Each answer is a line, from the engine or the result cache; the refused request none.
    expect(Number(after['data_queries.count']) - Number(before[0]['data_queries.count'])).toBe(2);
    const rows = await load(home, token, {
      dimensions: [
        'data_queries.user_email',
        'data_queries.deployment_name',
        'data_queries.message',
        'data_queries.row_count',
        'data_queries.failed',
        'data_queries.created_at',
      ],
      order: { 'data_queries.created_at': 'desc' },
      limit: 1,
      renewQuery: true,
    });
    expect(rows[0]).toMatchObject({
      'data_queries.user_email': 'admin@localhost',
      'data_queries.row_count': '1',
      'data_queries.failed': false,
    });
    expect(rows[0]['data_queries.message']).toMatch(/^SQL API query answered 1 row in \d+ ms$/);
    const deployments = await load(home, token, {
      dimensions: ['data_queries.deployment_name'],
      renewQuery: true,
    });
    expect(deployments.map((r) => r['data_queries.deployment_name'])).not.toContain('away');
  });

  it('answers the usage model with the views and runs this test made', async () => {
    const key = server.adminKey;
    for (let i = 0; i < 3; i++) await open(home, key, boards.often);
    await open(home, secondAdmin.key, boards.often);
    await open(home, key, boards.once);
    for (const ms of [100, 200, 300, 400, 5000]) await runSql(home, key, server.demoDeploymentId, ms);
    await runSql(home, developer.key, server.demoDeploymentId, 50);
    // The other account's usage, which this account's token must never show.
    for (let i = 0; i < 7; i++) await open(away, awayKey, boards.foreign);
    await runSql(away, awayKey, awayDeployment, 99_999);
    await server.services.dashboardViews.settled();

    const minted = await mint(home, key);
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const { token, apiUrl, deploymentId, expiresAt } = minted.body;
    expect(deploymentId).toBe(0);
    expect(apiUrl).toMatch(/\/data\/0\/cubejs-api\/v1$/);
    const lifetime = Date.parse(expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan(3_500_000);
    expect(lifetime).toBeLessThanOrEqual(3_600_000);

    const byBoard = await load(home, token, {
      measures: ['dashboard_views.count', 'dashboard_views.viewers'],
      dimensions: ['dashboards.title'],
      order: { 'dashboard_views.count': 'desc' },
    });
    expect(byBoard).toEqual([
      { 'dashboards.title': 'Often viewed', 'dashboard_views.count': '4', 'dashboard_views.viewers': '2' },
      { 'dashboards.title': 'Viewed once', 'dashboard_views.count': '1', 'dashboard_views.viewers': '1' },
    ]);

    const unused = await load(home, token, {
      dimensions: ['dashboards.title'],
      segments: ['dashboards.unused'],
      order: { 'dashboards.title': 'asc' },
    });
    const unusedTitles = unused.map((r) => r['dashboards.title']);
    expect(unusedTitles).toContain('Never viewed');
    expect(unusedTitles).not.toContain('Often viewed');
    expect(unusedTitles).not.toContain('Foreign board');

    const [stats] = await load(home, token, {
      measures: [
        'queries.count',
        'queries.avg_duration_ms',
        'queries.p95_duration_ms',
        'queries.max_duration_ms',
        'queries.users',
      ],
    });
    expect(stats['queries.count']).toBe('6');
    expect(Number(stats['queries.avg_duration_ms'])).toBeCloseTo((100 + 200 + 300 + 400 + 5000 + 50) / 6, 3);
    // PostgreSQL's percentile_cont over 50, 100, 200, 300, 400, 5000: 400 + 0.75 * 4600.
    expect(Number(stats['queries.p95_duration_ms'])).toBeCloseTo(3850, 3);
    expect(stats['queries.max_duration_ms']).toBe('5000');
    expect(stats['queries.users']).toBe('2');

    const perUser = await load(home, token, {
      measures: ['queries.count'],
      dimensions: ['queries.user_email'],
      order: { 'queries.count': 'desc' },
    });
    expect(perUser.map((r) => r['queries.count'])).toEqual(['5', '1']);
    expect(perUser[1]['queries.user_email']).toBe(developer.user.email);

    const daily = await load(home, token, {
      measures: ['activity.active_users', 'activity.count'],
      timeDimensions: [{ dimension: 'activity.at', granularity: 'day' }],
    });
    // Everything above happened today: the three users who viewed or ran something, 5 + 6 events.
    expect(daily).toHaveLength(1);
    expect(daily[0]['activity.active_users']).toBe('3');
    expect(daily[0]['activity.count']).toBe('11');
  });

  it("never shows another account's usage, and its token reads only its own", async () => {
    const away1 = await mint(away, awayKey);
    expect(away1.status).toBe(200);
    const views = await load(away, away1.body.token, {
      measures: ['dashboard_views.count'],
      dimensions: ['dashboards.title'],
    });
    expect(views).toEqual([{ 'dashboards.title': 'Foreign board', 'dashboard_views.count': '7' }]);
    const [q] = await load(away, away1.body.token, {
      measures: ['queries.count', 'queries.max_duration_ms'],
    });
    expect(q).toEqual({ 'queries.count': '1', 'queries.max_duration_ms': '99999' });

    // Another account's token on this account's host: signed with another secret, refused.
    const crossed = await send(
      home,
      'POST',
      '/data/0/cubejs-api/v1/load',
      { authorization: away1.body.token },
      {
        query: { measures: ['queries.count'] },
      },
    );
    expect(crossed.status).toBe(403);
    // A deployment's own data-API token does not open the usage model either.
    const own = await api(
      home,
      server.adminKey,
      'POST',
      `/api/v1/deployments/${server.demoDeploymentId}/token`,
      {},
    );
    const denied = await send(
      home,
      'POST',
      '/data/0/cubejs-api/v1/load',
      { authorization: own.body.serviceApiToken },
      {
        query: { measures: ['queries.count'] },
      },
    );
    expect(denied.status).toBe(403);
    // ...and the usage token opens no other deployment.
    const home1 = await mint(home, server.adminKey);
    const elsewhere = await send(
      home,
      'POST',
      `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      { authorization: home1.body.token },
      { query: { measures: ['orders.count'] } },
    );
    expect(elsewhere.status).toBe(403);
  });

  it('is refused to anyone but an admin, and to no credential', async () => {
    for (const key of [viewer.key, developer.key]) {
      const res = await mint(home, key);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ status: 403 });
      expect(JSON.stringify(res.body)).not.toContain('eyJ');
    }
    expect((await send(home, 'POST', '/api/v1/usage-analytics/token', {})).status).toBe(401);
    expect((await mint(home, server.adminKey)).status).toBe(200);
    expect((await send(home, 'POST', '/data/0/cubejs-api/v1/load', {}, { query: {} })).status).toBe(403);
  });

  it('answers a bad usage query 400 naming the member, and the usage model in /meta', async () => {
    const { token } = (await mint(home, server.adminKey)).body;
    const bad = await send(
      home,
      'POST',
      '/data/0/cubejs-api/v1/load',
      { authorization: token },
      {
        query: { measures: ['queries.no_such_measure'] },
      },
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('queries.no_such_measure');
    const meta = await send(home, 'GET', '/data/0/cubejs-api/v1/meta', { authorization: token });
    expect(meta.status).toBe(200);
    expect(meta.body.cubes.map((c: { name: string }) => c.name).sort()).toEqual([
      'activity',
      'dashboard_views',
      'dashboards',
      'data_queries',
      'queries',
    ]);
  });

  it('records an open only when the dashboard was opened, behind the response', async () => {
    const count = async () =>
      Number(
        (
          await server.store.db
            .selectFrom('dashboard_views')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const refused = await api(home, awayKey, 'GET', `/api/v1/embed/dashboard/${boards.once}`);
    expect(refused.status).toBe(401);
    const missing = await api(home, server.adminKey, 'GET', '/api/v1/embed/dashboard/no-such-board');
    expect(missing.status).toBe(404);
    await server.services.dashboardViews.settled();
    expect(await count()).toBe(before);
    await open(home, server.adminKey, boards.never);
    await server.services.dashboardViews.settled();
    expect(await count()).toBe(before + 1);
  });
});
