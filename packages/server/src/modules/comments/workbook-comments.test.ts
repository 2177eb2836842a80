import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { embedToken, publishSimpleBoard } from '../embed/test-support.ts';
import { contentClient } from '../workspace/test-client.ts';

/**
 * Issue 25 item 4 for signed-in users: comments on a workbook's published dashboard need view
 * access to the workbook; mentionable are the account users who can see it; authors edit their
 * own; whoever manages the workbook also deletes and resolves others'. The account's conversation
 * is not any embed tenant's.
 */
describe("dashboard comments on a workbook's dashboard", () => {
  let server: TestServer;
  let deploymentId: number;
  let workbookId: number;
  let publicId: string;
  let path: string;
  const keys: Record<string, string> = {};
  const users: Record<string, { id: number; username: string }> = {};

  const call = async (
    who: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) => {
    const res = await server.app.inject({
      method,
      url: `${path}${url}`,
      headers: bearer(keys[who]),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = server.demoDeploymentId;
    ({ workbookId, publicId } = await publishSimpleBoard(server, deploymentId, true));
    path = `/api/v1/deployments/${deploymentId}/workbooks/${workbookId}/dashboard/comments`;
    keys.admin = server.adminKey;
    for (const [name, role] of [
      ['viewer', 'viewer'],
      ['editor', 'developer'],
      ['outsider', 'developer'],
    ] as const) {
      const { user, key } = await userWithKey(server, role);
      users[name] = user;
      keys[name] = key;
    }
    const grant = (userId: number, level: string) =>
      server.app.inject({
        method: 'PUT',
        url: `/api/v1/deployments/${deploymentId}/permissions`,
        headers: bearer(server.adminKey),
        payload: { type: 'WORKBOOK', id: workbookId, userId, level },
      });
    expect((await grant(users.viewer.id, 'view')).statusCode).toBe(200);
    expect((await grant(users.editor.id, 'edit')).statusCode).toBe(200);
  });
  afterAll(() => server?.close());

  it('lists as mentionable the users who can see the workbook, not the others', async () => {
    const res = await call('viewer', 'GET', '/mentionable-users?first=100');
    expect(res.status).toBe(200);
    const listed = res.body.items.map((u: { id: number }) => u.id);
    expect(listed).toEqual(expect.arrayContaining([server.adminUserId, users.viewer.id, users.editor.id]));
    expect(listed).not.toContain(users.outsider.id);
    const names = res.body.items.map((u: { username: string }) => u.username);
    expect(names).toEqual([...names].sort());
  });

  it('refuses callers without view access, and a mention of someone who cannot see it', async () => {
    const refused = await call('outsider', 'GET', '');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('content_access_denied');
    const mention = await call('viewer', 'POST', '', { body: 'cc', mentions: [users.outsider.id] });
    expect(mention.status).toBe(400);
    expect(mention.body.errors[0].field).toBe('body/mentions/0');
    expect((await call('viewer', 'GET', '')).body.items).toEqual([]);
  });

  it('answers 404 for a workbook that was never published', async () => {
    const wb = await contentClient(server, deploymentId).workbook('Unpublished');
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${deploymentId}/workbooks/${wb.id}/dashboard/comments`,
      headers: bearer(server.adminKey),
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('dashboard_not_found');
  });

  it('lets authors edit their own, and managers delete and resolve anyone', async () => {
    const root = await call('viewer', 'POST', '', { body: 'Why the dip?', mentions: [users.editor.id] });
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({ dashboardId: publicId, userId: users.viewer.id, isOwn: true });
    const reply = await call('editor', 'POST', '', { body: 'Holiday', parentId: root.body.id });
    expect(reply.status).toBe(200);

    expect((await call('editor', 'PATCH', `/${root.body.id}`, { body: 'edited by editor' })).status).toBe(
      403,
    );
    expect((await call('admin', 'PATCH', `/${root.body.id}`, { body: 'edited by admin' })).status).toBe(403);
    expect((await call('viewer', 'DELETE', `/${reply.body.id}`)).status).toBe(403);
    // Edit access is not manage: the editor resolves only its own threads.
    expect((await call('editor', 'POST', `/${root.body.id}/resolve`, { resolved: true })).status).toBe(403);
    const resolved = await call('admin', 'POST', `/${root.body.id}/resolve`, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body.resolvedBy).toBe(server.adminUserId);
    expect((await call('admin', 'DELETE', `/${reply.body.id}`)).status).toBe(200);
    const thread = (await call('viewer', 'GET', '?resolvedOnly=true')).body.items[0];
    expect(thread.root.body).toBe('Why the dip?');
    expect(thread.replies[0]).toMatchObject({ body: '', userId: users.editor.id });
  });

  it("keeps the account's conversation apart from an embed tenant's", async () => {
    const token = await embedToken(server, { deploymentId, externalId: 'eve', embedTenantName: 'red' });
    const embedPath = `/api/v1/embed/dashboard/${publicId}/comments`;
    const posted = await server.app.inject({
      method: 'POST',
      url: embedPath,
      headers: { authorization: `Bearer ${token}` },
      payload: { body: 'from the embed' },
    });
    expect(posted.statusCode).toBe(200);
    const account = (await call('admin', 'GET', '?includeResolved=true')).body.items;
    expect(account.map((t: { root: { body: string } }) => t.root.body)).not.toContain('from the embed');
    const embedded = await server.app.inject({
      method: 'GET',
      url: embedPath,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(embedded.json().items.map((t: { root: { body: string } }) => t.root.body)).toEqual([
      'from the embed',
    ]);
    expect((await call('admin', 'DELETE', `/${posted.json().id}`)).status).toBe(404);
  });
});
