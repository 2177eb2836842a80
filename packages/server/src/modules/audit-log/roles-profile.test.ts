import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { auditEntries, wholeAuditLog } from './test-support.ts';

/**
 * Issue 22 item 5 for roles and a user's own account: custom roles, their assignments, a user's
 * profile and settings and their password change each leave an entry in the change's
 * transaction; a password never reaches the log, in clear or hashed.
 */
describe('audit log: roles, assignments and a user’s own account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const entries = (query: string) => auditEntries(server, query);
  const send = async (
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    key = server.adminKey,
  ) => {
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.body ? res.json() : undefined;
  };

  it('records custom roles and their assignments with the user’s roles before and after', async () => {
    const role = await send('POST', '/api/v1/roles', { name: 'Auditors', policies: [] });
    await send('PUT', `/api/v1/roles/${role.id}`, { description: 'read the log' });
    const { user } = await userWithKey(server, 'viewer');
    await send('PUT', `/api/v1/roles/${role.id}/users/${user.id}`);
    await send('PUT', `/api/v1/roles/${role.id}/users/${user.id}`); // idempotent: no second entry
    await send('DELETE', `/api/v1/roles/${role.id}/users/${user.id}`);
    await send('DELETE', `/api/v1/roles/${role.id}/users/${user.id}`);
    await send('DELETE', `/api/v1/roles/${role.id}`);

    const roleEntries = await entries(`targetType=role&targetId=${role.id}`);
    expect(
      roleEntries.map((e) => [e.action, e.before?.description ?? null, e.after?.description ?? null]),
    ).toEqual([
      ['role.delete', 'read the log', null],
      ['role.update', null, 'read the log'],
      ['role.create', null, null],
    ]);
    expect(roleEntries[2].after).toMatchObject({ name: 'Auditors', policies: [], builtIn: false });
    const assignments = (await entries(`targetType=user&targetId=${user.id}`)).filter((e) =>
      e.action.endsWith('_role'),
    );
    expect(assignments.map((e) => [e.action, e.before.roles, e.after.roles])).toEqual([
      ['user.unassign_role', ['Auditors'], []],
      ['user.assign_role', [], ['Auditors']],
    ]);
    expect(assignments[0].after.role).toEqual({ id: role.id, name: 'Auditors' });
  });

  it('records a role given to a group and taken back, once each', async () => {
    const role = await send('POST', '/api/v1/roles', { name: 'Group readers', policies: [] });
    const group = await send('POST', '/api/v1/groups', { name: 'Readers of the log' });
    await send('PUT', `/api/v1/roles/${role.id}/groups/${group.id}`);
    await send('PUT', `/api/v1/roles/${role.id}/groups/${group.id}`); // idempotent: no second entry
    await send('DELETE', `/api/v1/roles/${role.id}/groups/${group.id}`);
    await send('DELETE', `/api/v1/roles/${role.id}/groups/${group.id}`);
    const recorded = (await entries(`targetType=group&targetId=${group.id}`)).filter((e) =>
      e.action.endsWith('_role'),
    );
    expect(recorded.map((e) => [e.action, e.after.role])).toEqual([
      ['group.unassign_role', { id: role.id, name: 'Group readers' }],
      ['group.assign_role', { id: role.id, name: 'Group readers' }],
    ]);
  });

  it('records a user’s own profile, settings and password changes, never the password', async () => {
    const { user, key } = await userWithKey(server, 'viewer');
    const password = 'first password never logged';
    await send('PUT', `/api/v1/users/${user.id}/password`, { password });
    await send('PATCH', '/api/v1/users/me', { firstName: 'Ada', lastName: 'Lovelace' }, key);
    await send('PATCH', '/api/v1/users/me/settings', { locale: 'de-DE', theme: 'dark' }, key);
    const newPassword = 'second password never logged';
    await send('PUT', '/api/v1/session/password', { currentPassword: password, newPassword }, key);

    const own = await entries(`targetType=user&targetId=${user.id}&actorUserId=${user.id}`);
    expect(own.map((e) => e.action)).toEqual([
      'user.change_password',
      'user.update_settings',
      'user.update_profile',
    ]);
    const [changed, settings, profile] = own;
    expect(profile.before).toMatchObject({ firstName: user.firstName, email: user.email });
    expect(profile.after).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: user.email });
    expect(settings.before.settings.locale).toBeUndefined();
    expect(settings.after.settings).toMatchObject({ locale: 'de-DE', theme: 'dark' });
    expect(changed).toMatchObject({ before: null, after: null, actor: { userId: user.id } });

    const hashes = await server.store.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    const log = await wholeAuditLog(server);
    for (const secret of [password, newPassword, hashes.password_hash as string, key])
      expect(log).not.toContain(secret);
  });

  it('leaves no entry of a refused password change', async () => {
    const { key } = await userWithKey(server, 'viewer');
    const before = (await entries('action=user.change_password&first=1000')).length;
    const res = await server.app.inject({
      method: 'PUT',
      url: '/api/v1/session/password',
      headers: bearer(key),
      payload: { currentPassword: 'not the password at all', newPassword: 'a brand new password' },
    });
    expect(res.statusCode).toBe(400);
    expect((await entries('action=user.change_password&first=1000')).length).toBe(before);
  });
});
