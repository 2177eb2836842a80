import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { followRedirects, startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.ts';

const tessera = 'http://tessera.test';
const redirectUri = `${tessera}/api/v1/oauth/callback`;
const clientSecret = 'client secret of tessera at the provider';

/**
 * Issue 22 item 6 against a real OpenID provider on loopback (oidc-provider): an admin's
 * integration, a user's authorization-code flow with PKCE and state, tokens sealed, refreshed
 * before they expire, and revoked at the provider (spec 4.1).
 */
describe('OAuth integrations and user OAuth tokens', () => {
  let server: TestServer;
  let idp: TestOidcProvider;
  let integrationId: number;
  let viewer: { key: string; user: { id: number } };

  const userinfo = (token: string) =>
    fetch(`${idp.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });

  /** Runs the user's flow through the provider and hands the callback to Tessera. */
  async function connect(key: string, sub: string) {
    const started = await server.app.inject({
      method: 'POST',
      url: `/api/v1/user-oauth-tokens/${integrationId}/initiate`,
      headers: bearer(key),
    });
    expect(started.statusCode).toBe(200);
    idp.signInAs(sub);
    const back = new URL(await followRedirects(started.json().authorizationUrl, tessera));
    const callback = await server.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    return { started: started.json(), back, callback };
  }

  beforeAll(async () => {
    idp = await startOidcProvider([
      {
        client_id: 'tessera',
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ]);
    idp.account({ sub: 'alice', email: 'alice@idp.test' });
    server = await startTestServer();
    viewer = await userWithKey(server, 'viewer');
  });
  afterAll(async () => {
    await server?.close();
    await idp?.close();
  });

  it('lets an admin configure an integration whose client secret is never shown again', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oauth-integrations',
      headers: bearer(server.adminKey),
      payload: {
        name: 'Test provider',
        type: 'generic',
        authUrl: `${idp.issuer}/auth`,
        tokenUrl: `${idp.issuer}/token`,
        clientId: 'tessera',
        clientSecret,
        redirectUri,
        scopes: ['openid', 'email', 'api:read'],
        config: { revocationUrl: `${idp.issuer}/token/revocation` },
      },
    });
    expect(created.statusCode).toBe(200);
    expect(created.body).not.toContain(clientSecret);
    integrationId = created.json().id;
    expect(created.json()).toMatchObject({ name: 'Test provider', clientId: 'tessera', redirectUri });

    const stored = await sql<{
      client_secret_enc: string;
    }>`select client_secret_enc from oauth_integrations`.execute(server.store.db);
    expect(stored.rows[0].client_secret_enc).not.toContain(clientSecret);

    const asViewer = await server.app.inject({
      method: 'GET',
      url: '/api/v1/oauth-integrations',
      headers: bearer(viewer.key),
    });
    expect(asViewer.json().map((i: { id: number }) => i.id)).toEqual([integrationId]);
    expect(asViewer.body).not.toContain(clientSecret);
    const viewerCreates = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/oauth-integrations/${integrationId}`,
      headers: bearer(viewer.key),
      payload: {
        ...(created.json() as Record<string, unknown>),
        id: undefined,
        createdAt: undefined,
        updatedAt: undefined,
      },
    });
    expect(viewerCreates.statusCode).toBe(403);

    const bad = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oauth-integrations',
      headers: bearer(server.adminKey),
      payload: {
        name: 'x',
        type: 'generic',
        authUrl: 'ftp://nope',
        tokenUrl: `${idp.issuer}/token`,
        clientId: 'c',
        clientSecret: 's',
        redirectUri,
      },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toContain('body/authUrl');
  });

  it('connects a user through the authorization-code flow with PKCE and keeps the tokens sealed', async () => {
    const { started, back, callback } = await connect(viewer.key, 'alice');
    const authorization = new URL(started.authorizationUrl);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization.searchParams.get('state')).toBeTruthy();
    expect(back.searchParams.get('code')).toBeTruthy();

    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe(`/settings/connected-accounts?connected=${integrationId}`);

    const list = await server.app.inject({
      method: 'GET',
      url: '/api/v1/user-oauth-tokens',
      headers: bearer(viewer.key),
    });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual([
      expect.objectContaining({ integrationId, userId: viewer.user.id, status: 'active', lastError: null }),
    ]);
    expect(Date.parse(list.json()[0].accessTokenExpiresAt)).toBeGreaterThan(Date.now());

    // The token works at the provider, and appears in no answer nor in the store in clear.
    const token = await server.services.userOAuthTokens.accessToken(
      server.tenantId,
      viewer.user.id,
      integrationId,
    );
    const me = await userinfo(token);
    expect(me.status).toBe(200);
    expect((await me.json()).email).toBe('alice@idp.test');
    expect(list.body).not.toContain(token);
    const row = await sql<Record<string, string>>`select * from user_oauth_tokens`.execute(server.store.db);
    expect(JSON.stringify(row.rows)).not.toContain(token);

    // Someone else has no connection there.
    const admin = await server.app.inject({
      method: 'GET',
      url: `/api/v1/user-oauth-tokens/${integrationId}`,
      headers: bearer(server.adminKey),
    });
    expect(admin.statusCode).toBe(404);
    expect(admin.json().code).toBe('oauth_token_not_found');
  });

  it('accepts a state once: a replayed or forged callback stores nothing', async () => {
    const { back } = await connect(viewer.key, 'alice');
    const replay = await server.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(replay.headers.location).toBe('/settings/connected-accounts?error=unknown_or_expired_state');
    const forged = await server.app.inject({
      method: 'GET',
      url: `/api/v1/oauth/callback?state=forged&code=${back.searchParams.get('code')}`,
    });
    expect(forged.headers.location).toBe('/settings/connected-accounts?error=unknown_or_expired_state');
  });

  it('refreshes a token that is about to expire before handing it out', async () => {
    const before = await server.services.userOAuthTokens.accessToken(
      server.tenantId,
      viewer.user.id,
      integrationId,
    );
    await sql`update user_oauth_tokens set access_token_expires_at = now() + interval '20 seconds'`.execute(
      server.store.db,
    );
    const [a, b] = await Promise.all([
      server.services.userOAuthTokens.accessToken(server.tenantId, viewer.user.id, integrationId),
      server.services.userOAuthTokens.accessToken(server.tenantId, viewer.user.id, integrationId),
    ]);
    expect(a).toBe(b);
    expect(a).not.toBe(before);
    expect((await userinfo(a)).status).toBe(200);
    const got = await server.app.inject({
      method: 'GET',
      url: `/api/v1/user-oauth-tokens/${integrationId}`,
      headers: bearer(viewer.key),
    });
    expect(Date.parse(got.json().accessTokenExpiresAt)).toBeGreaterThan(Date.now() + 30 * 60_000);
    // Fresh now: handed out as stored, without another refresh.
    expect(
      await server.services.userOAuthTokens.accessToken(server.tenantId, viewer.user.id, integrationId),
    ).toBe(a);
  });

  it('revokes the token at the provider and forgets it (spec 4.1)', async () => {
    const token = await server.services.userOAuthTokens.accessToken(
      server.tenantId,
      viewer.user.id,
      integrationId,
    );
    const res = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/user-oauth-tokens/${integrationId}`,
      headers: bearer(viewer.key),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.json()).toEqual({ integrationId, revoked: true, providerRevoked: true });
    expect((await userinfo(token)).status).toBe(401);
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/v1/user-oauth-tokens',
      headers: bearer(viewer.key),
    });
    expect(list.json()).toEqual([]);
    const again = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/user-oauth-tokens/${integrationId}`,
      headers: bearer(viewer.key),
    });
    expect(again.statusCode).toBe(404);
  });

  it('marks a connection whose refresh the provider refuses, without showing a token', async () => {
    await connect(viewer.key, 'alice');
    const token = await server.services.userOAuthTokens.accessToken(
      server.tenantId,
      viewer.user.id,
      integrationId,
    );
    // Revoked at the provider behind Tessera's back: the refresh token dies with its grant.
    const revoked = await fetch(`${idp.issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`tessera:${encodeURIComponent(clientSecret).replace(/%20/g, '+')}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    expect(revoked.status).toBe(200);
    await sql`update user_oauth_tokens set access_token_expires_at = now() - interval '1 second'`.execute(
      server.store.db,
    );
    await expect(
      server.services.userOAuthTokens.accessToken(server.tenantId, viewer.user.id, integrationId),
    ).rejects.toMatchObject({ code: 'oauth_provider_error' });
    const got = await server.app.inject({
      method: 'GET',
      url: `/api/v1/user-oauth-tokens/${integrationId}`,
      headers: bearer(viewer.key),
    });
    expect(got.json()).toMatchObject({
      status: 'error',
      lastError: expect.stringContaining('invalid_grant'),
    });
  });

  it('deletes an integration with its connections', async () => {
    const res = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/oauth-integrations/${integrationId}`,
      headers: bearer(server.adminKey),
    });
    expect(res.json()).toEqual({ id: integrationId, deleted: true });
    const list = await server.app.inject({
      method: 'GET',
      url: '/api/v1/user-oauth-tokens',
      headers: bearer(viewer.key),
    });
    expect(list.json()).toEqual([]);
  });
});
