import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

describe('users, roles and groups', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    key = server.adminKey,
  ) => server.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

  it('creates users with roles and refuses duplicate emails case-insensitively', async () => {
    const res = await call('POST', '/api/v1/users', {
      email: 'Ada@Example.com',
      username: 'ada',
      role: 'developer',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      email: 'Ada@Example.com',
      role: 'developer',
      isAdmin: false,
      isDeactivated: false,
    });
    const dup = await call('POST', '/api/v1/users', { email: 'ada@example.com', username: 'ada2' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('user_exists');
    const admin = await call('POST', '/api/v1/users', {
      email: 'boss@example.com',
      username: 'boss',
      isAdmin: true,
    });
    expect(admin.json()).toMatchObject({ role: 'admin', isAdmin: true });
  });

  it('lets only admins manage users, and tells a caller who they are', async () => {
    const dev = await userWithKey(server, 'developer');
    expect((await call('GET', '/api/v1/users', undefined, dev.key)).statusCode).toBe(403);
    const me = await call('GET', '/api/v1/users/me', undefined, dev.key);
    expect(me.json()).toMatchObject({ id: dev.user.id, role: 'developer' });
  });

  it('revokes every credential of a deactivated user, and keeps one active admin', async () => {
    const dev = await userWithKey(server, 'developer');
    expect((await call('GET', '/api/v1/deployments', undefined, dev.key)).statusCode).toBe(200);
    const res = await call('PUT', `/api/v1/users/${dev.user.id}`, { isDeactivated: true });
    expect(res.json().isDeactivated).toBe(true);
    expect((await call('GET', '/api/v1/deployments', undefined, dev.key)).statusCode).toBe(401);
    const keys = await server.store.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('user_id', '=', dev.user.id)
      .execute();
    expect(keys.every((k) => k.revoked_at !== null)).toBe(true);

    const solo = await startTestServer();
    try {
      const last = await solo.app.inject({
        method: 'PUT',
        url: `/api/v1/users/${solo.adminUserId}`,
        headers: bearer(solo.adminKey),
        payload: { role: 'viewer' },
      });
      expect(last.statusCode).toBe(403);
      expect(last.json().code).toBe('last_admin');
      const still = await solo.app.inject({ url: '/api/v1/users/me', headers: bearer(solo.adminKey) });
      expect(still.json().role).toBe('admin');
    } finally {
      await solo.close();
    }
  });

  it('manages global groups and their members', async () => {
    const group = (await call('POST', '/api/v1/groups', { name: 'Finance', description: 'money' })).json();
    expect(group).toMatchObject({ name: 'Finance', userCount: 0 });
    expect((await call('POST', '/api/v1/groups', { name: 'finance' })).statusCode).toBe(409);
    const dev = await userWithKey(server, 'developer');
    await call('POST', `/api/v1/groups/${group.id}/members`, { userId: dev.user.id });
    await call('POST', `/api/v1/groups/${group.id}/members`, { userId: dev.user.id });
    expect((await call('GET', `/api/v1/groups/${group.id}/members`)).json().items).toEqual([
      { userId: dev.user.id },
    ]);
    expect((await call('GET', `/api/v1/groups/${group.id}`)).json().userCount).toBe(1);
    expect(await server.services.repositories.groups.namesOfUser(dev.user.id)).toEqual(['Finance']);
    expect((await call('POST', `/api/v1/groups/${group.id}/members`, { userId: 999999 })).statusCode).toBe(
      400,
    );
    expect((await call('DELETE', `/api/v1/groups/${group.id}/members/${dev.user.id}`)).json().items).toEqual(
      [],
    );
    expect((await call('DELETE', `/api/v1/groups/${group.id}/members/${dev.user.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/groups/${group.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/groups/${group.id}`)).statusCode).toBe(404);
  });
});
