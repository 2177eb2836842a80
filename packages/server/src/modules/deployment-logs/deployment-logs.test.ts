import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type Replica,
  startReplica,
  startTestServer,
  type TestServer,
  userWithKey,
} from '../../../test/harness.ts';
import { cubesql } from '../data/cubesql/test-support.ts';
import { tokenFor } from '../data/test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** A filter value and a SQL literal that stand for secrets: no log line may ever hold them. */
const secretFilterValue = 'hunter2-filter-secret';
const secretSqlLiteral = 'hunter2-sql-secret';

interface Line {
  pod: string;
  date: string;
  message: string;
  source: 'production' | 'dev';
  kind: 'query' | 'build';
  level: 'info' | 'error';
  branchName: string;
  details: Record<string, unknown>;
}

/** Issue 25 item 1: `GET /api/v1/deployments/{id}/logs`, the deployment's recent query and build logs. */
describe('deployment logs', () => {
  let server: TestServer;
  let replica: Replica;
  let token: string;
  let developerKey: string;
  let logsUrl: string;
  const load = (app: TestServer['app'], query: unknown, auth = token) =>
    app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: auth },
      payload: { query },
    });
  const logs = async (query = '', app: TestServer['app'] = server.app, key = server.adminKey) => {
    const res = await app.inject({ url: `${logsUrl}${query}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { items: Line[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  };

  beforeAll(async () => {
    server = await startTestServer();
    replica = await startReplica(server);
    token = await tokenFor(server, server.demoDeploymentId);
    developerKey = (await userWithKey(server, 'developer')).key;
    logsUrl = `/api/v1/deployments/${server.demoDeploymentId}/logs`;
  });
  afterAll(async () => {
    await replica?.close();
    await server?.close();
  });

  it('logs a query with its members, rows and duration, never a filter value or SQL literal', async () => {
    const res = await load(server.app, {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      filters: [{ member: 'orders.status', operator: 'notEquals', values: [secretFilterValue] }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().data.length;
    const sqlAnswer = await cubesql(
      server,
      server.demoDeploymentId,
      token,
      `SELECT status, MEASURE(count) FROM orders WHERE status <> '${secretSqlLiteral}' GROUP BY 1`,
    );
    expect(sqlAnswer.status).toBe(200);

    const { items } = await logs('?source=production', server.app, developerKey);
    const query = items.find((l) => l.kind === 'query' && l.details.queryKind === 'load');
    expect(query).toMatchObject({
      source: 'production',
      level: 'info',
      branchName: 'main',
      details: {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        filterMembers: ['orders.status'],
        rows,
      },
    });
    expect(query?.message).toMatch(new RegExp(`answered ${rows} rows? in \\d+ ms`));
    expect(items.find((l) => l.details.queryKind === 'sql')).toMatchObject({ level: 'info' });
    // The model was compiled for the first query: a build line says so.
    expect(items.some((l) => l.kind === 'build' && l.branchName === 'main')).toBe(true);
    const everything = JSON.stringify((await logs('?first=1000')).items);
    expect(everything).not.toContain(secretFilterValue);
    expect(everything).not.toContain(secretSqlLiteral);
    const stored = await server.store.db.selectFrom('deployment_logs').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain('hunter2');
  });

  it('logs a refused query with its error code, and an engine error without the engine message', async () => {
    const unknown = await load(server.app, { measures: ['orders.nope'] });
    expect(unknown.statusCode).toBe(400);
    const { items } = await logs('?first=5');
    expect(items[0]).toMatchObject({
      kind: 'query',
      level: 'error',
      details: { errorCode: 'invalid_query' },
    });
    // An engine refusing a literal quotes it back: the caller sees it, the log does not.
    const bad = await cubesql(
      server,
      server.demoDeploymentId,
      token,
      `SELECT MEASURE(count) FROM orders WHERE CAST('${secretSqlLiteral}' AS INTEGER) = 1`,
    );
    expect(bad.status).not.toBe(200);
    expect(JSON.stringify((await logs('?first=1000')).items)).not.toContain(secretSqlLiteral);
  });

  it('tells production from development branches with source', async () => {
    const dm = `/build/api/v1/deployments/${server.demoDeploymentId}`;
    const branch = await server.app.inject({
      method: 'POST',
      url: `${dm}/branches`,
      headers: bearer(server.adminKey),
      payload: { name: 'logs-dev' },
    });
    expect(branch.statusCode, branch.body).toBe(200);
    const mint = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/token`,
      headers: bearer(server.adminKey),
      payload: { branch: 'logs-dev' },
    });
    const devToken = mint.json().serviceApiToken as string;
    expect((await load(server.app, { measures: ['customers.count'] }, devToken)).statusCode).toBe(200);

    const dev = (await logs('?source=dev')).items;
    expect(dev.length).toBeGreaterThan(0);
    expect(dev.every((l) => l.source === 'dev' && l.branchName === 'logs-dev')).toBe(true);
    expect(
      dev.some((l) => l.kind === 'query' && (l.details.measures as string[])[0] === 'customers.count'),
    ).toBe(true);
    const production = (await logs('?source=production')).items;
    expect(production.every((l) => l.source === 'production' && l.branchName === 'main')).toBe(true);
    expect(production.some((l) => l.details.measures?.toString() === 'customers.count')).toBe(false);
  });

  it("reads another replica's lines, each naming the replica that wrote it", async () => {
    const res = await load(replica.app, { measures: ['products.count'] });
    expect(res.statusCode, res.body).toBe(200);
    // The replica writes its buffered lines within a second; this replica reads them from the store.
    let found: Line | undefined;
    for (let i = 0; i < 50 && !found; i++) {
      found = (await logs('?first=50')).items.find(
        (l) => l.kind === 'query' && (l.details.measures as string[] | undefined)?.[0] === 'products.count',
      );
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toBeDefined();
    const ownPods = new Set((await logs('?source=production&first=1000')).items.map((l) => l.pod));
    expect(ownPods.size).toBeGreaterThanOrEqual(2);
    const fromReplica = await logs(`?pod=${encodeURIComponent(found!.pod)}`);
    expect(fromReplica.items.every((l) => l.pod === found!.pod)).toBe(true);
  });

  it('keeps the newest 1000 lines of a deployment, paged newest first', async () => {
    for (let i = 0; i < 1010; i++)
      server.services.deploymentLogs.write({
        deploymentId: server.demoDeploymentId,
        branch: 'main',
        kind: 'build',
        level: 'info',
        message: `line ${i}`,
        details: { i },
      });
    const first = await logs('?first=600');
    expect(first.items[0].message).toBe('line 1009');
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await logs(`?first=600&after=${first.pageInfo.endCursor}`);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const all = [...first.items, ...second.items];
    expect(all).toHaveLength(1000);
    expect(all.at(-1)?.message).toBe('line 10');
    const dates = all.map((l) => l.date);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it("keeps other deployments' lines when a deployment is deleted before its lines are written", async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'short-lived' },
    });
    const goneId = created.json().id as number;
    const line = (deploymentId: number, message: string) =>
      server.services.deploymentLogs.write({
        deploymentId,
        branch: 'main',
        kind: 'build',
        level: 'info',
        message,
        details: {},
      });
    line(goneId, 'about the deleted one');
    line(server.demoDeploymentId, 'about the demo');
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/deployments/${goneId}`,
      headers: bearer(server.adminKey),
    });
    expect(deleted.statusCode).toBe(200);
    expect((await logs('?first=1')).items[0].message).toBe('about the demo');
  });

  it('refuses bad input naming the field, a viewer, and a deployment it does not have', async () => {
    const bad = await server.app.inject({
      url: `${logsUrl}?source=staging`,
      headers: bearer(server.adminKey),
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('querystring/source');
    const cursor = await server.app.inject({
      url: `${logsUrl}?after=nonsense`,
      headers: bearer(server.adminKey),
    });
    expect(cursor.statusCode).toBe(400);
    expect(JSON.stringify(cursor.json())).toContain('querystring/after');
    const viewer = await userWithKey(server, 'viewer');
    expect((await server.app.inject({ url: logsUrl, headers: bearer(viewer.key) })).statusCode).toBe(403);
    const missing = await server.app.inject({
      url: '/api/v1/deployments/999999/logs',
      headers: bearer(server.adminKey),
    });
    expect(missing.statusCode).toBe(404);
  });
});
