import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';

/**
 * Issue 22 item 5: every management change leaves one audit entry (who, what, when, before and
 * after, request id), written in the change's own transaction, with no secret in it; admins list,
 * filter and export it.
 */
/** An entry as the list answers it; `before`/`after` are read as the test expects them. */
// biome-ignore lint/suspicious/noExplicitAny: the shape of before/after differs per action
type Entry = Record<string, any>;

describe('audit log', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  async function call(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
    const res = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { ...bearer(server.adminKey), ...headers },
      payload: payload as object,
    });
    return { status: res.statusCode, body: res.body, json: () => res.json(), headers: res.headers };
  }

  const entries = async (query: string) => {
    const res = await call('GET', `/api/v1/audit-log?${query}`);
    expect(res.status, res.body).toBe(200);
    return res.json().items as Entry[];
  };

  it('records who changed what, when, before and after, with the request id', async () => {
    const started = new Date(Date.now() - 1000).toISOString();
    const created = await call(
      'POST',
      '/api/v1/groups',
      { name: 'auditors' },
      { 'x-request-id': 'req-create-1' },
    );
    expect(created.status).toBe(200);
    const group = created.json();
    const renamed = await call(
      'PUT',
      `/api/v1/groups/${group.id}`,
      { name: 'Auditors', description: 'read the log' },
      { 'x-request-id': 'req-rename-1' },
    );
    expect(renamed.status).toBe(200);

    const items = await entries(`targetType=group&targetId=${group.id}`);
    expect(items.map((e) => e.action)).toEqual(['group.update', 'group.create']);
    const [update, create] = items;
    expect(update).toEqual({
      id: expect.any(Number),
      occurredAt: expect.any(String),
      actor: {
        userId: server.adminUserId,
        email: server.adminEmail,
        credentialKind: 'api',
        credentialId: expect.any(Number),
      },
      requestId: 'req-rename-1',
      action: 'group.update',
      targetType: 'group',
      targetId: String(group.id),
      before: { id: group.id, name: 'auditors', description: null, userCount: 0 },
      after: { id: group.id, name: 'Auditors', description: 'read the log', userCount: 0 },
    });
    expect(create).toMatchObject({ requestId: 'req-create-1', before: null, after: { name: 'auditors' } });
    expect(new Date(update.occurredAt).getTime()).toBeGreaterThanOrEqual(new Date(started).getTime());
    expect(update.occurredAt >= create.occurredAt).toBe(true);

    // Filters: by action (exact or prefix), by request, by actor, by time.
    expect((await entries('requestId=req-create-1')).map((e) => e.action)).toEqual(['group.create']);
    expect((await entries('action=group.*')).length).toBeGreaterThanOrEqual(2);
    expect(
      (await entries(`actorUserId=${server.adminUserId}&action=group.update`)).length,
    ).toBeGreaterThanOrEqual(1);
    expect(await entries(`requestId=req-create-1&to=${encodeURIComponent(started)}`)).toEqual([]);
    const bad = await call(
      'GET',
      `/api/v1/audit-log?from=${encodeURIComponent(new Date().toISOString())}&to=${encodeURIComponent(started)}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('querystring/to');
  });

  it('pages newest first and exports the same entries as JSON lines', async () => {
    for (const name of ['page-a', 'page-b', 'page-c'])
      expect((await call('POST', '/api/v1/groups', { name })).status).toBe(200);
    const first = await call('GET', '/api/v1/audit-log?action=group.create&first=2');
    const page1 = first.json();
    expect(page1.items.map((e: { after: { name: string } }) => e.after.name)).toEqual(['page-c', 'page-b']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = (
      await call('GET', `/api/v1/audit-log?action=group.create&first=2&after=${page1.pageInfo.endCursor}`)
    ).json();
    expect(page2.items[0].after.name).toBe('page-a');

    const exported = await call('GET', '/api/v1/audit-log/export?action=group.create');
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toContain('application/jsonl');
    expect(exported.headers['content-disposition']).toMatch(
      /attachment; filename="audit-log-\d{4}-\d\d-\d\d\.jsonl"/,
    );
    const lines = exported.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const all = (await call('GET', '/api/v1/audit-log?action=group.create&first=1000')).json().items;
    expect(lines).toEqual(all);
  });

  it('records the changes of users, API keys, settings, folders, workbooks and permissions', async () => {
    const email = 'audited@example.com';
    const user = (await call('POST', '/api/v1/users', { email, username: email, role: 'viewer' })).json();
    expect((await call('PUT', `/api/v1/users/${user.id}`, { role: 'developer' })).status).toBe(200);
    const key = await createKey(server, { name: 'to revoke' });
    expect((await call('DELETE', `/api/v1/api-keys/${key.id}`)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/users/${user.id}`)).status).toBe(200);
    // Account settings: each flag turned over from what it is, and recorded as it was and became.
    const settings = [
      ['/api/v1/tenant/settings', 'tenant_settings.update', 'maintenanceWindowEnabled'],
      ['/api/v1/embed/settings', 'embed_settings.update', 'showDashboardChat'],
      ['/api/v1/app-config', 'app_config.update', 'applyThemeGlobally'],
    ] as const;
    const was: boolean[] = [];
    for (const [url, , field] of settings) {
      const current = (await call('GET', url)).json()[field] as boolean;
      was.push(current);
      expect((await call('PUT', url, { [field]: !current })).status).toBe(200);
    }
    const folders = `/api/v1/deployments/${server.demoDeploymentId}/folders`;
    const folder = (await call('POST', folders, { name: 'Audited' })).json();
    expect((await call('PUT', `${folders}/${folder.id}`, { name: 'Audited twice' })).status).toBe(200);
    expect((await call('DELETE', `${folders}/${folder.id}`)).status).toBe(204);

    const userEntries = await entries(`targetType=user&targetId=${user.id}`);
    expect(userEntries.map((e) => e.action)).toEqual(['user.delete', 'user.update', 'user.create']);
    expect(userEntries[1].before.role).toBe('viewer');
    expect(userEntries[1].after.role).toBe('developer');
    expect(userEntries[0]).toMatchObject({ before: { email }, after: null });
    const revoked = (await entries(`targetType=api_key&targetId=${key.id}`)).map((e) => e.action);
    expect(revoked).toEqual(['api_key.revoke', 'api_key.create']);
    for (const [i, [, action, field]] of settings.entries()) {
      const [entry] = await entries(`action=${action}`);
      expect(entry.before[field]).toBe(was[i]);
      expect(entry.after[field]).toBe(!was[i]);
    }
    const workbook = (
      await call('POST', `/api/v1/deployments/${server.demoDeploymentId}/workbooks`, { name: 'Shared' })
    ).json();
    const permissions = `/api/v1/deployments/${server.demoDeploymentId}/permissions`;
    const grant = { type: 'WORKBOOK', id: workbook.id, userId: server.adminUserId, level: 'view' };
    const granted = (await call('PUT', permissions, grant)).json();
    expect((await call('DELETE', `${permissions}/${granted.id}`)).status).toBe(200);
    const grants = await entries(`targetType=permission&targetId=${granted.id}`);
    expect(grants.map((e) => e.action)).toEqual(['permission.revoke', 'permission.grant']);
    expect(grants[1].after).toMatchObject({ deploymentId: server.demoDeploymentId, level: 'view' });
    const workbookUrl = `/api/v1/deployments/${server.demoDeploymentId}/workbooks/${workbook.id}`;
    expect((await call('PUT', workbookUrl, { name: 'Shared widely' })).status).toBe(200);
    expect((await call('DELETE', workbookUrl)).status).toBe(200);
    const workbookEntries = await entries(`targetType=workbook&targetId=${workbook.id}`);
    expect(workbookEntries.map((e) => [e.action, e.before?.name ?? null, e.after?.name ?? null])).toEqual([
      ['workbook.delete', 'Shared widely', null],
      ['workbook.update', 'Shared', 'Shared widely'],
      ['workbook.create', null, 'Shared'],
    ]);

    const folderEntries = await entries(`targetType=folder&targetId=${folder.id}`);
    expect(folderEntries.map((e) => [e.action, e.before?.name ?? null, e.after?.name ?? null])).toEqual([
      ['folder.delete', 'Audited twice', null],
      ['folder.update', 'Audited', 'Audited twice'],
      ['folder.create', null, 'Audited'],
    ]);
  });

  it('is for admins only', async () => {
    const { key } = await userWithKey(server, 'developer');
    for (const url of ['/api/v1/audit-log', '/api/v1/audit-log/export']) {
      const res = await server.app.inject({ url, headers: bearer(key) });
      expect(res.statusCode).toBe(403);
    }
  });

  it('commits or rolls back with its change', async () => {
    const db = server.store.db;
    const countOf = async (action: string) =>
      (await db.selectFrom('audit_log').select('id').where('action', '=', action).execute()).length;

    // The entry cannot be written: the change it records is not made either.
    await sql`ALTER TABLE audit_log ADD CONSTRAINT refuse_group_delete CHECK (action <> 'group.delete')`.execute(
      db,
    );
    const group = (await call('POST', '/api/v1/groups', { name: 'kept' })).json();
    try {
      const refused = await call('DELETE', `/api/v1/groups/${group.id}`);
      expect(refused.status).toBe(500);
      expect(refused.body).not.toContain('refuse_group_delete');
    } finally {
      await sql`ALTER TABLE audit_log DROP CONSTRAINT refuse_group_delete`.execute(db);
    }
    expect((await call('GET', `/api/v1/groups/${group.id}`)).status).toBe(200);
    expect(await countOf('group.delete')).toBe(0);

    // The change fails at commit, after its entry was written: the entry is not kept either.
    await sql`
      CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name = 'doomed' THEN RAISE EXCEPTION 'doomed groups never commit'; END IF;
        RETURN NEW;
      END $$`.execute(db);
    await sql`
      CREATE CONSTRAINT TRIGGER refuse_doomed AFTER INSERT OR UPDATE ON groups
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_doomed()`.execute(db);
    const updatesBefore = await countOf('group.update');
    try {
      const doomed = await call('PUT', `/api/v1/groups/${group.id}`, { name: 'doomed' });
      expect(doomed.status).toBe(500);
    } finally {
      await sql`DROP TRIGGER refuse_doomed ON groups`.execute(db);
      await sql`DROP FUNCTION refuse_doomed()`.execute(db);
    }
    expect((await call('GET', `/api/v1/groups/${group.id}`)).json().name).toBe('kept');
    expect(await countOf('group.update')).toBe(updatesBefore);
  });

  it('never holds a secret: API keys, passwords, data-source passwords, env variable values', async () => {
    const key = await createKey(server, { name: 'secret holder' });
    const password = 'correct horse battery staple 42';
    const { user } = await userWithKey(server, 'viewer');
    expect((await call('PUT', `/api/v1/users/${user.id}/password`, { password })).status).toBe(204);
    const dbPassword = 'warehouse-password-never-logged';
    const deployment = await call('POST', '/api/v1/deployments', {
      name: 'with a warehouse',
      dataSource: {
        type: 'postgres',
        host: '127.0.0.1',
        port: 5432,
        database: 'shop',
        user: 'reader',
        password: dbPassword,
      },
    });
    expect(deployment.status, deployment.body).toBe(200);
    const deploymentId = deployment.json().id;
    const otherPassword = 'another-warehouse-password';
    expect(
      (
        await call('PUT', `/api/v1/deployments/${deploymentId}`, {
          dataSource: {
            type: 'postgres',
            host: '127.0.0.1',
            port: 5432,
            database: 'shop',
            user: 'reader',
            password: otherPassword,
          },
        })
      ).status,
    ).toBe(200);
    const variable = 'env-value-never-logged';
    expect(
      (
        await call('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
          env_variables: [{ name: 'DB_PASS', value: variable }],
        })
      ).status,
    ).toBe(200);

    expect((await call('POST', `/api/v1/deployments/${deploymentId}/api-secret/rotate`)).status).toBe(200);
    const scim = await createKey(server, { name: 'idp', kind: 'scim' });
    const scimPassword = 'scim-password-never-logged';
    const provisioned = await server.app.inject({
      method: 'POST',
      url: '/api/scim/v2/Users',
      headers: { ...bearer(scim.key), 'content-type': 'application/scim+json' },
      payload: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'provisioned@example.com',
        password: scimPassword,
      },
    });
    expect(provisioned.statusCode, provisioned.body).toBe(201);
    const [scimEntry] = await entries(`action=scim_user.create&targetId=${provisioned.json().id}`);
    expect(scimEntry).toMatchObject({ targetType: 'user', actor: { credentialKind: 'scim' } });
    expect(scimEntry.after.username).toBe('provisioned@example.com');
    const exported = (await call('GET', '/api/v1/audit-log/export')).body;
    const rows = JSON.stringify(await server.store.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of [key.key, scim.key, password, dbPassword, otherPassword, variable, scimPassword]) {
      expect(exported).not.toContain(secret);
      expect(rows).not.toContain(secret);
    }
    const items = await entries(`targetType=deployment&targetId=${deploymentId}`);
    expect(items.shift()?.action).toBe('deployment.rotate_api_secret');
    expect(items.map((e) => e.action)).toEqual([
      'env_variables.set',
      'deployment.update',
      'deployment.create',
    ]);
    expect(items[0].after).toEqual({ set: [{ name: 'DB_PASS', value: '[ENCRYPTED]' }], removed: [] });
    expect(items[2].after.dataSource).toMatchObject({ type: 'postgres', hasPassword: true });
    const keyEntry = (await entries(`targetType=api_key&targetId=${key.id}`))[0];
    expect(keyEntry).toMatchObject({
      action: 'api_key.create',
      after: { name: 'secret holder', prefix: expect.any(String) },
    });
    const passwordEntry = (await entries(`targetType=user&targetId=${user.id}&action=user.set_password`))[0];
    expect(passwordEntry).toMatchObject({ before: null, after: null });
  });
});
