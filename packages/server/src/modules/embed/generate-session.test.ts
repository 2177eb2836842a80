import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { sha256 } from '../../crypto/secrets.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { claimsOf, embedApi, embedToken, publishSimpleBoard } from './test-support.ts';

const fields = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

/** Spec 4.3: every field and rule of generate-session, observed through the API and the token it leads to. */
describe('POST /api/v1/embed/generate-session', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  let deploymentId: number;
  const tokenOf = async (body: Record<string, unknown>) =>
    claimsOf(await embedToken(server, { deploymentId, ...body })).embed;

  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
    deploymentId = server.demoDeploymentId;
    for (const name of ['sales', 'Finance']) await api.send('POST', '/api/v1/groups', { name });
  });
  afterAll(() => server?.close());

  it('answers a 32-hex session id, stored only as its SHA-256', async () => {
    const res = await api.generate({ deploymentId, externalId: 'ada' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['sessionId']);
    expect(res.body.sessionId).toMatch(/^[0-9a-f]{32}$/);
    const rows = await server.store.db.selectFrom('embed_sessions').select('session_hash').execute();
    expect(rows.map((r) => r.session_hash)).toContain(sha256(res.body.sessionId));
    expect(JSON.stringify(rows)).not.toContain(res.body.sessionId);
  });

  it('needs a deploymentId the caller can read, and an admin', async () => {
    const missing = await api.generate({ externalId: 'ada' });
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toContain('body/deploymentId');
    const unknown = await api.generate({ deploymentId: 999_999 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('deployment_not_found');

    const other = await newDeployment(server, 'other');
    const scoped = await createKey(server, { name: 'scoped', deploymentIds: [other] });
    const outOfScope = await embedApi(server, scoped.key).generate({ deploymentId });
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.body.code).toBe('deployment_out_of_scope');
    expect((await embedApi(server, scoped.key).generate({ deploymentId: other })).status).toBe(200);

    const developer = await userWithKey(server, 'developer');
    const refused = await embedApi(server, developer.key).generate({ deploymentId });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_role');
  });

  it('is on by default and answers 403 while embedding is turned off (rule 4)', async () => {
    expect((await api.send('GET', '/api/v1/embed/settings')).body.enabled).toBe(true);
    expect((await api.send('PUT', '/api/v1/embed/settings', { enabled: false })).status).toBe(200);
    try {
      const off = await api.generate({ deploymentId, externalId: 'ada' });
      expect(off.status).toBe(403);
      expect(off.body.code).toBe('embedding_disabled');
    } finally {
      await api.send('PUT', '/api/v1/embed/settings', { enabled: true });
    }
    expect((await api.generate({ deploymentId, externalId: 'ada' })).status).toBe(200);
  });

  it('places existing global groups verbatim at serviceCloud.groups (rule 1)', async () => {
    const claim = await tokenOf({ externalId: 'ada', groups: ['Finance', 'sales'] });
    expect(claim.securityContext.serviceCloud.groups).toEqual(['Finance', 'sales']);
  });

  it('refuses every unknown global group by name and never creates one (rule 1, section 7)', async () => {
    const before = await server.store.db.selectFrom('groups').select('name').execute();
    const res = await api.generate({ deploymentId, groups: ['sales', 'ghosts', 'finance', 'phantoms'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unknown_group');
    // `finance` is not `Finance`: names resolve as written.
    expect(fields(res.body)).toEqual(['body/groups/1', 'body/groups/2', 'body/groups/3']);
    expect(res.body.errors[0].message).toContain('ghosts');
    expect(await server.store.db.selectFrom('groups').select('name').execute()).toEqual(before);
    const ignored = await api.generate({
      deploymentId,
      groupDefinitions: [{ name: 'made-up', description: 'x' }],
    });
    expect(ignored.status).toBe(200);
    expect(await server.store.db.selectFrom('groups').select('name').execute()).toEqual(before);
  });

  it('namespaces tenant groups and needs creatorMode and embedTenantName for them (rule 2)', async () => {
    const claim = await tokenOf({
      externalId: 'bob',
      creatorMode: true,
      embedTenantName: 'acme',
      groups: ['sales'],
      tenantGroups: ['sales', 'ops'],
      tenantGroupDefinitions: [{ name: 'sales' }, { name: 'ops', description: 'Operations' }],
    });
    expect(claim.securityContext.serviceCloud.groups).toEqual([
      'sales',
      'system:tenant:acme:group:sales',
      'system:tenant:acme:group:ops',
    ]);
    expect(claim.embedTenantName).toBe('acme');
    expect(claim.creatorMode).toBe(true);

    const noCreator = await api.generate({ deploymentId, embedTenantName: 'acme', tenantGroups: ['ops'] });
    expect(noCreator.status).toBe(400);
    expect(fields(noCreator.body)).toEqual(['body/tenantGroups']);
    const noTenant = await api.generate({
      deploymentId,
      creatorMode: true,
      tenantGroups: ['ops'],
      tenantGroupDefinitions: [{ name: 'ops' }],
    });
    expect(noTenant.status).toBe(400);
    expect(fields(noTenant.body)).toEqual([
      'body/tenantGroups',
      'body/tenantGroupDefinitions',
      'body/embedTenantName',
    ]);
    const unknown = await api.generate({
      deploymentId,
      creatorMode: true,
      embedTenantName: 'acme',
      tenantGroups: ['ops', 'nobody'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_group');
    expect(fields(unknown.body)).toEqual(['body/tenantGroups/1']);
    // Another embed tenant does not see acme's groups.
    const elsewhere = await api.generate({
      deploymentId,
      creatorMode: true,
      embedTenantName: 'globex',
      tenantGroups: ['ops'],
    });
    expect(elsewhere.status).toBe(400);
    expect(fields(elsewhere.body)).toEqual(['body/tenantGroups/0']);
  });

  it('creates or updates tenant groups idempotently, once under parallel identical calls', async () => {
    const body = {
      deploymentId,
      externalId: 'carol',
      creatorMode: true,
      embedTenantName: 'initech',
      tenantGroups: ['printers'],
      tenantGroupDefinitions: [{ name: 'printers', description: 'v1' }, { name: 'staplers' }],
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.generate(body)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const list = async () =>
      (await api.send('GET', '/api/v1/embed-tenants/initech/groups')).body.items.map(
        (g: { name: string; description: string | null; userCount: number }) => [
          g.name,
          g.description,
          g.userCount,
        ],
      );
    expect(await list()).toEqual([
      ['staplers', null, 0],
      ['printers', 'v1', 1],
    ]);
    const tenants = await api.send('GET', '/api/v1/embed-tenants?search=initech');
    expect(tenants.body.items).toEqual([expect.objectContaining({ name: 'initech', userCount: 1 })]);
    await api.generate({ ...body, tenantGroupDefinitions: [{ name: 'printers', description: 'v2' }] });
    expect(await list()).toEqual([
      ['staplers', null, 0],
      ['printers', 'v2', 1],
    ]);
    const reserved = await api.generate({ ...body, tenantGroupDefinitions: [{ name: 'system:root' }] });
    expect(reserved.status).toBe(400);
    expect(fields(reserved.body)).toEqual(['body/tenantGroupDefinitions/0/name']);
  });

  it('checks embedTenantName against ^[a-z][a-z0-9-]{0,34}[a-z0-9]$ (rule 5)', async () => {
    for (const bad of ['Acme', 'a', '1acme', 'acme-', 'ac_me', `a${'b'.repeat(36)}`]) {
      const res = await api.generate({ deploymentId, embedTenantName: bad });
      expect(res.status, bad).toBe(400);
      expect(fields(res.body), bad).toContain('body/embedTenantName');
    }
    for (const good of ['ab', 'acme-corp-2', `a${'b'.repeat(35)}`])
      expect((await api.generate({ deploymentId, embedTenantName: good })).status, good).toBe(200);
  });

  it('checks user attributes against their definitions and exposes them at serviceCloud.userAttributes', async () => {
    const definitions = [
      { name: 'country', displayName: 'Country', description: 'ISO code' },
      { name: 'level', type: 'number', defaultValue: '3' },
      { name: 'regions', type: 'string_array' },
    ];
    const claim = await tokenOf({
      externalId: 'dora',
      userAttributeDefinitions: definitions,
      userAttributes: [
        { name: 'country', value: 'DE' },
        { name: 'regions', value: ['north', 'west'] },
      ],
    });
    expect(claim.securityContext.serviceCloud.userAttributes).toEqual({
      country: 'DE',
      level: 3,
      regions: ['north', 'west'],
    });
    const bad = await api.generate({
      deploymentId,
      userAttributeDefinitions: definitions,
      userAttributes: [
        { name: 'country', value: 7 },
        { name: 'planet', value: 'Mars' },
        { name: 'team', value: 'red' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(fields(bad.body)).toEqual([
      'body/userAttributes/0/value',
      'body/userAttributes/1/name',
      'body/userAttributes/2/name',
    ]);
    const undefinedOnly = await api.generate({
      deploymentId,
      userAttributes: [{ name: 'unheard_of', value: 'DE' }],
    });
    expect(undefinedOnly.status).toBe(400);
    expect(fields(undefinedOnly.body)).toEqual(['body/userAttributes/0/name']);
    // The first session's definitions became the account's (issue 22 item 3): later sessions use them.
    const stored = await tokenOf({ externalId: 'dora', userAttributes: [{ name: 'country', value: 'FR' }] });
    expect(stored.securityContext.serviceCloud.userAttributes).toEqual({ country: 'FR' });
  });

  it('merges securityContext but keeps the server-owned keys its own', async () => {
    const claim = await tokenOf({
      externalId: 'erin',
      groups: ['sales'],
      securityContext: { tenant: 't-9', region: 'eu' },
    });
    expect(claim.securityContext).toEqual({
      tenant: 't-9',
      region: 'eu',
      serviceCloud: { groups: ['sales'] },
    });
    const clash = await api.generate({
      deploymentId,
      securityContext: { serviceCloud: { groups: ['admin'] }, tessera: { branch: 'dev' }, exp: 1 },
    });
    expect(clash.status).toBe(400);
    expect(fields(clash.body)).toEqual([
      'body/securityContext/serviceCloud',
      'body/securityContext/tessera',
      'body/securityContext/exp',
    ]);
  });

  it('carries identity, profile, theme, roles and the tri-state showDashboardChat in the token', async () => {
    const theme = { primaryColor: '#123456', font: 'Inter', chat: { inputColor: '#fff' } };
    const claim = await tokenOf({
      externalId: '  Frank@Example.COM ',
      email: 'frank@example.com',
      internalId: 'crm-42',
      roles: ['viewer', 'exporter'],
      userProfile: { displayName: 'Frank', picture: 'https://example.com/f.png' },
      embedTenantName: 'hooli',
      embedTenantProfile: { displayName: 'Hooli Inc.' },
      embedTheme: theme,
      settings: { showDashboardChat: false },
    });
    expect(claim).toMatchObject({
      externalId: 'frank@example.com',
      email: 'frank@example.com',
      internalId: 'crm-42',
      roles: ['viewer', 'exporter'],
      userProfile: { displayName: 'Frank', picture: 'https://example.com/f.png' },
      embedTenantProfile: { displayName: 'Hooli Inc.' },
      theme,
      deploymentId,
      settings: { showDashboardChat: false },
    });
    expect((await api.send('GET', '/api/v1/embed-tenants/hooli')).body.displayName).toBe('Hooli Inc.');
    // Omitted: the account-wide setting when the session is redeemed.
    expect((await tokenOf({ externalId: 'frank' })).settings.showDashboardChat).toBe(true);
    await api.send('PUT', '/api/v1/embed/settings', { showDashboardChat: false });
    try {
      expect((await tokenOf({ externalId: 'frank' })).settings.showDashboardChat).toBe(false);
      expect(
        (await tokenOf({ externalId: 'frank', settings: { showDashboardChat: true } })).settings,
      ).toEqual({
        showDashboardChat: true,
      });
    } finally {
      await api.send('PUT', '/api/v1/embed/settings', { showDashboardChat: true });
    }
  });

  it('restricts a session to publicDashboardId, which must exist and allow embedding', async () => {
    const open = await publishSimpleBoard(server, deploymentId, true);
    const closed = await publishSimpleBoard(server, deploymentId, false);
    expect((await tokenOf({ publicDashboardId: open.publicId })).publicDashboardId).toBe(open.publicId);
    const refused = await api.generate({ deploymentId, publicDashboardId: closed.publicId });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('embedding_not_allowed');
    const unknown = await api.generate({ deploymentId, publicDashboardId: 'no-such-board' });
    expect(unknown.status).toBe(404);
    const other = await newDeployment(server, 'elsewhere');
    const wrongDeployment = await api.generate({ deploymentId: other, publicDashboardId: open.publicId });
    expect(wrongDeployment.status).toBe(404);
  });

  it('creates or reuses one embed user per embed tenant and external id, ephemeral for a week by default', async () => {
    const users = () =>
      server.store.db
        .selectFrom('embed_users')
        .select(['id', 'embed_tenant_id', 'expires_at'])
        .where('external_id', '=', 'gina')
        .orderBy('id')
        .execute();
    const body = { deploymentId, externalId: 'gina', embedTenantName: 'umbrella' };
    await Promise.all(Array.from({ length: 5 }, () => api.generate(body)));
    const [first] = await users();
    expect(await users()).toHaveLength(1);
    const week = 7 * 86_400_000;
    expect(Math.abs((first.expires_at as Date).getTime() - Date.now() - week)).toBeLessThan(60_000);
    await api.generate({ ...body, embedTenantName: 'wayne' });
    expect((await users()).map((u) => u.embed_tenant_id)).toHaveLength(2);
    await api.generate({ ...body, isEphemeral: false });
    expect((await users())[0]).toMatchObject({ id: first.id, expires_at: null });
    // An omitted flag keeps a permanent user permanent.
    await api.generate(body);
    expect((await users())[0].expires_at).toBeNull();
    const claim = await tokenOf({ ...body, isEphemeral: true });
    expect(claim.isEphemeral).toBe(true);
    expect((await users())[0].expires_at).not.toBeNull();
  });
});
