import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createKey,
  signedInUser,
  startReplica,
  startTestServer,
  type TestServer,
  userWithKey,
} from '../../../test/harness.ts';

/** Issue 22 item 2: the reference's Roles group, enforced through every route's access declaration. */
describe('roles', () => {
  let server: TestServer;
  let other: number;
  beforeAll(async () => {
    server = await startTestServer();
    other = (await call('POST', '/api/v1/deployments', { name: 'other' })).json().id;
  });
  afterAll(() => server?.close());

  function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, key?: string) {
    return server.app.inject({
      method,
      url,
      headers: bearer(key ?? server.adminKey),
      ...(payload ? { payload } : {}),
    });
  }
  const createWorkbook = (deploymentId: number, key: string) =>
    call('POST', `/api/v1/deployments/${deploymentId}/workbooks`, { name: 'by role' }, key);

  it('creates, reads, lists newest first, renames and deletes custom roles', async () => {
    const a = await call('POST', '/api/v1/roles', {
      name: 'Analysts',
      description: 'read the demo',
      policies: [{ resourceType: 'Global', actions: ['AIBIView'], resources: ['All'] }],
    });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({ name: 'Analysts', description: 'read the demo', builtIn: false });
    const b = (await call('POST', '/api/v1/roles', { name: 'Builders', policies: [] })).json();
    const list = (await call('GET', '/api/v1/roles?first=1')).json();
    expect(list.items.map((r: { name: string }) => r.name)).toEqual(['Builders']);
    expect(list.pageInfo.hasNextPage).toBe(true);
    const next = (await call('GET', `/api/v1/roles?first=5&after=${list.pageInfo.endCursor}`)).json();
    expect(next.items.map((r: { name: string }) => r.name)).toEqual(['Analysts']);
    expect((await call('POST', '/api/v1/roles', { name: 'analysts', policies: [] })).statusCode).toBe(409);
    expect((await call('PUT', `/api/v1/roles/${b.id}`, { name: 'ANALYSTS' })).statusCode).toBe(409);
    const renamed = await call('PUT', `/api/v1/roles/${b.id}`, { description: null });
    expect(renamed.json()).toMatchObject({ name: 'Builders', description: null, policies: [] });
    expect((await call('GET', `/api/v1/roles/${a.json().id}`)).json().policies).toEqual([
      { resourceType: 'Global', actions: ['AIBIView'], resources: ['All'] },
    ]);
    expect((await call('DELETE', `/api/v1/roles/${b.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/roles/${b.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/roles/${b.id}`)).statusCode).toBe(404);
  });

  it('refuses built-in names, bad policies (naming the field) and changes to built-in roles', async () => {
    const reserved = await call('POST', '/api/v1/roles', { name: 'developer', policies: [] });
    expect(reserved.statusCode).toBe(400);
    expect(reserved.json().errors[0].field).toBe('body/name');
    const slug = await call('POST', '/api/v1/roles', {
      name: 'By slug',
      policies: [{ resourceType: 'Deployment', actions: ['DeploymentRead'], resources: ['All', 'demo'] }],
    });
    expect(slug.statusCode).toBe(400);
    expect(slug.json().errors).toEqual([
      { field: 'body/policies/0/resources/1', message: expect.any(String) },
    ]);
    const empty = await call('POST', '/api/v1/roles', {
      name: 'No actions',
      policies: [{ resourceType: 'Global', actions: [], resources: ['All'] }],
    });
    expect(empty.statusCode).toBe(400);
    expect(JSON.stringify(empty.json().errors)).toMatch(/actions/);
    const builtIns = await server.services.repositories.roles.builtIn();
    expect(builtIns.map((r) => [r.name, r.built_in])).toEqual([
      ['Admin', 'admin'],
      ['Developer', 'developer'],
      ['Viewer', 'viewer'],
    ]);
    for (const r of builtIns) {
      expect((await call('PUT', `/api/v1/roles/${r.id}`, { name: 'Mine' })).statusCode).toBe(403);
      expect((await call('DELETE', `/api/v1/roles/${r.id}`)).statusCode).toBe(403);
    }
    expect(
      (await call('GET', '/api/v1/roles')).json().items.some((r: { builtIn: boolean }) => r.builtIn),
    ).toBe(false);
  });

  it('grants what a role says on the next request, through the routes’ access declarations', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const deployment = server.demoDeploymentId;
    expect((await createWorkbook(deployment, viewer.key)).statusCode).toBe(403);
    const role = (
      await call('POST', '/api/v1/roles', {
        name: 'Demo builders',
        policies: [
          { resourceType: 'Deployment', actions: ['WorkbookEdit'], resources: [String(deployment)] },
        ],
      })
    ).json();
    expect((await call('PUT', `/api/v1/roles/${role.id}/users/${viewer.user.id}`)).statusCode).toBe(204);
    expect((await call('PUT', `/api/v1/roles/${role.id}/users/${viewer.user.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/api/v1/users/${viewer.user.id}`)).json().roles).toEqual([
      { id: role.id, name: 'Demo builders' },
    ]);
    // Developer on the deployment the policy names, viewer elsewhere and account-wide.
    expect((await createWorkbook(deployment, viewer.key)).statusCode).toBe(200);
    expect((await createWorkbook(other, viewer.key)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/users', undefined, viewer.key)).statusCode).toBe(403);
    // A browser session of a user holding the role acts alike.
    const session = await signedInUser(server, 'viewer');
    await call('PUT', `/api/v1/roles/${role.id}/users/${session.user.id}`);
    const bySession = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${deployment}/workbooks`,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload: { name: 'session by role' },
    });
    expect(bySession.statusCode).toBe(200);
    // Narrowing the policies takes the grant away at once.
    await call('PUT', `/api/v1/roles/${role.id}`, {
      policies: [
        { resourceType: 'Deployment', actions: ['DeploymentRead'], resources: [String(deployment)] },
      ],
    });
    expect((await createWorkbook(deployment, viewer.key)).statusCode).toBe(403);
    // A Global tier grants everywhere; removing the role ends it.
    await call('PUT', `/api/v1/roles/${role.id}`, {
      policies: [{ resourceType: 'Global', actions: ['AIBIDevelop'], resources: ['All'] }],
    });
    expect((await createWorkbook(other, viewer.key)).statusCode).toBe(200);
    expect((await call('DELETE', `/api/v1/roles/${role.id}/users/${viewer.user.id}`)).statusCode).toBe(204);
    expect((await call('DELETE', `/api/v1/roles/${role.id}/users/${viewer.user.id}`)).statusCode).toBe(204);
    expect((await createWorkbook(other, viewer.key)).statusCode).toBe(403);
    // Deleting the role ends every assignment of it.
    await call('DELETE', `/api/v1/roles/${role.id}`);
    const after = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${other}/workbooks`,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      payload: { name: 'gone' },
    });
    expect(after.statusCode).toBe(403);
  });

  it('assigns built-in roles but never Admin, and answers 404 for unknown users and roles', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const [adminRole, developerRole] = await server.services.repositories.roles.builtIn();
    expect((await call('PUT', `/api/v1/roles/${adminRole.id}/users/${viewer.user.id}`)).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/users', undefined, viewer.key)).statusCode).toBe(403);
    expect((await call('PUT', `/api/v1/roles/${developerRole.id}/users/${viewer.user.id}`)).statusCode).toBe(
      204,
    );
    expect((await createWorkbook(other, viewer.key)).statusCode).toBe(200);
    expect((await call('PUT', `/api/v1/roles/${developerRole.id}/users/999999`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/roles/${developerRole.id}/users/999999`)).statusCode).toBe(404);
    expect((await call('PUT', `/api/v1/roles/999999/users/${viewer.user.id}`)).statusCode).toBe(404);
    // Only admins manage roles: a developer is refused with 403, no credential with 401.
    expect((await call('GET', '/api/v1/roles', undefined, viewer.key)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/api/v1/roles' })).statusCode).toBe(401);
  });

  it('grants and withdraws a role on a second replica as soon as the store announces it', async () => {
    const replica = await startReplica(server, { listen: true });
    try {
      const viewer = await userWithKey(server, 'viewer');
      const onReplica = () =>
        replica.app.inject({
          method: 'POST',
          url: `/api/v1/deployments/${other}/workbooks`,
          headers: bearer(viewer.key),
          payload: { name: 'on the replica' },
        });
      // The replica has the viewer's credential cached, without the role.
      expect((await onReplica()).statusCode).toBe(403);
      const role = (
        await call('POST', '/api/v1/roles', {
          name: 'Replica builders',
          policies: [{ resourceType: 'Global', actions: ['AIBIDevelop'], resources: ['All'] }],
        })
      ).json();
      expect((await call('PUT', `/api/v1/roles/${role.id}/users/${viewer.user.id}`)).statusCode).toBe(204);
      // Well before the credential cache's 30 s safety net: the store's notification dropped it.
      expect(await statusWithin(onReplica, 200, 10_000)).toBe(200);
      expect((await call('DELETE', `/api/v1/roles/${role.id}`)).statusCode).toBe(204);
      expect(await statusWithin(onReplica, 403, 10_000)).toBe(403);
    } finally {
      await replica.close();
    }
  });

  it('gives a group’s roles to its members, and takes them away with the member or the assignment on a second replica', async () => {
    const replica = await startReplica(server, { listen: true });
    try {
      const viewer = await userWithKey(server, 'viewer');
      const onReplica = () =>
        replica.app.inject({
          method: 'POST',
          url: `/api/v1/deployments/${other}/workbooks`,
          headers: bearer(viewer.key),
          payload: { name: 'by group role' },
        });
      const group = (await call('POST', '/api/v1/groups', { name: 'Builders by group' })).json();
      const role = (
        await call('POST', '/api/v1/roles', {
          name: 'Group builders',
          policies: [{ resourceType: 'Deployment', actions: ['WorkbookEdit'], resources: [String(other)] }],
        })
      ).json();
      expect((await call('PUT', `/api/v1/roles/${role.id}/groups/${group.id}`)).statusCode).toBe(204);
      expect((await call('PUT', `/api/v1/roles/${role.id}/groups/${group.id}`)).statusCode).toBe(204);
      // Not a member yet: the replica (which cached the credential) refuses.
      expect((await onReplica()).statusCode).toBe(403);
      await call('POST', `/api/v1/groups/${group.id}/members`, { userId: viewer.user.id });
      expect(await statusWithin(onReplica, 200, 10_000)).toBe(200);
      expect((await createWorkbook(server.demoDeploymentId, viewer.key)).statusCode).toBe(403);
      // Leaving the group ends the grant at once, everywhere.
      await call('DELETE', `/api/v1/groups/${group.id}/members/${viewer.user.id}`);
      expect((await createWorkbook(other, viewer.key)).statusCode).toBe(403);
      expect(await statusWithin(onReplica, 403, 10_000)).toBe(403);
      // Back in the group, then the role taken from the group: the same.
      await call('POST', `/api/v1/groups/${group.id}/members`, { userId: viewer.user.id });
      expect(await statusWithin(onReplica, 200, 10_000)).toBe(200);
      expect((await call('DELETE', `/api/v1/roles/${role.id}/groups/${group.id}`)).statusCode).toBe(204);
      expect((await call('DELETE', `/api/v1/roles/${role.id}/groups/${group.id}`)).statusCode).toBe(204);
      expect((await createWorkbook(other, viewer.key)).statusCode).toBe(403);
      expect(await statusWithin(onReplica, 403, 10_000)).toBe(403);
      // A role held both ways is held once; deleting the group ends its assignments.
      await call('PUT', `/api/v1/roles/${role.id}/groups/${group.id}`);
      await call('PUT', `/api/v1/roles/${role.id}/users/${viewer.user.id}`);
      expect((await createWorkbook(other, viewer.key)).statusCode).toBe(200);
      await call('DELETE', `/api/v1/roles/${role.id}/users/${viewer.user.id}`);
      expect((await createWorkbook(other, viewer.key)).statusCode).toBe(200);
      expect((await call('DELETE', `/api/v1/groups/${group.id}`)).statusCode).toBe(200);
      expect((await createWorkbook(other, viewer.key)).statusCode).toBe(403);
      expect(await statusWithin(onReplica, 403, 10_000)).toBe(403);
    } finally {
      await replica.close();
    }
  });

  it('assigns roles to groups of the account only, never Admin', async () => {
    const group = (await call('POST', '/api/v1/groups', { name: 'Not admins' })).json();
    const [adminRole, developerRole] = await server.services.repositories.roles.builtIn();
    expect((await call('PUT', `/api/v1/roles/${adminRole.id}/groups/${group.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `/api/v1/roles/999999/groups/${group.id}`)).statusCode).toBe(404);
    const unknownGroup = await call('PUT', `/api/v1/roles/${developerRole.id}/groups/999999`);
    expect(unknownGroup.statusCode).toBe(404);
    expect(unknownGroup.json().code).toBe('group_not_found');
    expect((await call('DELETE', `/api/v1/roles/${developerRole.id}/groups/999999`)).statusCode).toBe(404);
    const viewer = await userWithKey(server, 'viewer');
    await call('POST', `/api/v1/groups/${group.id}/members`, { userId: viewer.user.id });
    expect((await call('PUT', `/api/v1/roles/${developerRole.id}/groups/${group.id}`)).statusCode).toBe(204);
    expect((await createWorkbook(other, viewer.key)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/users', undefined, viewer.key)).statusCode).toBe(403);
    expect(
      (await call('PUT', `/api/v1/roles/${developerRole.id}/groups/${group.id}`, undefined, viewer.key))
        .statusCode,
    ).toBe(403);
  });

  it('raises access on a route that names its deployment in the body (POST /api/v1/agents)', async () => {
    const viewer = await userWithKey(server, 'viewer');
    const deployment = server.demoDeploymentId;
    const createAgent = (deploymentId: number, key: string) =>
      call('POST', '/api/v1/agents', { name: `agent on ${deploymentId}`, deploymentId }, key);
    expect((await createAgent(deployment, viewer.key)).statusCode).toBe(403);
    const role = (
      await call('POST', '/api/v1/roles', {
        name: 'Agent builders',
        policies: [{ resourceType: 'Deployment', actions: ['AgentManage'], resources: [String(deployment)] }],
      })
    ).json();
    await call('PUT', `/api/v1/roles/${role.id}/users/${viewer.user.id}`);
    // Developer on the deployment the body names, and only there.
    const onA = await createAgent(deployment, viewer.key);
    expect(onA.statusCode).toBe(200);
    expect(onA.json().deploymentId).toBe(deployment);
    const onB = await createAgent(other, viewer.key);
    expect(onB.statusCode).toBe(403);
    expect(onB.json().code).toBe('insufficient_role');
    // The body is still checked first for whoever may act somewhere: the field is named.
    const bad = await call('POST', '/api/v1/agents', { name: 'no deployment' }, viewer.key);
    expect(bad.statusCode).toBe(400);
    // A key scoped to a deployment reaches the one it names, not another.
    const scoped = await createKey(server, { name: 'agents on A', deploymentIds: [deployment] });
    expect((await createAgent(deployment, scoped.key)).statusCode).toBe(200);
    const outside = await createAgent(other, scoped.key);
    expect(outside.statusCode).toBe(403);
    expect(outside.json().code).toBe('deployment_out_of_scope');
    // Without the role, a viewer is refused before the body is read.
    await call('DELETE', `/api/v1/roles/${role.id}`);
    expect((await call('POST', '/api/v1/agents', { name: 'x' }, viewer.key)).statusCode).toBe(403);
    expect((await createAgent(deployment, viewer.key)).statusCode).toBe(403);
  });
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
