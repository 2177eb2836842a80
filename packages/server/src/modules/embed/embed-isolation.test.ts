import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { generateApiKey } from '../../auth/credentials.ts';
import { sha256 } from '../../crypto/secrets.ts';
import { embedApi } from './test-support.ts';

/**
 * Spec 4.3 and section 7, the edges the other embed tests leave: a refused session request changes
 * nothing; global groups stay out of an embed tenant's own groups; an embed tenant's token reads no
 * rows of a dashboard shared with another tenant; an account can neither revoke nor read another
 * account's sessions and dashboards; embed routes refuse a missing or foreign credential.
 */
describe('embedding: isolation and refusals that change nothing', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  let deploymentId: number;
  const host = 'default.tessera.test';
  const foreignHost = 'other.tessera.test';
  let foreignKey: string;

  /** Every row embedding writes, so that a refused request can be shown to have written none. */
  const fingerprint = async () => {
    const db = server.store.db;
    const [tenants, groups, users, members, userGroups, sessions, globals] = await Promise.all([
      db.selectFrom('embed_tenants').selectAll().orderBy('id').execute(),
      db.selectFrom('embed_groups').selectAll().orderBy('id').execute(),
      db.selectFrom('embed_users').selectAll().orderBy('id').execute(),
      db.selectFrom('embed_group_members').selectAll().execute(),
      db.selectFrom('embed_user_groups').selectAll().execute(),
      db.selectFrom('embed_sessions').select(['id', 'redeemed_at', 'revoked_at']).orderBy('id').execute(),
      db.selectFrom('groups').select(['id', 'name']).orderBy('id').execute(),
    ]);
    return JSON.stringify({ tenants, groups, users, members, userGroups, sessions, globals });
  };

  beforeAll(async () => {
    server = await startTestServer({ domain: 'tessera.test' });
    api = embedApi(server, server.adminKey, host);
    deploymentId = server.demoDeploymentId;
    await api.send('POST', '/api/v1/groups', { name: 'sales' });
    for (const name of ['red', 'blue']) await api.send('POST', '/api/v1/embed-tenants', { name });
    // A second account with an admin key of its own, as `tessera create-tenant` makes it.
    const repos = server.services.repositories;
    const other = await repos.tenants.create({ name: 'other', displayName: 'Other', customDomain: null });
    const admin = await repos.users.insert(other.id, {
      email: 'admin@other',
      username: 'admin@other',
      role: 'admin',
    });
    const generated = generateApiKey();
    await repos.apiKeys.insert({
      tenantId: other.id,
      userId: admin.id,
      name: 'other admin',
      kind: 'api',
      hash: generated.hash,
      prefix: generated.prefix,
      deploymentIds: null,
      expiresAt: null,
    });
    foreignKey = generated.key;
    server.services.tenantResolver.invalidate();
  });
  afterAll(() => server?.close());

  /** publishSimpleBoard on this account's host: one SQL widget `w1`. */
  const publish = async (allowEmbed: boolean) => {
    const d = `/api/v1/deployments/${deploymentId}`;
    const wb = (
      await api.send('POST', `${d}/workbooks`, { name: `Board ${Math.random().toString(36).slice(2, 8)}` })
    ).body;
    const report = (
      await api.send('POST', `${d}/reports`, { name: 'one', sqlQuery: 'SELECT 1', workbookId: wb.id })
    ).body;
    const board = await api.send('POST', `${d}/workbooks/${wb.id}/publish`, {
      workbookId: wb.id,
      allowEmbed,
      config: {
        widgets: [{ id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: report.id } }],
      },
    });
    if (board.status !== 200) throw new Error(`publish: ${board.status} ${JSON.stringify(board.body)}`);
    return { workbookId: wb.id as number, publicId: board.body.publicId as string };
  };

  /** A session generated and redeemed on this account's host. */
  const tokenFor = async (body: Record<string, unknown>) => {
    const session = await api.generate(body);
    if (session.status !== 200)
      throw new Error(`generate-session: ${session.status} ${JSON.stringify(session.body)}`);
    return (await api.redeem(session.body.sessionId)).body.token as string;
  };

  it('writes nothing for a session request it refuses, and names the field', async () => {
    const before = await fingerprint();
    const cases: [Record<string, unknown>, number, string][] = [
      [
        { embedTenantName: 'red', tenantGroupDefinitions: [{ name: 'ops' }] },
        400,
        'body/tenantGroupDefinitions',
      ],
      [{ creatorMode: true, embedTenantName: 'green', tenantGroups: ['nobody'] }, 400, 'body/tenantGroups/0'],
      [{ embedTenantName: 'green', groups: ['sales', 'ghosts'] }, 400, 'body/groups/1'],
      [
        { embedTenantName: 'green', externalId: 'x', userAttributes: [{ name: 'country', value: 'DE' }] },
        400,
        'body/userAttributes/0/name',
      ],
      [
        { embedTenantName: 'green', securityContext: { serviceCloud: {} } },
        400,
        'body/securityContext/serviceCloud',
      ],
      [{ embedTenantName: 'Green' }, 400, 'body/embedTenantName'],
    ];
    for (const [body, status, field] of cases) {
      const res = await api.generate({ deploymentId, externalId: 'refused', ...body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    const missing = await api.generate({ deploymentId, embedTenantName: 'green', publicDashboardId: 'nope' });
    expect(missing.status).toBe(404);
    expect(await fingerprint()).toBe(before);
  });

  it("keeps global groups out of an embed tenant's groups, whatever its sessions carry", async () => {
    const session = await api.generate({
      deploymentId,
      externalId: 'mixer',
      creatorMode: true,
      embedTenantName: 'red',
      groups: ['sales'],
      tenantGroups: ['editors'],
      tenantGroupDefinitions: [{ name: 'editors' }],
    });
    expect(session.status).toBe(200);
    const red = await api.send('GET', '/api/v1/embed-tenants/red/groups');
    expect(red.body.items.map((g: { name: string }) => g.name)).toEqual(['editors']);
    const blue = await api.send('GET', '/api/v1/embed-tenants/blue/groups');
    expect(blue.body.items).toEqual([]);
    const members = await api.send('GET', `/api/v1/embed-tenants/red/groups/${red.body.items[0].id}/users`);
    expect(members.status).toBe(200);
    expect(JSON.stringify(members.body)).toContain('mixer');
    // Another tenant cannot reach red's group by its id.
    const across = await api.send('GET', `/api/v1/embed-tenants/blue/groups/${red.body.items[0].id}`);
    expect(across.status).toBe(404);
  });

  it('reads no rows of a dashboard shared with another embed tenant, and no dashboard of another account', async () => {
    const board = await publish(false);
    const shared = await api.send(
      'PUT',
      `/api/v1/deployments/${deploymentId}/workbooks/${board.workbookId}/embed-access`,
      { embedTenantName: 'red', action: 'read' },
    );
    expect(shared.status).toBe(200);
    const creator = (tenant: string) =>
      tokenFor({ deploymentId, creatorMode: true, embedTenantName: tenant, externalId: `${tenant}-1` });
    const rows = async (token: string) => {
      const res = await server.app.inject({
        method: 'POST',
        url: `/api/v1/deployments/${deploymentId}/dashboards/${board.publicId}/widgets/w1/data`,
        headers: { ...bearer(token), host },
        payload: {},
      });
      return { status: res.statusCode, body: res.json() };
    };
    const red = await rows(await creator('red'));
    expect(red.status).toBe(200);
    expect(red.body.data.length).toBeGreaterThan(0);
    const blue = await rows(await creator('blue'));
    expect([blue.status, blue.body.code]).toEqual([403, 'embedding_not_allowed']);
    expect(JSON.stringify(blue.body)).not.toContain('"data"');

    // The other account's admin key: no such dashboard, and no embeddable one listed.
    const foreign = embedApi(server, foreignKey, foreignHost);
    const read = await foreign.send('GET', `/api/v1/embed/dashboard/${board.publicId}`);
    expect(read.status).toBe(404);
    expect((await foreign.send('GET', '/api/v1/embed')).body.items).toEqual([]);
    expect((await foreign.send('GET', '/api/v1/embed-tenants')).body.items).toEqual([]);
    expect((await foreign.send('GET', '/api/v1/embed-tenants/red/groups')).status).toBe(404);
  });

  it("neither revokes nor redeems into another account's sessions", async () => {
    const { sessionId } = (await api.generate({ deploymentId, externalId: 'kept' })).body;
    const foreign = embedApi(server, foreignKey, foreignHost);
    expect((await foreign.revoke(sessionId)).status).toBe(204);
    const row = await server.store.db
      .selectFrom('embed_sessions')
      .select('revoked_at')
      .where('session_hash', '=', sha256(sessionId))
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
    // The other account cannot make sessions on this account's deployment either.
    const made = await foreign.generate({ deploymentId, externalId: 'intruder' });
    expect(made.status).toBe(404);
    const { token } = (await api.redeem(sessionId)).body;
    const dashboards = await foreign.send('GET', '/api/v1/embed');
    expect(dashboards.status).toBe(200);
    const board = await publish(true);
    const onForeignHost = await server.app.inject({
      url: `/api/v1/embed/dashboard/${board.publicId}`,
      headers: { ...bearer(token), host: foreignHost },
    });
    expect([onForeignHost.statusCode, onForeignHost.json().code]).toEqual([401, 'credential_invalid']);
  });

  it('answers 401 on embed routes to a missing, malformed or unknown credential', async () => {
    const board = await publish(true);
    const url = `/api/v1/embed/dashboard/${board.publicId}`;
    const cases: [Record<string, string>, string][] = [
      [{}, 'credential_missing'],
      [{ authorization: 'Token abc' }, 'credential_malformed'],
      [{ authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' }, 'credential_invalid'],
      [bearer(foreignKey), 'credential_invalid'],
    ];
    for (const [headers, code] of cases) {
      const res = await server.app.inject({ url, headers: { ...headers, host } });
      expect([res.statusCode, res.json().code], JSON.stringify(headers)).toEqual([401, code]);
    }
  });
});
