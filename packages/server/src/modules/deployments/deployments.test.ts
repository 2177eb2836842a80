import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

describe('deployments and environments', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    key = server.adminKey,
  ) =>
    server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('lists the demo deployment created at first start', async () => {
    const res = await call('GET', '/api/v1/deployments');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ id: server.demoDeploymentId, name: 'Demo', creationStep: 'demo' });
    expect(body.items[0].deploymentUrl).toMatch(new RegExp(`/data/${server.demoDeploymentId}/cubejs-api$`));
    expect(body.data).toEqual(body.items);
    expect(body.count).toBe(1);
    expect(body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('creates, reads, updates and deletes a deployment, keeping the password write-only', async () => {
    const created = await call('POST', '/api/v1/deployments', {
      name: 'Warehouse',
      dataSource: {
        type: 'postgres',
        host: 'db.internal',
        database: 'analytics',
        user: 'bi',
        password: 's3cret',
      },
    });
    expect(created.statusCode).toBe(200);
    const dep = created.json();
    expect(dep.dataSource).toEqual({
      type: 'postgres',
      host: 'db.internal',
      database: 'analytics',
      user: 'bi',
      hasPassword: true,
    });
    expect(created.body).not.toContain('s3cret');
    const stored = await server.store.db
      .selectFrom('deployments')
      .select(['data_source', 'api_secret_enc'])
      .where('id', '=', dep.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain('s3cret');

    const renamed = await call('PUT', `/api/v1/deployments/${dep.id}`, {
      name: 'Warehouse EU',
      dataSource: { type: 'postgres', host: 'db2', database: 'analytics' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'Warehouse EU',
      dataSource: { host: 'db2', hasPassword: true },
    });

    expect((await call('GET', `/api/v1/deployments/${dep.id}`)).json().name).toBe('Warehouse EU');
    const envs = await call('GET', `/api/v1/deployments/${dep.id}/environments`);
    expect(envs.statusCode).toBe(200);
    expect(envs.json().items).toEqual([expect.objectContaining({ type: 'production', branch: 'main' })]);

    expect((await call('DELETE', `/api/v1/deployments/${dep.id}`)).json()).toEqual({ success: true });
    expect((await call('GET', `/api/v1/deployments/${dep.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/deployments/${dep.id}`)).statusCode).toBe(404);
  });

  it('rejects a PostgreSQL data source without host and database, naming both fields', async () => {
    const res = await call('POST', '/api/v1/deployments', { name: 'x', dataSource: { type: 'postgres' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'body/dataSource/host',
      'body/dataSource/database',
    ]);
  });

  it('pages with first/after and with offset/limit, and rejects bad cursors and ranges', async () => {
    for (let i = 0; i < 5; i++)
      expect((await call('POST', '/api/v1/deployments', { name: `page ${i}` })).statusCode).toBe(200);
    const seen: number[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await call('GET', `/api/v1/deployments?first=2${after ? `&after=${after}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...body.items.map((d: { id: number }) => d.id));
      if (!body.pageInfo.hasNextPage) break;
      after = body.pageInfo.endCursor;
    }
    const all = (await call('GET', '/api/v1/deployments?first=100'))
      .json()
      .items.map((d: { id: number }) => d.id);
    expect(seen).toEqual(all);
    expect(all.length).toBe(6);

    const offset = (await call('GET', '/api/v1/deployments?offset=2&limit=2')).json();
    expect(offset.items.map((d: { id: number }) => d.id)).toEqual(all.slice(2, 4));
    expect(offset.pagination).toEqual({ total: 6, offset: 2, limit: 2 });

    for (const query of [
      'after=not-a-cursor!',
      'after=eyJ2Ijo5fQ',
      'first=0',
      'first=100000',
      'offset=-1',
      'first=abc',
      'first=2&offset=1',
    ]) {
      const res = await call('GET', `/api/v1/deployments?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });

  it('shows a scoped key only its deployments and refuses the others with 403', async () => {
    const other = (await call('POST', '/api/v1/deployments', { name: 'other' })).json();
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [server.demoDeploymentId] });
    const list = (await call('GET', '/api/v1/deployments', undefined, scoped.key)).json();
    expect(list.items.map((d: { id: number }) => d.id)).toEqual([server.demoDeploymentId]);
    expect(list.count).toBe(1);
    expect((await call('GET', `/api/v1/deployments/${other.id}`, undefined, scoped.key)).statusCode).toBe(
      403,
    );
    expect(
      (await call('GET', `/api/v1/deployments/${server.demoDeploymentId}`, undefined, scoped.key)).statusCode,
    ).toBe(200);
  });

  it('lets viewers read but not change deployments', async () => {
    const viewer = await userWithKey(server, 'viewer');
    expect((await call('GET', '/api/v1/deployments', undefined, viewer.key)).statusCode).toBe(200);
    const denied = await call('POST', '/api/v1/deployments', { name: 'nope' }, viewer.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('insufficient_role');
  });
});
