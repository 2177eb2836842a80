import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/index.ts';
import { type ListeningServer, startListening, unique } from './support.ts';

/** Every operation group of the management API, called through the typed client on a real server. */
describe('typed client against a listening server', () => {
  let s: ListeningServer;
  let deploymentId: number;
  beforeAll(async () => {
    s = await startListening();
    deploymentId = s.server.demoDeploymentId;
  });
  afterAll(() => s?.close());

  it('deployments and environments: create, read, list, update, delete', async () => {
    const name = unique('dep');
    const created = await s.client.POST('/api/v1/deployments', { body: { name } });
    expect(created.error).toBeUndefined();
    const id = created.data!.id;
    const read = await s.client.GET('/api/v1/deployments/{deploymentId}', {
      params: { path: { deploymentId: id } },
    });
    expect(read.data?.name).toBe(name);
    const list = await s.client.GET('/api/v1/deployments');
    expect(list.data?.items.map((d) => d.id)).toContain(id);
    const renamed = await s.client.PUT('/api/v1/deployments/{deploymentId}', {
      params: { path: { deploymentId: id } },
      body: { name: `${name}-renamed` },
    });
    expect(renamed.data?.name).toBe(`${name}-renamed`);
    const environments = await s.client.GET('/api/v1/deployments/{deploymentId}/environments', {
      params: { path: { deploymentId } },
    });
    expect(environments.response.status).toBe(200);
    expect(Array.isArray(environments.data?.items)).toBe(true);
    const removed = await s.client.DELETE('/api/v1/deployments/{deploymentId}', {
      params: { path: { deploymentId: id } },
    });
    expect(removed.response.ok).toBe(true);
    const gone = await s.client.GET('/api/v1/deployments/{deploymentId}', {
      params: { path: { deploymentId: id } },
    });
    expect(gone.response.status).toBe(404);
  });

  it('folders, workbooks, reports, dashboard publish and workspace move', async () => {
    const path = { deploymentId };
    const folder = await s.client.POST('/api/v1/deployments/{deploymentId}/folders', {
      params: { path },
      body: { name: unique('folder') },
    });
    expect(folder.error).toBeUndefined();
    const folderId = folder.data!.id;
    const renamed = await s.client.PUT('/api/v1/deployments/{deploymentId}/folders/{folderId}', {
      params: { path: { deploymentId, folderId } },
      body: { name: 'Renamed folder' },
    });
    expect(renamed.data?.name).toBe('Renamed folder');

    const workbook = await s.client.POST('/api/v1/deployments/{deploymentId}/workbooks', {
      params: { path },
      body: { name: unique('workbook') },
    });
    expect(workbook.error).toBeUndefined();
    const workbookId = workbook.data!.id;
    const report = await s.client.POST('/api/v1/deployments/{deploymentId}/reports', {
      params: { path },
      body: { name: unique('report'), workbookId },
    });
    expect(report.error).toBeUndefined();
    const reports = await s.client.GET('/api/v1/deployments/{deploymentId}/reports', {
      params: { path, query: { workbookId } },
    });
    expect(reports.data?.items.map((r) => r.id)).toEqual([report.data!.id]);

    const published = await s.client.POST(
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/publish',
      {
        params: { path: { deploymentId, workbookId } },
        body: { workbookId, title: 'Quarterly', config: { title: 'Quarterly', widgets: [] } },
      },
    );
    expect(published.error).toBeUndefined();
    expect(published.data?.workbookId).toBe(workbookId);
    expect(typeof published.data?.fromSharedWorkspace).toBe('boolean');

    const moved = await s.client.POST('/api/v1/deployments/{deploymentId}/workspace/move', {
      params: { path },
      body: { type: 'WORKBOOK', id: workbookId, folderId },
    });
    expect(moved.error).toBeUndefined();
    expect(moved.data?.folderId).toBe(folderId);
    const inFolder = await s.client.GET('/api/v1/deployments/{deploymentId}/workbooks', {
      params: { path, query: { folderId } },
    });
    expect(inFolder.data?.items.map((w) => w.id)).toEqual([workbookId]);
    const one = await s.client.GET('/api/v1/deployments/{deploymentId}/workbooks/{workbookId}', {
      params: { path: { deploymentId, workbookId } },
    });
    expect(one.data?.publishedDashboard?.title).toBe('Quarterly');

    const workspace = await s.client.GET('/api/v1/deployments/{deploymentId}/workspace', {
      params: { path, query: { folderId } },
    });
    expect(workspace.data?.items.map((i) => i.id)).toContain(workbookId);
  });

  it('users, groups and api keys', async () => {
    const email = `${unique('user')}@example.com`;
    const user = await s.client.POST('/api/v1/users', { body: { email, username: email, role: 'viewer' } });
    expect(user.error).toBeUndefined();
    const userId = user.data!.id;
    const me = await s.client.GET('/api/v1/users/me');
    expect(me.response.status).toBe(200);

    const group = await s.client.POST('/api/v1/groups', { body: { name: unique('group') } });
    expect(group.error).toBeUndefined();
    const groupId = group.data!.id;
    const added = await s.client.POST('/api/v1/groups/{groupId}/members', {
      params: { path: { groupId } },
      body: { userId },
    });
    expect(added.response.ok).toBe(true);
    const members = await s.client.GET('/api/v1/groups/{groupId}/members', { params: { path: { groupId } } });
    expect(members.data?.items.map((m) => m.userId)).toContain(userId);

    const key = await s.client.POST('/api/v1/api-keys', { body: { name: 'client test key', userId } });
    expect(key.error).toBeUndefined();
    // The new key works as the credential of a second client, as an OAuth token would.
    const asViewer = createClient({ baseUrl: s.baseUrl, token: async () => key.data!.key });
    const viewerMe = await asViewer.GET('/api/v1/users/me');
    expect(viewerMe.data?.id).toBe(userId);
    const revoked = await s.client.DELETE('/api/v1/api-keys/{apiKeyId}', {
      params: { path: { apiKeyId: key.data!.id } },
    });
    expect(revoked.response.ok).toBe(true);
    expect((await asViewer.GET('/api/v1/users/me')).response.status).toBe(401);
  });

  it('app config: read and update (release 0.1.2)', async () => {
    const before = await s.client.GET('/api/v1/app-config');
    expect(before.error).toBeUndefined();
    const updated = await s.client.PUT('/api/v1/app-config', {
      body: { applyThemeGlobally: !before.data!.applyThemeGlobally },
    });
    expect(updated.error).toBeUndefined();
    expect(updated.data?.applyThemeGlobally).toBe(!before.data!.applyThemeGlobally);
    expect((await s.client.GET('/api/v1/app-config')).data?.applyThemeGlobally).toBe(
      !before.data!.applyThemeGlobally,
    );
  });

  it('SCIM through the same client', async () => {
    const users = await s.client.GET('/api/scim/v2/Users', { params: { query: { count: 5 } } });
    expect(users.response.status).toBe(200);
    expect(users.data?.schemas).toContain('urn:ietf:params:scim:api:messages:2.0:ListResponse');
  });
});
