import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { contentClient, newDeployment } from '../workspace/test-client.ts';

describe('content permissions', () => {
  let server: TestServer;
  let api: ReturnType<typeof contentClient>;
  beforeAll(async () => {
    server = await startTestServer();
    api = contentClient(server, await newDeployment(server));
  });
  afterAll(() => server?.close());

  it('inherits grants from parent folders, reaches group members and filters lists', async () => {
    const dev = await userWithKey(server, 'developer');
    const top = await api.folder('Top');
    const mid = await api.folder('Mid', top.id);
    const wb = await api.workbook('Deep', mid.id);
    const rep = await api.report({ name: 'Deep report', folderId: mid.id });
    await api.workbook('Elsewhere');
    expect((await api.call('GET', `/workbooks/${wb.id}`, undefined, dev.key)).status).toBe(403);
    expect((await api.ok('GET', '/workbooks', undefined, dev.key)).items).toEqual([]);

    const group = await api.ok('POST', '/api/v1/groups', { name: `analysts ${Date.now()}` });
    await api.ok('POST', `/api/v1/groups/${group.id}/members`, { userId: dev.user.id });
    const grant = await api.grant({ type: 'FOLDER', id: top.id, groupId: group.id, level: 'view' });
    expect((await api.call('GET', `/workbooks/${wb.id}`, undefined, dev.key)).status).toBe(200);
    expect((await api.call('PUT', `/workbooks/${wb.id}`, { name: 'x' }, dev.key)).status).toBe(403);
    expect(
      (await api.ok('GET', '/workbooks', undefined, dev.key)).items.map((w: { id: number }) => w.id),
    ).toEqual([wb.id]);
    const reports = await api.ok('GET', '/reports', undefined, dev.key);
    expect(reports.items.map((r: { id: number }) => r.id)).toEqual([rep.id]);
    expect(reports.items[0]).toMatchObject({ canEdit: false, canManage: false });
    const folders = await api.ok('GET', '/folders', undefined, dev.key);
    expect(folders.items.map((f: { id: number }) => f.id)).toEqual([top.id]);

    await api.grant({ type: 'FOLDER', id: mid.id, userId: dev.user.id, level: 'edit' });
    expect((await api.call('PUT', `/workbooks/${wb.id}`, { name: 'edited' }, dev.key)).status).toBe(200);
    expect((await api.call('DELETE', `/workbooks/${wb.id}`, undefined, dev.key)).status).toBe(403);

    const listed = await api.ok('GET', `/permissions?type=FOLDER&id=${top.id}`, undefined, dev.key);
    expect(listed.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ groupId: group.id, level: 'view' })]),
    );
    // Revoking needs manage on the item; the dev only views Top.
    expect((await api.call('DELETE', `/permissions/${grant.id}`, undefined, dev.key)).status).toBe(403);
    expect(await api.ok('DELETE', `/permissions/${grant.id}`)).toEqual({ success: true });
    expect((await api.call('GET', `/workbooks/${wb.id}`, undefined, dev.key)).status).toBe(200); // still edit on Mid
    expect((await api.call('DELETE', `/permissions/${grant.id}`)).status).toBe(404);
  });

  it('gives creators manage, tenant admins everything, and caps viewer accounts at view', async () => {
    const dev = await userWithKey(server, 'developer');
    const own = await api.workbook('Mine', null, dev.key);
    const perms = await api.ok('GET', `/permissions?type=WORKBOOK&id=${own.id}`, undefined, dev.key);
    expect(perms.items).toEqual([expect.objectContaining({ userId: dev.user.id, level: 'manage' })]);
    expect((await api.call('GET', `/workbooks/${own.id}`)).status).toBe(200); // the admin sees it
    expect((await api.call('DELETE', `/workbooks/${own.id}`)).status).toBe(200);

    const viewer = await userWithKey(server, 'viewer');
    const wb = await api.workbook('For viewer');
    await api.grant({ type: 'WORKBOOK', id: wb.id, userId: viewer.user.id, level: 'manage' });
    expect((await api.call('GET', `/workbooks/${wb.id}`, undefined, viewer.key)).status).toBe(200);
    const rep = await api.report({ name: 'viewer report' });
    await api.grant({ type: 'REPORT', id: rep.id, userId: viewer.user.id, level: 'manage' });
    expect(await api.ok('GET', `/reports/${rep.id}`, undefined, viewer.key)).toMatchObject({
      canEdit: false,
      canManage: false,
    });
  });

  it('validates grants: one grantee of this account, items of this deployment', async () => {
    const wb = await api.workbook('Grants');
    expect(
      (await api.call('PUT', '/permissions', { type: 'WORKBOOK', id: wb.id, level: 'view' })).status,
    ).toBe(400);
    expect(
      (await api.call('PUT', '/permissions', { type: 'WORKBOOK', id: wb.id, userId: 999999, level: 'view' }))
        .status,
    ).toBe(400);
    expect(
      (
        await api.call('PUT', '/permissions', {
          type: 'WORKBOOK',
          id: wb.id,
          userId: server.adminUserId,
          level: 'owner',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api.call('PUT', '/permissions', {
          type: 'FOLDER',
          id: 999999,
          userId: server.adminUserId,
          level: 'view',
        })
      ).status,
    ).toBe(404);
    const first = await api.grant({ type: 'WORKBOOK', id: wb.id, userId: server.adminUserId, level: 'view' });
    const second = await api.grant({
      type: 'WORKBOOK',
      id: wb.id,
      userId: server.adminUserId,
      level: 'edit',
    });
    expect(second).toMatchObject({ id: first.id, level: 'edit' });
  });

  it('answers 401 without a credential and 403 for a key scoped to another deployment', async () => {
    const wb = await api.workbook('Scoped');
    const other = await newDeployment(server, 'elsewhere');
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${wb.deploymentId}/workbooks/${wb.id}`,
    });
    expect(res.statusCode).toBe(401);
    const keyRes = await server.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: bearer(server.adminKey),
      payload: { name: 'scoped', deploymentIds: [other] },
    });
    const scoped = keyRes.json().key;
    expect((await api.call('GET', `/workbooks/${wb.id}`, undefined, scoped)).status).toBe(403);
  });
});
