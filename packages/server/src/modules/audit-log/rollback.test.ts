import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { notificationsApi, publishNotificationBoard } from '../notifications/test-support.ts';
import { contentClient } from '../workspace/test-client.ts';

/**
 * Issue 22 item 5: an entry is written in its change's transaction. When the store refuses the
 * entry, the change of each family audited since the first (reports, dashboards, moves, data
 * model, embed tenants and shares, notifications, agents, roles, a user's own profile) is not
 * made either, and the caller gets a 500 that names nothing internal.
 */
describe('audit log: an entry that cannot be written undoes its change', () => {
  let server: TestServer;
  let board: Awaited<ReturnType<typeof publishNotificationBoard>>;
  beforeAll(async () => {
    server = await startTestServer();
    board = await publishNotificationBoard(server);
  });
  afterAll(() => server?.close());

  const send = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
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
    return { status: res.statusCode, body: res.body, json: () => res.json() };
  };
  const ok = async (...args: Parameters<typeof send>) => {
    const res = await send(...args);
    expect(res.status, `${args[0]} ${args[1]}: ${res.body}`).toBeLessThan(300);
    return res.body ? res.json() : undefined;
  };

  it('leaves every audited family unchanged when its entry is refused', async () => {
    const deployment = server.demoDeploymentId;
    const content = contentClient(server, deployment);
    const report = await content.report({ name: 'Kept report', sqlQuery: 'SELECT 1' });
    const folder = await content.folder('Destination');
    await ok('POST', `/build/api/v1/deployments/${deployment}/branches`, { name: 'kept-branch' });
    await ok('POST', '/api/v1/embed-tenants', { name: 'kept' });
    const notification = await notificationsApi(server).create({
      scheduleType: 'DAILY',
      hour: 7,
      dashboardId: board.dashboardId,
    });
    const agent = await ok('POST', '/api/v1/agents', { name: 'Kept agent', deploymentId: deployment });
    const role = await ok('POST', '/api/v1/roles', { name: 'Kept role', policies: [] });
    const { user, key } = await userWithKey(server, 'viewer');
    const published = (await ok('GET', `/api/v1/deployments/${deployment}/workbooks/${board.workbookId}`))
      .publishedDashboard;

    const refused: [string, () => ReturnType<typeof send>, () => Promise<void>][] = [
      [
        'report.delete',
        () => send('DELETE', `/api/v1/deployments/${deployment}/reports/${report.id}`),
        async () => expect((await content.call('GET', `/reports/${report.id}`)).status).toBe(200),
      ],
      [
        'report.move',
        () =>
          send('POST', `/api/v1/deployments/${deployment}/workspace/move`, {
            type: 'REPORT',
            id: report.id,
            folderId: folder.id,
          }),
        async () => expect((await content.call('GET', `/reports/${report.id}`)).body.folderId).toBeNull(),
      ],
      [
        'dashboard.publish',
        () =>
          send('POST', `/api/v1/deployments/${deployment}/workbooks/${board.workbookId}/publish`, {
            workbookId: board.workbookId,
            config: published.config,
            title: 'Never published',
          }),
        async () => {
          const wb = await ok('GET', `/api/v1/deployments/${deployment}/workbooks/${board.workbookId}`);
          expect(wb.publishedDashboard.versionNumber).toBe(published.versionNumber);
        },
      ],
      [
        'data_model_branch.delete',
        () => send('DELETE', `/build/api/v1/deployments/${deployment}/branches?branchName=kept-branch`),
        async () => {
          const branches = await ok('GET', `/build/api/v1/deployments/${deployment}/branches`);
          expect(branches.items.map((b: { name: string }) => b.name)).toContain('kept-branch');
        },
      ],
      [
        'embed_tenant.delete',
        () => send('DELETE', '/api/v1/embed-tenants/kept'),
        async () => expect((await send('GET', '/api/v1/embed-tenants/kept')).status).toBe(200),
      ],
      [
        'embed_access.update',
        () =>
          send('PUT', `/api/v1/deployments/${deployment}/workbooks/${board.workbookId}/embed-access`, {
            embedTenantName: 'kept',
            action: 'read',
          }),
        async () => {
          const access = await ok(
            'GET',
            `/api/v1/deployments/${deployment}/workbooks/${board.workbookId}/embed-access`,
          );
          expect(access.tenants).toEqual([]);
        },
      ],
      [
        'notification.delete',
        () => send('DELETE', `/api/v1/deployments/${deployment}/notifications/${notification.id}`),
        async () =>
          expect(
            (await send('GET', `/api/v1/deployments/${deployment}/notifications/${notification.id}`)).status,
          ).toBe(200),
      ],
      [
        'agent.delete',
        () => send('DELETE', `/api/v1/agents/${agent.id}`),
        async () => expect((await send('GET', `/api/v1/agents/${agent.id}`)).status).toBe(200),
      ],
      [
        'user.assign_role',
        () => send('PUT', `/api/v1/roles/${role.id}/users/${user.id}`),
        async () => {
          const held = await server.store.db
            .selectFrom('user_roles')
            .select('role_id')
            .where('user_id', '=', user.id)
            .execute();
          expect(held).toEqual([]);
        },
      ],
      [
        'user.update_profile',
        () => send('PATCH', '/api/v1/users/me', { firstName: 'Never saved' }, key),
        async () =>
          expect((await send('GET', '/api/v1/users/me', undefined, key)).json().firstName).not.toBe(
            'Never saved',
          ),
      ],
    ];
    const db = server.store.db;
    const countOf = async (action: string) =>
      (await db.selectFrom('audit_log').select('id').where('action', '=', action).execute()).length;
    for (const [action, change, unchanged] of refused) {
      const entriesBefore = await countOf(action);
      // NOT VALID: the rows already there (the board's own publish) stay; new ones are refused.
      await sql`ALTER TABLE audit_log ADD CONSTRAINT refuse_action CHECK (action <> ${sql.lit(action)}) NOT VALID`.execute(
        db,
      );
      try {
        const res = await change();
        expect(res.status, `${action}: ${res.body}`).toBe(500);
        expect(res.body).not.toContain('refuse_action');
      } finally {
        await sql`ALTER TABLE audit_log DROP CONSTRAINT refuse_action`.execute(db);
      }
      await unchanged();
      expect(await countOf(action), action).toBe(entriesBefore);
    }
  });
});
