import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedApi, embedToken, publishSimpleBoard } from '../embed/test-support.ts';

const fields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);
const names = (page: { items: { name: string }[] }) => page.items.map((i) => i.name);

/** The reference's Embed Tenants group: tenants, their groups and members, their users. */
describe('embed tenants, groups and users', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
  });
  afterAll(() => server?.close());

  it('creates, lists, reads and deletes tenants with everything inside', async () => {
    const made = await api.send('POST', '/api/v1/embed-tenants', { name: 'alpha', displayName: 'Alpha' });
    expect(made.body).toMatchObject({ name: 'alpha', displayName: 'Alpha', userCount: 0 });
    await api.send('POST', '/api/v1/embed-tenants', { name: 'beta' });
    expect(names((await api.send('GET', '/api/v1/embed-tenants?search=ALP')).body)).toEqual(['alpha']);
    const paged = await api.send('GET', '/api/v1/embed-tenants?first=1');
    expect(paged.body.pageInfo.hasNextPage).toBe(true);
    const next = await api.send(
      'GET',
      `/api/v1/embed-tenants?first=1&after=${paged.body.pageInfo.endCursor}`,
    );
    expect(names(next.body)).toEqual(['beta']);
    expect((await api.send('GET', '/api/v1/embed-tenants/ALPHA')).body.name).toBe('alpha');
    expect((await api.send('GET', '/api/v1/embed-tenants/gamma')).body.code).toBe('embed_tenant_not_found');

    await api.generate({ deploymentId: server.demoDeploymentId, externalId: 'u1', embedTenantName: 'alpha' });
    expect((await api.send('GET', '/api/v1/embed-tenants/alpha')).body.userCount).toBe(1);
    const wrongCase = await api.send('DELETE', '/api/v1/embed-tenants/Alpha');
    expect(wrongCase.status).toBe(400);
    expect(fields(wrongCase.body)).toEqual(['params/embedTenantName']);
    expect((await api.send('DELETE', '/api/v1/embed-tenants/alpha')).status).toBe(204);
    expect((await api.send('DELETE', '/api/v1/embed-tenants/alpha')).status).toBe(204);
    const left = await server.store.db.selectFrom('embed_users').select('external_id').execute();
    expect(left.map((u) => u.external_id)).not.toContain('u1');
  });

  it("keeps each tenant's groups to itself; names are unique, immutable and never system:", async () => {
    const a = await api.send('POST', '/api/v1/embed-tenants/north/groups', { name: 'x' });
    expect(a.body.code).toBe('embed_tenant_not_found');
    await api.send('POST', '/api/v1/embed-tenants', { name: 'north' });
    await api.send('POST', '/api/v1/embed-tenants', { name: 'south' });
    const first = (
      await api.send('POST', '/api/v1/embed-tenants/north/groups', { name: 'ops', description: 'd' })
    ).body;
    await api.send('POST', '/api/v1/embed-tenants/north/groups', { name: 'sales' });
    await api.send('POST', '/api/v1/embed-tenants/south/groups', { name: 'ops' });
    expect(names((await api.send('GET', '/api/v1/embed-tenants/north/groups')).body)).toEqual([
      'sales',
      'ops',
    ]);
    expect(names((await api.send('GET', '/api/v1/embed-tenants/south/groups')).body)).toEqual(['ops']);
    expect((await api.send('GET', `/api/v1/embed-tenants/south/groups/${first.id}`)).status).toBe(404);

    for (const name of ['ops', 'system:all']) {
      const taken = await api.send('POST', '/api/v1/embed-tenants/north/groups', { name });
      expect([taken.status, taken.body.code]).toEqual([400, 'embed_group_name_unavailable']);
    }
    const renamed = await api.send('PATCH', `/api/v1/embed-tenants/north/groups/${first.id}`, {
      name: 'devops',
    });
    expect(fields(renamed.body)).toEqual(['body/name']);
    const cleared = await api.send('PATCH', `/api/v1/embed-tenants/north/groups/${first.id}`, {
      description: '',
    });
    expect(cleared.body).toEqual({ id: first.id, name: 'ops', description: null, userCount: 0 });
  });

  it('adds and removes members by externalId or embedUserId, provisioning unknown external ids', async () => {
    await api.send('POST', '/api/v1/embed-tenants', { name: 'east' });
    const group = (await api.send('POST', '/api/v1/embed-tenants/east/groups', { name: 'crew' })).body;
    const url = `/api/v1/embed-tenants/east/groups/${group.id}`;
    const added = await api.send('POST', `${url}/users`, {
      members: [{ externalId: 'Zoe' }, { externalId: 'yan' }],
    });
    expect(added.body.addedMembers.map((u: { externalId: string }) => u.externalId).sort()).toEqual([
      'yan',
      'zoe',
    ]);
    const zoe = added.body.addedMembers.find((u: { externalId: string }) => u.externalId === 'zoe');
    const again = await api.send('POST', `${url}/users`, { members: [{ embedUserId: zoe.id }] });
    expect(again.body).toEqual({ addedMembers: [], unchangedMembers: [zoe] });
    const listed = await api.send('GET', `${url}/users`);
    expect(listed.body.items).toHaveLength(2);
    const both = await api.send('POST', `${url}/users`, {
      members: [{ externalId: 'a', embedUserId: 1 }, {}],
    });
    expect(fields(both.body)).toEqual(['body/members/0', 'body/members/1']);
    const ghost = await api.send('POST', `${url}/users`, { members: [{ embedUserId: 999_999 }] });
    expect([ghost.status, ghost.body.code]).toEqual([404, 'embed_user_not_found']);

    expect((await api.send('DELETE', url)).body.code).toBe('embed_group_not_empty');
    expect(
      (await api.send('DELETE', `${url}/users`, { members: [{ externalId: 'zoe' }, { externalId: 'yan' }] }))
        .status,
    ).toBe(204);
    expect((await api.send('GET', url)).body.userCount).toBe(0);
    expect((await api.send('DELETE', url)).status).toBe(204);
    expect((await api.send('GET', url)).status).toBe(404);
  });

  it('provisions users as the desired state, one or many, and lists them by email', async () => {
    await api.send('POST', '/api/v1/groups', { name: 'analysts' });
    await api.send('POST', '/api/v1/embed-tenants', { name: 'west' });
    await api.send('POST', '/api/v1/embed-tenants/west/groups', { name: 'field' });
    const one = await api.send('POST', '/api/v1/embed-tenants/west/user', {
      externalId: ' Quinn ',
      email: 'Quinn@Example.com',
      groups: ['analysts'],
      tenantGroups: ['field'],
      userProfile: { displayName: 'Quinn' },
    });
    expect(one.body).toMatchObject({ externalId: 'quinn', email: 'quinn@example.com', firstName: 'Quinn' });
    const same = await api.send('POST', '/api/v1/embed-tenants/west/user', {
      externalId: 'quinn',
      tenantGroups: [],
    });
    expect(same.body).toMatchObject({ id: one.body.id, email: 'quinn@example.com' });
    const bulk = await api.send('POST', '/api/v1/embed-tenants/west/users', {
      users: [
        { externalId: 'ann', email: 'ann@example.com' },
        { externalId: 'Bad', groups: ['nobody'] },
      ],
    });
    expect(bulk.body.succeeded.map((u: { externalId: string }) => u.externalId)).toEqual(['ann']);
    expect(bulk.body.failed).toEqual([
      { externalId: 'bad', error: { status: 400, message: expect.stringContaining('nobody') } },
    ]);
    const listed = await api.send('GET', '/api/v1/embed-tenants/west/users');
    expect(listed.body.items.map((u: { email: string }) => u.email)).toEqual([
      'ann@example.com',
      'quinn@example.com',
    ]);
    expect((await api.send('GET', '/api/v1/embed-tenants/west/users?search=QUI')).body.items).toHaveLength(1);
    // Provisioning creates the embed tenant on demand.
    expect((await api.send('POST', '/api/v1/embed-tenants/fresh/user', { externalId: 'x' })).status).toBe(
      200,
    );
    expect((await api.send('GET', '/api/v1/embed-tenants/fresh')).body.userCount).toBe(1);
  });
});

/**
 * Dashboard Embed Access and creator mode: a dashboard shared with one embed tenant is read by
 * that tenant's creator-mode sessions only; other tenants see neither it nor its groups.
 */
describe('dashboard embed access and tenant isolation', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  let deploymentId: number;
  const access = (workbookId: number) =>
    `/api/v1/deployments/${deploymentId}/workbooks/${workbookId}/embed-access`;
  const read = (token: string, publicId: string) =>
    server.app.inject({ method: 'GET', url: `/api/v1/embed/dashboard/${publicId}`, headers: bearer(token) });
  const creator = (tenant: string) =>
    embedToken(server, {
      deploymentId,
      creatorMode: true,
      embedTenantName: tenant,
      externalId: `${tenant}-user`,
    });

  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
    deploymentId = server.demoDeploymentId;
    for (const name of ['red', 'blue']) await api.send('POST', '/api/v1/embed-tenants', { name });
  });
  afterAll(() => server?.close());

  it('shares a dashboard with one tenant, readable by its creator-mode sessions only', async () => {
    const board = await publishSimpleBoard(server, deploymentId, false);
    expect((await api.send('GET', access(board.workbookId))).body).toEqual({
      allowEmbed: false,
      allEmbedUsers: { enabled: false, action: 'none', groupId: null },
      tenants: [],
    });
    const shared = await api.send('PUT', access(board.workbookId), {
      embedTenantName: 'red',
      action: 'read',
    });
    expect(shared.body.tenants).toEqual([
      { embedTenantName: 'red', groupId: expect.any(Number), action: 'read' },
    ]);

    expect((await read(await creator('red'), board.publicId)).statusCode).toBe(200);
    expect((await read(await creator('blue'), board.publicId)).statusCode).toBe(403);
    // Signed embedding without creator mode still needs allowEmbed.
    const signed = await embedToken(server, { deploymentId, embedTenantName: 'red' });
    expect((await read(signed, board.publicId)).statusCode).toBe(403);

    const workbooks = (tenant: string, source = '') =>
      api.send('GET', `/api/v1/deployments/${deploymentId}/embed-tenants/${tenant}/workbooks${source}`);
    expect((await workbooks('red')).body.items.map((w: { id: number }) => w.id)).toEqual([board.workbookId]);
    expect((await workbooks('blue')).body.items).toEqual([]);

    await api.send('PUT', access(board.workbookId), { allEmbedUsers: true, action: 'read' });
    expect((await read(await creator('blue'), board.publicId)).statusCode).toBe(200);
    expect((await workbooks('blue', '?accessSource=allEmbedUsers')).body.items).toHaveLength(1);
    expect((await workbooks('blue', '?accessSource=tenant')).body.items).toEqual([]);
    await api.send('PUT', access(board.workbookId), { allEmbedUsers: true, action: 'none' });
    await api.send('PUT', access(board.workbookId), { embedTenantName: 'red', action: 'none' });
    expect((await read(await creator('red'), board.publicId)).statusCode).toBe(403);
  });

  it('lists only its own groups to a tenant and namespaces them in its sessions', async () => {
    await api.generate({
      deploymentId,
      creatorMode: true,
      embedTenantName: 'red',
      tenantGroupDefinitions: [{ name: 'editors' }],
    });
    const blue = await api.send('GET', '/api/v1/embed-tenants/blue/groups');
    expect(blue.body.items).toEqual([]);
    const red = await api.send('GET', '/api/v1/embed-tenants/red/groups');
    expect(red.body.items.map((g: { name: string }) => g.name)).toEqual(['editors']);
  });

  it('validates embed access changes and toggles allowEmbed', async () => {
    const board = await publishSimpleBoard(server, deploymentId, false);
    const url = access(board.workbookId);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body'],
      [{ embedTenantName: 'red' }, 'body/action'],
      [{ action: 'read' }, 'body/action'],
      [{ embedTenantName: 'red', allEmbedUsers: true, action: 'read' }, 'body/allEmbedUsers'],
    ];
    for (const [body, field] of cases) {
      const res = await api.send('PUT', url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fields(res.body)).toContain(field);
    }
    expect((await api.send('PUT', url, { embedTenantName: 'green', action: 'read' })).body.code).toBe(
      'embed_tenant_not_found',
    );
    expect((await api.send('PUT', url, { allowEmbed: true })).body.allowEmbed).toBe(true);
    const draft = (await api.send('POST', `/api/v1/deployments/${deploymentId}/workbooks`, { name: 'draft' }))
      .body;
    const unpublished = await api.send('PUT', access(draft.id), { allowEmbed: true });
    expect([unpublished.status, unpublished.body.code]).toEqual([400, 'not_published']);
    expect((await api.send('GET', access(999_999))).status).toBe(404);
  });
});
