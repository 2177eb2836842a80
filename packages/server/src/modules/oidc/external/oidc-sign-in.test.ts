import { generateKeyPair, SignJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../../test/harness.ts';
import { followRedirects, startOidcProvider, type TestOidcProvider } from '../../../../test/oidc-provider.ts';

const tessera = 'http://tessera.test';

/**
 * Issue 22 item 7 against a real OpenID provider on loopback: its access tokens accepted as
 * `Authorization: Bearer` on the management API (spec 5), expired and foreign ones refused with
 * 401; users matched or created at first sign-in with groups from a claim; and the web app's
 * sign-in through the provider ending in a browser session.
 */
describe('sign-in with an external OpenID provider', () => {
  let server: TestServer;
  let idp: TestOidcProvider;

  const session = (authorization: Record<string, string>) =>
    server.app.inject({ method: 'GET', url: '/api/v1/session', headers: authorization });

  beforeAll(async () => {
    idp = await startOidcProvider([
      {
        client_id: 'tessera-web',
        client_secret: 'web client secret',
        redirect_uris: [`${tessera}/api/v1/session/oidc/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ]);
    idp.account({ sub: 'bob', email: 'bob@idp.test', name: 'Bob Builder', groups: ['analysts', 'finance'] });
    idp.account({ sub: 'carol', email: 'carol@idp.test', name: 'Carol Jones', groups: ['analysts'] });
    server = await startTestServer({
      publicUrl: tessera,
      oidc: {
        issuer: idp.issuer,
        clientId: 'tessera-web',
        clientSecret: 'web client secret',
        scopes: 'openid email profile groups',
        groupsClaim: 'groups',
        defaultRole: 'viewer',
        audience: 'tessera-web',
        displayName: 'Test IdP',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  it("accepts the provider's access token as a Bearer credential, creating the user with their groups", async () => {
    const token = await idp.accessTokenFor('bob', 'tessera-web');
    const first = await session(bearer(token));
    expect(first.statusCode).toBe(200);
    expect(first.json().user).toMatchObject({
      email: 'bob@idp.test',
      firstName: 'Bob',
      lastName: 'Builder',
      role: 'viewer',
    });
    expect(first.json().csrfToken).toBeNull();

    // Another token of the same subject is the same user, not a second one.
    const again = await session(bearer(await idp.accessTokenFor('bob', 'tessera-web')));
    expect(again.json().user.id).toBe(first.json().user.id);
    const groups = await sql<{ name: string }>`
      select g.name from groups g join group_members m on m.group_id = g.id
      where m.user_id = ${first.json().user.id} order by g.name`.execute(server.store.db);
    expect(groups.rows.map((r) => r.name)).toEqual(['analysts', 'finance']);

    // A viewer's token reads what a viewer reads and is refused what needs more (403, not 401).
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/v1/oauth-integrations',
      headers: bearer(token),
    });
    expect(list.statusCode).toBe(200);
    const admin = await server.app.inject({
      method: 'POST',
      url: '/api/v1/groups',
      headers: bearer(token),
      payload: { name: 'not allowed' },
    });
    expect(admin.statusCode).toBe(403);
  });

  it('refuses expired, revoked, foreign and unknown tokens with 401', async () => {
    // A JWT access token (RFC 9068) signed by the provider: good until it expires.
    const live = await session(bearer(await idp.jwtAccessToken('bob', 'tessera-web', 300)));
    expect(live.statusCode).toBe(200);
    expect(live.json().user.email).toBe('bob@idp.test');
    const expired = await session(bearer(await idp.jwtAccessToken('bob', 'tessera-web', -60)));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('credential_expired');
    expect(expired.headers['content-type']).toContain('application/problem+json');
    // The provider's token for another client (audience) is not for us.
    expect((await session(bearer(await idp.jwtAccessToken('bob', 'another-app', 300)))).statusCode).toBe(401);

    // An opaque token revoked at the provider is refused once the provider says so.
    const opaque = await idp.accessTokenFor('bob', 'tessera-web');
    const revoke = await fetch(`${idp.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('tessera-web:web+client+secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: opaque }),
    });
    expect(revoke.status).toBe(200);
    expect((await session(bearer(opaque))).statusCode).toBe(401);

    const unknown = await session(bearer('an-opaque-token-the-provider-never-issued'));
    expect(unknown.statusCode).toBe(401);

    // A JWT from another issuer, even one naming a known subject and our audience.
    const { privateKey } = await generateKeyPair('RS256');
    const foreign = await new SignJWT({ sub: 'bob', email: 'bob@idp.test' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer('https://evil.example.com')
      .setAudience('tessera-web')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await session(bearer(foreign))).statusCode).toBe(401);
    // The same claims signed by a key that is not the provider's, under the provider's issuer.
    const forged = await new SignJWT({ sub: 'bob', email: 'bob@idp.test' })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-provider-key' })
      .setIssuer(idp.issuer)
      .setAudience('tessera-web')
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await session(bearer(forged))).statusCode).toBe(401);
  });

  it('signs a browser in through the provider with PKCE, state and nonce', async () => {
    const providers = await server.app.inject({ method: 'GET', url: '/api/v1/session/providers' });
    expect(providers.json()).toEqual({ oidc: { name: 'Test IdP', signInUrl: '/api/v1/session/oidc' } });

    const start = await server.app.inject({ method: 'GET', url: '/api/v1/session/oidc' });
    expect(start.statusCode).toBe(302);
    const authorization = new URL(String(start.headers.location));
    expect(authorization.origin).toBe(idp.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('nonce')).toBeTruthy();

    idp.signInAs('carol');
    const back = new URL(await followRedirects(authorization.href, tessera));
    const callback = await server.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe('/');
    const cookie = String(callback.headers['set-cookie']).split(';')[0];
    expect(cookie).toMatch(/^tessera_session=/);

    const me = await session({ cookie });
    expect(me.statusCode).toBe(200);
    expect(me.json().user).toMatchObject({ email: 'carol@idp.test', role: 'viewer' });
    expect(me.json().csrfToken).toBeTruthy();

    const replay = await server.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(replay.headers.location).toBe('/sign-in?error=unknown_or_expired_state');
    expect(replay.headers['set-cookie']).toBeUndefined();
  });

  it('signs in an existing user by their verified email and keeps their role', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: bearer(server.adminKey),
      payload: { email: 'dave@idp.test', username: 'dave', role: 'developer' },
    });
    idp.account({ sub: 'dave-sub', email: 'dave@idp.test' });
    const me = await session(bearer(await idp.accessTokenFor('dave-sub', 'tessera-web')));
    expect(me.json().user).toMatchObject({ id: created.json().id, role: 'developer' });
  });

  it('refuses a deactivated user', async () => {
    const token = await idp.accessTokenFor('bob', 'tessera-web');
    const bob = (await session(bearer(token))).json().user;
    await server.app.inject({
      method: 'PUT',
      url: `/api/v1/users/${bob.id}`,
      headers: bearer(server.adminKey),
      payload: { isDeactivated: true },
    });
    const refused = await session(bearer(await idp.accessTokenFor('bob', 'tessera-web')));
    expect(refused.statusCode).toBe(401);
  });

  it('sends the browser back to the sign-in page when the provider cannot be reached', async () => {
    const offline = await startTestServer({
      oidc: { ...server.config.oidc!, issuer: 'http://127.0.0.1:9' },
    });
    try {
      const start = await offline.app.inject({ method: 'GET', url: '/api/v1/session/oidc' });
      expect(start.statusCode).toBe(302);
      expect(start.headers.location).toBe('/sign-in?error=provider_unreachable');
      // Its access tokens cannot be checked either: no credential, and no 200.
      const res = await offline.app.inject({
        method: 'GET',
        url: '/api/v1/session',
        headers: bearer('opaque-token'),
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.body).not.toContain('ECONNREFUSED');
    } finally {
      await offline.close();
    }
  });
});
