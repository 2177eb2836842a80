import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

describe('API keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const get = (url: string, key = server.adminKey) =>
    server.app.inject({ method: 'GET', url, headers: bearer(key) });

  it('shows the key once, stores only its SHA-256 hash, and authenticates with it', async () => {
    const created = await createKey(server, { name: 'ci' });
    expect(created.key).toMatch(/^tsk_[A-Za-z0-9_-]{43}$/);
    const row = await server.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.key);
    const read = await get(`/api/v1/api-keys/${created.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(created.key);
    expect(read.json()).toMatchObject({
      id: created.id,
      name: 'ci',
      prefix: created.key.slice(0, 12),
      revokedAt: null,
    });
    expect((await get('/api/v1/deployments', created.key)).statusCode).toBe(200);
  });

  it('revokes a key so that it answers 401 at once, and hides revoked keys from the list by default', async () => {
    const created = await createKey(server, { name: 'to revoke' });
    const revoked = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${created.id}`,
      headers: bearer(server.adminKey),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revokedAt).not.toBeNull();
    const denied = await get('/api/v1/deployments', created.key);
    expect(denied.statusCode).toBe(401);
    expect(denied.json().code).toBe('credential_revoked');
    const ids = (await get('/api/v1/api-keys?first=1000')).json().items.map((k: { id: number }) => k.id);
    expect(ids).not.toContain(created.id);
    const all = (await get('/api/v1/api-keys?first=1000&includeRevoked=true'))
      .json()
      .items.map((k: { id: number }) => k.id);
    expect(all).toContain(created.id);
  });

  it('rejects unknown deployments in a scope and past expiry dates, naming the fields', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: bearer(server.adminKey),
      payload: { name: 'bad', deploymentIds: [999999], expiresAt: '2001-01-01T00:00:00Z' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'body/deploymentIds',
      'body/expiresAt',
    ]);
  });

  it('lets a non-admin see and revoke only their own keys', async () => {
    const dev = await userWithKey(server, 'developer');
    const adminKey = await createKey(server, { name: 'admin only' });
    const list = (await get('/api/v1/api-keys', dev.key)).json().items;
    expect(list.map((k: { id: number }) => k.id)).toEqual([dev.keyId]);
    expect((await get(`/api/v1/api-keys/${adminKey.id}`, dev.key)).statusCode).toBe(404);
    const foreign = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${adminKey.id}`,
      headers: bearer(dev.key),
    });
    expect(foreign.statusCode).toBe(404);
    const forOther = await server.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: bearer(dev.key),
      payload: { name: 'x', userId: server.adminUserId },
    });
    expect(forOther.statusCode).toBe(403);
  });

  it('keeps the store consistent under 50 parallel creations and revocations', async () => {
    const seedKeys = await Promise.all(
      Array.from({ length: 25 }, (_, i) => createKey(server, { name: `race seed ${i}` })),
    );
    const requests = [
      ...Array.from({ length: 25 }, (_, i) =>
        server.app.inject({
          method: 'POST',
          url: '/api/v1/api-keys',
          headers: bearer(server.adminKey),
          payload: { name: `race new ${i}` },
        }),
      ),
      ...seedKeys.map((k) =>
        server.app.inject({
          method: 'DELETE',
          url: `/api/v1/api-keys/${k.id}`,
          headers: bearer(server.adminKey),
        }),
      ),
      // Revoking the same key twice at once: both succeed, the first revocation time stays.
      ...seedKeys.slice(0, 5).map((k) =>
        server.app.inject({
          method: 'DELETE',
          url: `/api/v1/api-keys/${k.id}`,
          headers: bearer(server.adminKey),
        }),
      ),
    ];
    const responses = await Promise.all(requests);
    expect(responses.map((r) => r.statusCode)).toEqual(responses.map(() => 200));
    const created = responses.slice(0, 25).map((r) => r.json());
    expect(new Set(created.map((k) => k.id)).size).toBe(25);
    expect(new Set(created.map((k) => k.key)).size).toBe(25);

    const rows = await server.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('name', 'like', 'race %')
      .execute();
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((r) => r.key_hash)).size).toBe(50);
    for (const row of rows) expect(row.revoked_at === null).toBe(row.name.startsWith('race new'));
    const statuses = await Promise.all([
      ...created.map((k) => get('/api/v1/users/me', k.key).then((r) => r.statusCode)),
      ...seedKeys.map((k) => get('/api/v1/users/me', k.key).then((r) => r.statusCode)),
    ]);
    expect(statuses).toEqual([...created.map(() => 200), ...seedKeys.map(() => 401)]);
  });
});
