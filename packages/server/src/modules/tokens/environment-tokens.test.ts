import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { sampleModelFiles } from '../../datasources/sample/model-files.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const germany = { serviceCloud: { userAttributes: { country: 'DE' } } };
const byCountry = { measures: ['customers.count'], dimensions: ['customers.country'] };
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

/**
 * Issue 25 item 1, the reference's Environments tokens: a token reads its environment's model
 * branch, carries the security context it was given, calls only the operations its scopes open (a
 * meta-sync token: metadata only), lives at most an hour, and is listed without its secret.
 */
describe('environment tokens', () => {
  let server: TestServer;
  let developer: Awaited<ReturnType<typeof userWithKey>>;
  let production: number;
  let development: number;
  let dataBase: string;
  const envs = () => `/api/v1/deployments/${server.demoDeploymentId}/environments`;

  const issue = (environmentId: number, payload: unknown, suffix = 'tokens', key = developer.key) =>
    server.app.inject({
      method: 'POST',
      url: `${envs()}/${environmentId}/${suffix}`,
      headers: bearer(key),
      payload: payload as Record<string, unknown>,
    });
  const data = (op: string, token: string, payload?: unknown) =>
    server.app.inject({
      method: payload === undefined ? 'GET' : 'POST',
      url: `${dataBase}/${op}`,
      headers: { authorization: token },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const countries = (res: { json(): { data: Record<string, string>[] } }) =>
    res.json().data.map((r) => r['customers.country']);

  beforeAll(async () => {
    server = await startTestServer();
    dataBase = `/data/${server.demoDeploymentId}/cubejs-api/v1`;
    developer = await userWithKey(server, 'developer');
    // A development branch whose customers cube lost its access policy, and its environment.
    const dm = `/build/api/v1/deployments/${server.demoDeploymentId}`;
    const customers = sampleModelFiles().find((f) => f.path === 'model/customers.yml')!.content;
    const open = customers.slice(0, customers.indexOf('    access_policy:'));
    for (const [method, url, payload] of [
      ['POST', `${dm}/branches`, { name: 'open' }],
      [
        'PUT',
        `${dm}/data-model/files`,
        { branchName: 'open', files: [{ path: 'model/customers.yml', content: open }] },
      ],
    ] as const) {
      const res = await server.app.inject({ method, url, headers: bearer(developer.key), payload });
      expect(res.statusCode, res.body).toBe(200);
    }
    await server.services.repositories.deployments.addEnvironment({
      deploymentId: server.demoDeploymentId,
      type: 'development',
      branch: 'open',
      userId: developer.user.id,
    });
    const listed = await server.app.inject({ url: envs(), headers: bearer(developer.key) });
    const items = listed.json().items as { id: string; type: string }[];
    production = Number(items.find((e) => e.type === 'production')!.id);
    development = Number(items.find((e) => e.type === 'development')!.id);
  });
  afterAll(() => server?.close());

  it("issues a token that reads the environment's branch under its security context", async () => {
    const prod = await issue(production, { security_context: germany });
    expect(prod.statusCode, prod.body).toBe(200);
    const { data: token } = prod.json();
    expect(token).toMatchObject({ security_context: germany, branch: 'main', scopes: null });
    const lifetime = Date.parse(token.expires_at) - Date.parse(token.created_at);
    expect(lifetime).toBeGreaterThan(3_590_000);
    expect(lifetime).toBeLessThanOrEqual(3_601_000);
    expect(countries(await data('load', token.token, { query: byCountry }))).toEqual(['DE']);

    const dev = (await issue(development, { security_context: germany, expires_in: 600 })).json().data;
    expect(dev.branch).toBe('open');
    expect(claimsOf(dev.token).tessera).toEqual({ branch: 'open' });
    const exp = claimsOf(dev.token).exp - claimsOf(dev.token).iat;
    expect(exp).toBe(600);
    // The branch without the policy: every country, as that branch's model says.
    expect(countries(await data('load', dev.token, { query: byCountry })).length).toBeGreaterThan(1);
  });

  it('limits a token to the operations its scopes open, and a meta-sync token to metadata', async () => {
    const meta = (await issue(production, { security_context: germany, scopes: ['meta'] })).json().data;
    expect((await data('meta', meta.token)).statusCode).toBe(200);
    const refused = await data('load', meta.token, { query: byCountry });
    expect(refused.statusCode).toBe(403);
    expect(Object.keys(refused.json())).toEqual(['error']);

    const dataOnly = (await issue(production, { security_context: germany, scopes: ['data'] })).json().data;
    expect((await data('load', dataOnly.token, { query: byCountry })).statusCode).toBe(200);
    expect((await data('sql', dataOnly.token, { query: byCountry })).statusCode).toBe(200);
    expect((await data('meta', dataOnly.token)).statusCode).toBe(403);

    const sync = await issue(development, { security_context: {} }, 'tokens-for-meta-sync');
    expect(sync.statusCode, sync.body).toBe(200);
    const syncToken = sync.json().data;
    expect(syncToken).toMatchObject({ scopes: ['meta'], branch: 'open' });
    expect(claimsOf(syncToken.token).tessera).toEqual({ branch: 'open', operations: ['meta'] });
    const names = (await data('meta', syncToken.token)).json().cubes.map((c: { name: string }) => c.name);
    expect(names).toContain('customers');
    expect((await data('load', syncToken.token, { query: byCountry })).statusCode).toBe(403);
    expect((await data('cubesql', syncToken.token, { query: 'SELECT 1' })).statusCode).toBe(403);
    const wider = await issue(
      production,
      { security_context: {}, scopes: ['meta', 'data'] },
      'tokens-for-meta-sync',
    );
    expect(wider.statusCode).toBe(400);
    expect(wider.json().errors).toEqual([expect.objectContaining({ field: 'body/scopes/1' })]);
  });

  it('lists live tokens newest first, never the token itself', async () => {
    const issued = (await issue(production, { security_context: { marker: 'newest' } })).json().data
      .token as string;
    const res = await server.app.inject({
      url: `${envs()}/${production}/tokens?limit=2`,
      headers: bearer(developer.key),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toHaveLength(2);
    expect(body.data).toEqual(body.items);
    expect(body.items[0]).toMatchObject({
      security_context: { marker: 'newest' },
      token: `…${issued.slice(-8)}`,
    });
    expect(res.body).not.toContain(issued);
    expect(body.pagination).toMatchObject({ offset: 0, limit: 2 });
    expect(body.pagination.total).toBeGreaterThanOrEqual(4);
    const next = await server.app.inject({
      url: `${envs()}/${production}/tokens?first=2&after=${body.pageInfo.endCursor}`,
      headers: bearer(developer.key),
    });
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().pageInfo.hasPreviousPage).toBe(true);
    const seen = new Set(body.items.map((t: { token: string }) => t.token));
    expect(next.json().items.some((t: { token: string }) => seen.has(t.token))).toBe(false);
  });

  it('refuses what it must and writes nothing then', async () => {
    const count = async () =>
      (await server.store.db.selectFrom('environment_tokens').select('id').execute()).length;
    const before = await count();
    const cases: [unknown, string][] = [
      [{}, 'body/security_context'],
      [{ security_context: { tessera: { branch: 'main' } } }, 'body/security_context/tessera'],
      [{ security_context: { exp: 1 } }, 'body/security_context/exp'],
      [{ security_context: {}, expires_in: 3601 }, 'body/expires_in'],
      [{ security_context: {}, scopes: ['graphql'] }, 'body/scopes/0'],
    ];
    for (const [payload, field] of cases) {
      const res = await issue(production, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(
        res.json().errors.map((e: { field: string }) => e.field),
        JSON.stringify(payload),
      ).toContain(field);
    }
    expect((await issue(999999, { security_context: {} })).json().code).toBe('environment_not_found');
    const viewer = await userWithKey(server, 'viewer');
    expect((await issue(production, { security_context: {} }, 'tokens', viewer.key)).statusCode).toBe(403);
    expect(await count()).toBe(before);
  });
});
