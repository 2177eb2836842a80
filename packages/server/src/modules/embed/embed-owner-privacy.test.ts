import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedToken } from './test-support.ts';

/**
 * Issue 12, owner privacy: an embed user in creator mode reads the host's content shared with its
 * tenant, but never who in the host's account owns it or holds grants on it (the reference's
 * `GET /shared-workspace`: "Owner identities are blanked out so they are not exposed to embed
 * users"); the shared workspace is its feed of that content. On the store the run was started with.
 */
describe('owner identities hidden from embed users', () => {
  let server: TestServer;
  let deploymentId: number;
  const host = { email: '', firstName: 'Hortensia', id: 0, key: '' };
  const tokens = {} as Record<'ada' | 'dee' | 'viewer', string>;
  const made = {} as { hostWorkbook: number; boltOnly: number; adaOwn: number };

  async function call(token: string, method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) {
    const res = await server.app.inject({
      method,
      url: `/api/v1/deployments/${deploymentId}${path}`,
      headers: bearer(token),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: res.statusCode, text: res.body, body: res.body === '' ? null : res.json() };
  }
  const ok = async (token: string, method: 'GET' | 'POST' | 'PUT', path: string, payload?: unknown) => {
    const res = await call(token, method, path, payload);
    expect(res.status, `${method} ${path}: ${res.text}`).toBe(200);
    return res;
  };
  /** The raw body names none of the host admin's identity. */
  const expectNoHostIdentity = (text: string) => {
    expect(text).not.toContain(host.email);
    expect(text).not.toContain(host.firstName);
  };
  const creator = (embedTenantName: string, externalId: string) =>
    embedToken(server, {
      deploymentId,
      externalId,
      creatorMode: true,
      embedTenantName,
      tenantGroups: ['ops'],
      tenantGroupDefinitions: [{ name: 'ops', description: `ops of ${embedTenantName}` }],
    });

  /** A published workbook of the host admin, shared read-only with one embed tenant. */
  async function hostBoard(name: string, embedTenantName: string) {
    const workbook = await ok(host.key, 'POST', '/workbooks', { name });
    const id = workbook.body.id as number;
    const report = await ok(host.key, 'POST', '/reports', {
      name: 'Seven',
      sqlQuery: 'SELECT 7 AS seven',
      workbookId: id,
    });
    await ok(host.key, 'POST', `/workbooks/${id}/publish`, {
      workbookId: id,
      config: {
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.body.id } }],
      },
    });
    await ok(host.key, 'PUT', `/workbooks/${id}/embed-access`, { embedTenantName, action: 'read' });
    return id;
  }

  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = server.demoDeploymentId;
    host.email = `hortensia-${Math.random().toString(36).slice(2, 8)}@host.example`;
    const user = await server.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: bearer(server.adminKey),
      payload: { email: host.email, username: host.email, firstName: host.firstName, role: 'admin' },
    });
    expect(user.statusCode).toBe(200);
    host.id = user.json().id;
    host.key = (await createKey(server, { name: 'host admin', userId: host.id })).key;
    tokens.ada = await creator('acme', 'ada');
    tokens.dee = await creator('bolt', 'dee');
    tokens.viewer = await embedToken(server, { deploymentId, externalId: 'eve', embedTenantName: 'acme' });

    made.hostWorkbook = await hostBoard('House board', 'acme');
    made.boltOnly = await hostBoard('Bolt only board', 'bolt');
    // A global group and another account user hold grants on it too: the embed user learns of neither.
    const group = await server.app.inject({
      method: 'POST',
      url: '/api/v1/groups',
      headers: bearer(server.adminKey),
      payload: { name: 'finance' },
    });
    expect(group.statusCode).toBe(200);
    await ok(host.key, 'PUT', '/permissions', {
      type: 'WORKBOOK',
      id: made.hostWorkbook,
      groupId: group.json().id,
      level: 'view',
    });
    made.adaOwn = (await ok(tokens.ada, 'POST', '/workbooks', { name: 'Acme own' })).body.id;
  });
  afterAll(() => server?.close());

  it('shows the admin key the host owner, and the creator the same workbook with the owner blanked', async () => {
    const asAdmin = await ok(host.key, 'GET', `/workbooks/${made.hostWorkbook}`);
    expect(asAdmin.body.user).toMatchObject({ id: host.id, email: host.email, firstName: host.firstName });
    expect([asAdmin.body.userId, asAdmin.body.createdBy, asAdmin.body.publishedDashboard.createdBy]).toEqual([
      host.id,
      host.id,
      host.id,
    ]);
    const adminList = await ok(host.key, 'GET', '/workbooks?first=100');
    expect(adminList.text).toContain(host.email);

    const got = await ok(tokens.ada, 'GET', `/workbooks/${made.hostWorkbook}`);
    expect(got.body.name).toBe('House board');
    expect([got.body.userId, got.body.createdBy, got.body.user]).toEqual([null, null, null]);
    expect(got.body.publishedDashboard.createdBy).toBeNull();
    expectNoHostIdentity(got.text);

    const list = await ok(tokens.ada, 'GET', '/workbooks?first=100');
    const listed = list.body.items.find((w: { id: number }) => w.id === made.hostWorkbook);
    expect([listed.userId, listed.createdBy, listed.user]).toEqual([null, null, null]);
    expect(list.body.items.map((w: { id: number }) => w.id)).not.toContain(made.boltOnly);
    expectNoHostIdentity(list.text);
  });

  it('names no host publisher to an embed user on the embed dashboard read', async () => {
    const embedDashboard = async (token: string, workbookId: number) => {
      const workbook = await ok(host.key, 'GET', `/workbooks/${workbookId}`);
      const res = await server.app.inject({
        url: `/api/v1/embed/dashboard/${workbook.body.publishedDashboard.publicId}`,
        headers: bearer(token),
      });
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    expect((await embedDashboard(host.key, made.hostWorkbook)).json().createdBy).toBe(host.id);
    const asCreator = await embedDashboard(tokens.ada, made.hostWorkbook);
    expect(asCreator.json().createdBy).toBeNull();
    expectNoHostIdentity(asCreator.body);
  });

  it('lists only embed grantees to the creator; the admin key sees the account grants', async () => {
    const path = `/permissions?type=WORKBOOK&id=${made.hostWorkbook}`;
    const asAdmin = await ok(host.key, 'GET', path);
    expect(asAdmin.body.items.map((g: { userId: number | null }) => g.userId)).toContain(host.id);
    expect(asAdmin.body.items.some((g: { groupId: number | null }) => g.groupId !== null)).toBe(true);

    const asCreator = await ok(tokens.ada, 'GET', path);
    expect(asCreator.body.items).toEqual([]);
    expectNoHostIdentity(asCreator.text);
  });

  it("keeps the owner grant of the tenant's own copy, and its share with the tenant group, visible", async () => {
    const copy = await ok(tokens.ada, 'POST', `/workbooks/${made.hostWorkbook}/duplicate`, { shared: true });
    expectNoHostIdentity(copy.text);
    const groups = await server.app.inject({
      method: 'GET',
      url: '/api/v1/embed-tenants/acme/groups',
      headers: bearer(tokens.ada),
    });
    const opsGroupId = groups.json().items[0].id as number;
    await ok(tokens.ada, 'PUT', '/permissions', {
      type: 'WORKBOOK',
      id: copy.body.id,
      embedGroupId: opsGroupId,
      level: 'view',
    });
    const grants = await ok(tokens.ada, 'GET', `/permissions?type=WORKBOOK&id=${copy.body.id}`);
    const byGrantee = grants.body.items.map(
      (g: { embedUserId: number | null; embedGroupId: number | null; level: string }) => [
        g.embedUserId === null ? 'group' : 'owner',
        g.embedGroupId,
        g.level,
      ],
    );
    expect(byGrantee.sort()).toEqual([
      ['group', opsGroupId, 'view'],
      ['owner', null, 'manage'],
    ]);
  });

  it('answers the shared workspace to a creator with what is shared with its tenant, owners null', async () => {
    const feed = await ok(tokens.ada, 'GET', '/shared-workspace?first=100');
    expect(feed.body.items.map((i: { id: number; type: string }) => [i.type, i.id])).toEqual([
      ['WORKBOOK', made.hostWorkbook],
    ]);
    const [item] = feed.body.items;
    expect([item.userId, item.createdBy, item.user]).toEqual([null, null, null]);
    expectNoHostIdentity(feed.text);

    // Another tenant's creator sees its own share only; a session without creator mode is refused.
    const bolt = await ok(tokens.dee, 'GET', '/shared-workspace?first=100');
    expect(bolt.body.items.map((i: { id: number }) => i.id)).toEqual([made.boltOnly]);
    const viewer = await call(tokens.viewer, 'GET', '/shared-workspace');
    expect([viewer.status, viewer.body.code]).toEqual([403, 'embed_creator_mode_required']);

    // An account user's shared workspace is unchanged: what others own that it can view.
    const adminFeed = await ok(server.adminKey, 'GET', '/shared-workspace?first=100&types=WORKBOOK');
    expect(adminFeed.body.items.map((i: { id: number }) => i.id)).toEqual(
      expect.arrayContaining([made.hostWorkbook, made.boltOnly, made.adaOwn]),
    );
  });
});
