import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/** Tokens, access policies and Cube's error shapes on the data API (through app.inject). */
describe('data API security and errors', () => {
  let server: TestServer;
  let base: string;
  let admin: string;
  let germany: string;
  beforeAll(async () => {
    server = await startTestServer();
    base = `/data/${server.demoDeploymentId}/cubejs-api/v1`;
    admin = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
    germany = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { userAttributes: { country: 'DE' } } },
    });
  });
  afterAll(() => server?.close());

  const load = (token: string | undefined, query: unknown, url = `${base}/load`) =>
    server.app.inject({
      method: 'POST',
      url,
      headers: token === undefined ? {} : { authorization: token },
      payload: { query },
    });

  it('hides policy-restricted members from meta and refuses them in load', async () => {
    const meta = async (token: string) =>
      (await server.app.inject({ url: `${base}/meta`, headers: { authorization: token } }))
        .json()
        .cubes.find((c: { name: string }) => c.name === 'customers')
        .dimensions.map((d: { name: string }) => d.name);
    expect(await meta(admin)).toContain('customers.email');
    expect(await meta(germany)).not.toContain('customers.email');
    const res = await load(germany, { dimensions: ['customers.email'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ type: 'UserError', error: expect.stringContaining('customers.email') });
  });

  it('returns only the rows a token may read, whatever filters it sends', async () => {
    const byCountry = async (token: string, filters: unknown[] = []) =>
      (
        await load(token, { measures: ['customers.count'], dimensions: ['customers.country'], filters })
      ).json().data as Record<string, string>[];
    const all = await byCountry(admin);
    expect(all.length).toBeGreaterThan(3);
    const de = all.find((r) => r['customers.country'] === 'DE')!;
    expect(await byCountry(germany)).toEqual([de]);
    expect(
      await byCountry(germany, [{ member: 'customers.country', operator: 'equals', values: ['US'] }]),
    ).toEqual([]);
    expect(
      await byCountry(germany, [
        {
          or: [
            { member: 'customers.country', operator: 'set' },
            { member: 'customers.country', operator: 'notSet' },
          ],
        },
      ]),
    ).toEqual([de]);
    // joined from orders, the customers policy still applies
    const orders = (
      await load(germany, { measures: ['orders.count'], dimensions: ['customers.country'] })
    ).json();
    expect(orders.data.map((r: Record<string, string>) => r['customers.country'])).toEqual(['DE']);
  });

  it('answers 403 {error} for missing, malformed, wrongly signed and expired tokens', async () => {
    const wrongSecret = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('nope'));
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(new TextEncoder().encode('nope'));
    for (const token of [undefined, 'not-a-jwt', 'Bearer x.y.z', wrongSecret, expired]) {
      const res = await load(token, { measures: ['orders.count'] });
      expect(res.statusCode, String(token)).toBe(403);
      expect(Object.keys(res.json())).toEqual(['error']);
    }
    expect((await load(`Bearer ${admin}`, { measures: ['orders.count'] })).statusCode).toBe(200);
  });

  it('rejects tokens that expired or were signed before the API secret was rotated', async () => {
    const token = await tokenFor(server, server.demoDeploymentId, { expiresIn: 60 });
    expect((await load(token, { measures: ['orders.count'] })).statusCode).toBe(200);
    const rotated = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/api-secret/rotate`,
      headers: bearer(server.adminKey),
    });
    expect(rotated.statusCode).toBe(200);
    expect((await load(token, { measures: ['orders.count'] })).statusCode).toBe(403);
    const fresh = await tokenFor(server, server.demoDeploymentId);
    expect((await load(fresh, { measures: ['orders.count'] })).statusCode).toBe(200);
    admin = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { groups: ['admin'] } },
    });
    germany = await tokenFor(server, server.demoDeploymentId, {
      securityContext: { serviceCloud: { userAttributes: { country: 'DE' } } },
    });
  });

  it('issues a 24-hour token when the body is omitted', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${server.demoDeploymentId}/token`,
      headers: bearer(server.adminKey),
    });
    expect(res.statusCode, res.body).toBe(200);
    const [, payload] = res.json().serviceApiToken.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(86_400);
  });

  it('validates the token request body', async () => {
    for (const payload of [
      { expiresIn: 10 },
      { expiresIn: 100_000 },
      { securityContext: { exp: 1 } },
      { other: 1 },
    ]) {
      const res = await server.app.inject({
        method: 'POST',
        url: `/api/v1/deployments/${server.demoDeploymentId}/token`,
        headers: bearer(server.adminKey),
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
  });

  it('answers 400 UserError naming the problem for bad queries', async () => {
    const cases: [unknown, RegExp][] = [
      [{ measures: ['orders.nope'] }, /orders\.nope/],
      [
        {
          measures: ['orders.count'],
          filters: [{ member: 'orders.status', operator: 'like', values: ['x'] }],
        },
        /like/,
      ],
      [
        {
          measures: ['orders.count'],
          timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'not a range' }],
        },
        /not a range/,
      ],
      [{ measures: ['orders.count'], limit: 100_000 }, /limit/i],
    ];
    for (const [query, message] of cases) {
      const res = await load(admin, query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json().type).toBe('UserError');
      expect(res.json().error).toMatch(message);
    }
    const bad = await server.app.inject({
      url: `${base}/load?query={oops`,
      headers: { authorization: admin },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().type).toBe('UserError');
  });

  it('answers 404 for an unknown deployment or path', async () => {
    for (const url of [
      '/data/999999/cubejs-api/v1/load',
      '/data/abc/cubejs-api/v1/meta',
      `/data/${server.demoDeploymentId}/other/v1/meta`,
    ]) {
      const res = await server.app.inject({ url, headers: { authorization: admin } });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toHaveProperty('error');
    }
  });
});
