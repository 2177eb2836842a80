import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  openTestStore,
  signedInUser,
  startReplica,
  startTestServer,
  type TestServer,
  userWithKey,
} from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';
import { seed } from '../../bootstrap/seed.ts';
import { loadConfig } from '../../config/config.ts';
import { SecretBox } from '../../crypto/secrets.ts';

/** Issue 22 item 1: the reference's Users Admin and Users groups, and revocation on every replica. */
describe('users admin: bulk actions, deletion, own settings and profile', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    key = server.adminKey,
  ) => server.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

  it('applies a bulk action per user and reports each failure with its single-user status', async () => {
    const a = await userWithKey(server, 'developer');
    const b = await userWithKey(server, 'viewer');
    const res = await call('POST', '/api/v1/users/bulk', {
      action: 'DEACTIVATE',
      userIds: [a.user.id, b.user.id, a.user.id, server.adminUserId, 999999],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      action: 'DEACTIVATE',
      succeeded: [a.user.id, b.user.id],
      failed: [
        { userId: server.adminUserId, error: { status: 403, message: expect.any(String) } },
        { userId: 999999, error: { status: 404, message: expect.any(String) } },
      ],
    });
    // Their keys stopped working at once.
    expect((await call('GET', '/api/v1/users/me', undefined, a.key)).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/users/me', undefined, b.key)).statusCode).toBe(401);
    // Deactivating again is a no-op success; activating restores the users but not the revoked keys.
    const again = await call('POST', '/api/v1/users/bulk', { action: 'DEACTIVATE', userIds: [a.user.id] });
    expect(again.json()).toMatchObject({ succeeded: [a.user.id], failed: [] });
    const back = await call('POST', '/api/v1/users/bulk', { action: 'ACTIVATE', userIds: [a.user.id] });
    expect(back.json()).toMatchObject({ succeeded: [a.user.id], failed: [] });
    expect((await call('GET', `/api/v1/users/${a.user.id}`)).json().isDeactivated).toBe(false);
    expect((await call('GET', '/api/v1/users/me', undefined, a.key)).statusCode).toBe(401);
    // Deleting: yourself is 400, the rest goes.
    const del = await call('POST', '/api/v1/users/bulk', {
      action: 'DELETE',
      userIds: [server.adminUserId, b.user.id],
    });
    expect(del.json()).toEqual({
      action: 'DELETE',
      succeeded: [b.user.id],
      failed: [{ userId: server.adminUserId, error: { status: 400, message: expect.any(String) } }],
    });
    expect((await call('GET', `/api/v1/users/${b.user.id}`)).statusCode).toBe(404);
    const bad = await call('POST', '/api/v1/users/bulk', { action: 'PURGE', userIds: [] });
    expect(bad.statusCode).toBe(400);
    const fields = bad
      .json()
      .errors.map((e: { field: string }) => e.field)
      .join(' ');
    expect(fields).toMatch(/action/);
  });

  it('refuses to deactivate yourself (403) and to delete yourself (400), changing nothing', async () => {
    const self = await call('PUT', `/api/v1/users/${server.adminUserId}`, { isDeactivated: true });
    expect(self.statusCode).toBe(403);
    expect(self.json().code).toBe('cannot_deactivate_self');
    const gone = await call('DELETE', `/api/v1/users/${server.adminUserId}`);
    expect(gone.statusCode).toBe(400);
    expect((await call('GET', '/api/v1/users/me')).json()).toMatchObject({
      isDeactivated: false,
      role: 'admin',
    });
  });

  it("hands a deleted user's content to the admin who deleted them", async () => {
    const dev = await userWithKey(server, 'developer');
    const wb = await call(
      'POST',
      `/api/v1/deployments/${server.demoDeploymentId}/workbooks`,
      { name: 'Kept after deletion' },
      dev.key,
    );
    expect(wb.statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/users/${dev.user.id}`)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/users/me', undefined, dev.key)).statusCode).toBe(401);
    const row = await server.store.db
      .selectFrom('workbooks')
      .select(['name', 'user_id', 'created_by'])
      .where('id', '=', wb.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      name: 'Kept after deletion',
      user_id: server.adminUserId,
      created_by: server.adminUserId,
    });
    const read = await call(
      'GET',
      `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${wb.json().id}`,
    );
    expect(read.statusCode).toBe(200);
  });

  it("hands a user deprovisioned over SCIM's content to the first admin", async () => {
    const scim = await scimClient(server);
    const created = await scim.user('deprovisioned@example.com');
    const id = Number(created.id);
    await call('PUT', `/api/v1/users/${id}`, { role: 'developer' });
    const key = (await call('POST', '/api/v1/api-keys', { name: 'scim user', userId: id })).json().key;
    const wb = await call(
      'POST',
      `/api/v1/deployments/${server.demoDeploymentId}/workbooks`,
      { name: 'Kept after SCIM' },
      key,
    );
    expect(wb.statusCode).toBe(200);
    expect((await scim.call('DELETE', `/Users/${created.id}`)).status).toBe(204);
    const row = await server.store.db
      .selectFrom('workbooks')
      .select(['user_id', 'created_by'])
      .where('id', '=', wb.json().id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: server.adminUserId, created_by: server.adminUserId });
  });

  it('merges my settings: omitted fields stay, null clears, sheets merges by field', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const patch = (body: object) => call('PATCH', '/api/v1/users/me/settings', body, viewer.key);
    const first = await patch({ theme: 'dark', locale: 'en-GB', sheets: { showAppliedFilters: true } });
    expect(first.statusCode).toBe(200);
    expect(first.json().settings).toEqual({
      theme: 'dark',
      locale: 'en-GB',
      sheets: { showAppliedFilters: true },
    });
    const second = await patch({
      locale: null,
      lastSeenChangelogId: 7,
      sheets: { revealSheetOnOpen: false },
    });
    expect(second.json().settings).toEqual({
      theme: 'dark',
      sheets: { showAppliedFilters: true, revealSheetOnOpen: false },
    });
    expect((await patch({ sheets: null })).json().settings).toEqual({ theme: 'dark' });
    const bad = await patch({ theme: 42 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toMatch(/theme/);
    expect((await call('GET', '/api/v1/users/me', undefined, viewer.key)).json().settings).toEqual({
      theme: 'dark',
    });
  });

  it('lets a user set their own names and email, naming the field it refuses', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const res = await call(
      'PATCH',
      '/api/v1/users/me',
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.l@example.org' },
      viewer.key,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada.l@example.org' });
    const local = await call('PATCH', '/api/v1/users/me', { email: 'admin@localhost' }, viewer.key);
    expect(local.statusCode).toBe(400);
    expect(local.json().errors[0].field).toMatch(/email/);
    const taken = await call('PATCH', '/api/v1/users/me', { email: 'ADA.L@example.org' });
    expect(taken.statusCode).toBe(409);
    expect((await call('GET', '/api/v1/users/me')).json().email).toBe(server.adminEmail);
  });

  it('gives the first admin the address the operator named (TESSERA_ADMIN_EMAIL)', async () => {
    const config = loadConfig({ TESSERA_ADMIN_EMAIL: 'ops@example.com' });
    const store = await openTestStore();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-seed-'));
    try {
      const seeded = await seed(store.db, new SecretBox('test-secret'), {
        dataDir,
        adminApiKey: null,
        adminEmail: config.adminEmail,
        skipDemo: true,
        createAdminKey: false,
      });
      const admin = await store.db
        .selectFrom('users')
        .select(['email', 'first_name', 'last_name'])
        .where('id', '=', seeded.adminUserId)
        .executeTakeFirstOrThrow();
      expect(admin).toEqual({ email: 'ops@example.com', first_name: 'Tessera', last_name: 'Admin' });
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('gives the first admin a given and a family name', async () => {
    expect((await call('GET', '/api/v1/users/me')).json()).toMatchObject({
      firstName: 'Tessera',
      lastName: 'Admin',
    });
  });

  it("stops a deactivated user's key and session at once on a second replica", async () => {
    const replica = await startReplica(server, { listen: true });
    try {
      const dev = await signedInUser(server, 'developer');
      const key = (await userWithKeyFor(dev.user.id)).key;
      const onReplica = (headers: Record<string, string>) =>
        replica.app.inject({ method: 'GET', url: '/api/v1/users/me', headers });
      // Both credentials are cached on the replica before the change.
      expect((await onReplica(bearer(key))).statusCode).toBe(200);
      expect((await onReplica({ cookie: dev.cookie })).statusCode).toBe(200);
      expect((await call('PUT', `/api/v1/users/${dev.user.id}`, { isDeactivated: true })).statusCode).toBe(
        200,
      );
      // Well before the credential cache's 30 s safety net: the store's notification dropped them.
      expect(await statusWithin(() => onReplica(bearer(key)), 401, 10_000)).toBe(401);
      expect(await statusWithin(() => onReplica({ cookie: dev.cookie }), 401, 10_000)).toBe(401);
      // Activating again does not bring back what was revoked.
      await call('PUT', `/api/v1/users/${dev.user.id}`, { isDeactivated: false });
      expect((await onReplica(bearer(key))).statusCode).toBe(401);
      expect((await onReplica({ cookie: dev.cookie })).statusCode).toBe(401);
    } finally {
      await replica.close();
    }
  });

  async function userWithKeyFor(userId: number) {
    const res = await call('POST', '/api/v1/api-keys', { name: 'second', userId });
    expect(res.statusCode).toBe(200);
    return res.json() as { key: string };
  }
});

/** Asks until the answer has `status` or `ms` pass; the last status seen. */
async function statusWithin(ask: () => Promise<{ statusCode: number }>, status: number, ms: number) {
  const until = Date.now() + ms;
  let seen = (await ask()).statusCode;
  while (seen !== status && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await ask()).statusCode;
  }
  return seen;
}
