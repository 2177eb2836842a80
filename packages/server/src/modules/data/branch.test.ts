import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { SecretBox } from '../../crypto/secrets.ts';
import { sampleModelFiles } from '../../datasources/sample/model-files.ts';
import { cubesql } from './cubesql/test-support.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const germanyContext = { serviceCloud: { userAttributes: { country: 'DE' } } };
const byCountry = { measures: ['customers.count'], dimensions: ['customers.country'] };
const emails = { dimensions: ['customers.email'], limit: 5 };
const countrySql = 'SELECT country, MEASURE(count) FROM customers GROUP BY 1';

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
const withClaims = (token: string, claims: Record<string, unknown>) => {
  const [header, , signature] = token.split('.');
  return [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.');
};

/**
 * The model branch a data-API request reads is decided by the server from a signed claim of the
 * token (`tessera.branch`), minted only for developers; the `x-tessera-branch` header never
 * selects one. The branch `open` is a copy of main whose customers cube lost its access policy,
 * so serving it to a country-restricted token would leak every country's rows and the emails.
 */
describe('data-API model branches', () => {
  let server: TestServer;
  let base: string;
  let germany: string;
  let developer: Awaited<ReturnType<typeof userWithKey>>;

  const mint = (body: Record<string, unknown>, key = developer.key) =>
    server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/token`,
      headers: bearer(key),
      payload: body,
    });
  const branchToken = async (branch: string, body: Record<string, unknown> = {}) => {
    const res = await mint({ branch, securityContext: germanyContext, ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().serviceApiToken as string;
  };
  const call = (op: string, token: string, payload?: unknown, headers: Record<string, string> = {}) =>
    server.app.inject({
      method: payload === undefined ? 'GET' : 'POST',
      url: `${base}/${op}`,
      headers: { authorization: token, ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const countries = (body: { data: Record<string, string>[] }) =>
    body.data.map((r) => r['customers.country']);
  const dimensions = (body: { cubes: { name: string; dimensions: { name: string }[] }[] }) =>
    body.cubes.find((c) => c.name === 'customers')!.dimensions.map((d) => d.name);
  const refused = (res: { statusCode: number; json(): unknown }) => {
    expect(res.statusCode).toBe(403);
    expect(Object.keys(res.json() as object)).toEqual(['error']);
  };

  beforeAll(async () => {
    server = await startTestServer();
    base = `/data/${server.demoDeploymentId}/cubejs-api/v1`;
    germany = await tokenFor(server, server.demoDeploymentId, { securityContext: germanyContext });
    developer = await userWithKey(server, 'developer');
    // Any developer can push a branch through the data-model API; this one drops the policy.
    const dm = `/build/api/v1/deployments/${server.demoDeploymentId}`;
    const customers = sampleModelFiles().find((f) => f.path === 'model/customers.yml')!.content;
    const open = customers.slice(0, customers.indexOf('    access_policy:'));
    expect(open).not.toContain('access_policy');
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
  });
  afterAll(() => server?.close());

  describe('a production token with a foreign x-tessera-branch header is never served from that branch', () => {
    const header = { 'x-tessera-branch': 'open' };

    it('load', async () => {
      const main = await call('load', germany, { query: byCountry });
      expect(countries(main.json())).toEqual(['DE']);
      const namedMain = await call('load', germany, { query: byCountry }, { 'x-tessera-branch': 'main' });
      expect(countries(namedMain.json())).toEqual(['DE']);
      refused(await call('load', germany, { query: byCountry }, header));
      const get = await call(
        `load?query=${encodeURIComponent(JSON.stringify(byCountry))}`,
        germany,
        undefined,
        header,
      );
      refused(get);
    });

    it('meta', async () => {
      expect(dimensions((await call('meta', germany)).json())).not.toContain('customers.email');
      refused(await call('meta', germany, undefined, header));
    });

    it('sql', async () => {
      expect((await call('sql', germany, { query: emails })).statusCode).toBe(400);
      refused(await call('sql', germany, { query: emails }, header));
    });

    it('dry-run', async () => {
      expect((await call('dry-run', germany, { query: emails })).statusCode).toBe(400);
      refused(await call('dry-run', germany, { query: emails }, header));
    });

    it('cubesql', async () => {
      const main = await cubesql(server, server.demoDeploymentId, germany, countrySql);
      expect(main.rows.map((r) => r[0])).toEqual(['DE']);
      const answer = await cubesql(server, server.demoDeploymentId, germany, countrySql, header);
      expect(answer.status).toBe(403);
      expect(answer.rows).toEqual([]);
      const hidden = await cubesql(
        server,
        server.demoDeploymentId,
        germany,
        'SELECT email FROM customers',
        header,
      );
      expect(hidden.status).toBe(403);
    });
  });

  it('serves a branch to a token minted for it by a developer, on every operation', async () => {
    const token = await branchToken('open');
    expect(claimsOf(token).tessera).toEqual({ branch: 'open' });
    const load = await call('load', token, { query: byCountry });
    expect(load.statusCode, load.body).toBe(200);
    expect(countries(load.json()).length).toBeGreaterThan(1);
    expect(dimensions((await call('meta', token)).json())).toContain('customers.email');
    const sql = await call('sql', token, { query: emails });
    expect(sql.statusCode, sql.body).toBe(200);
    expect(JSON.stringify(sql.json().sql.sql[0])).toMatch(/email/);
    expect((await call('dry-run', token, { query: emails })).statusCode).toBe(200);
    const rows = await cubesql(server, server.demoDeploymentId, token, countrySql);
    expect(rows.status, rows.error ?? '').toBe(200);
    expect(rows.rows.length).toBeGreaterThan(1);
    // Naming the token's own branch in the header is allowed; naming another one is refused.
    expect((await call('load', token, { query: byCountry }, { 'x-tessera-branch': 'open' })).statusCode).toBe(
      200,
    );
    refused(await call('load', token, { query: byCountry }, { 'x-tessera-branch': 'main' }));
  });

  it('mints branch tokens short-lived and only for an existing branch', async () => {
    const token = await branchToken('open');
    const claims = claimsOf(token);
    expect(claims.exp - claims.iat).toBe(3600);
    const short = claimsOf(await branchToken('open', { expiresIn: 600 }));
    expect(short.exp - short.iat).toBe(600);
    const cases: [Record<string, unknown>, string][] = [
      [{ branch: 'open', expiresIn: 7200 }, 'body/expiresIn'],
      [{ branch: 'no-such-branch' }, 'body/branch'],
      [{ branch: 'open', securityContext: { tessera: { branch: 'open' } } }, 'body/securityContext/tessera'],
    ];
    for (const [body, field] of cases) {
      const res = await mint(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // `main` is the production branch: a plain production token, no claim.
    const production = await mint({ branch: 'main' });
    expect(production.statusCode).toBe(200);
    expect(claimsOf(production.json().serviceApiToken)).not.toHaveProperty('tessera');
  });

  it('lets neither a viewer nor a key scoped to another deployment mint a branch token', async () => {
    const viewer = await userWithKey(server, 'viewer');
    expect((await mint({ branch: 'open' }, viewer.key)).statusCode).toBe(403);
    const other = await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'elsewhere' },
    });
    const scoped = await createKey(
      server,
      { name: 'scoped', userId: developer.user.id, deploymentIds: [other.json().id] },
      server.adminKey,
    );
    expect((await mint({ branch: 'open' }, scoped.key)).statusCode).toBe(403);
  });

  it('keeps the claim out of a caller-supplied security context', async () => {
    for (const securityContext of [{ tessera: { branch: 'open' } }, { tessera: 'open' }]) {
      const res = await mint({ securityContext }, server.adminKey);
      expect(res.statusCode, JSON.stringify(securityContext)).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'body/securityContext/tessera' })]);
    }
  });

  it('refuses tampered, expired and long-lived branch claims', async () => {
    // Tampered: the claim added to (or changed in) a signed token breaks its signature.
    refused(
      await call('load', withClaims(germany, { ...claimsOf(germany), tessera: { branch: 'open' } }), {
        query: byCountry,
      }),
    );
    const token = await branchToken('open');
    refused(
      await call('load', withClaims(token, { ...claimsOf(token), tessera: { branch: 'dev' } }), {
        query: byCountry,
      }),
    );

    // Signed with the deployment's real secret, as a holder of the API secret could.
    const row = await server.store.db
      .selectFrom('deployments')
      .select('api_secret_enc')
      .where('id', '=', server.demoDeploymentId)
      .executeTakeFirstOrThrow();
    const secret = new TextEncoder().encode(new SecretBox('test-secret').open(row.api_secret_enc));
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...germanyContext, ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const good = await sign({ tessera: { branch: 'open' }, iat: now, exp: now + 600 });
    expect(countries((await call('load', good, { query: byCountry })).json()).length).toBeGreaterThan(1);
    for (const claims of [
      { tessera: { branch: 'open' }, iat: now - 7200, exp: now - 3600 },
      { tessera: { branch: 'open' }, iat: now },
      { tessera: { branch: 'open' }, iat: now, exp: now + 86_400 },
      { tessera: { branch: 42 }, iat: now, exp: now + 600 },
      { tessera: 'open', iat: now, exp: now + 600 },
    ]) {
      const res = await call('load', await sign(claims), { query: byCountry });
      expect(res.statusCode, JSON.stringify(claims)).toBe(403);
    }
  });
});
