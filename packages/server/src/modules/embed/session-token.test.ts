import { SignJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { SecretBox, sha256 } from '../../crypto/secrets.ts';
import { newDeployment } from '../workspace/test-client.ts';
import { claimsOf, embedApi, embedToken, publishSimpleBoard } from './test-support.ts';

/**
 * Spec 4.3 rule 3 and section 5: a session is redeemed once, within its lifetime, for an embed
 * token; tampered, expired, revoked or already-redeemed credentials are refused, and a token reads
 * only what its session named.
 */
describe('embed sessions and tokens', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  let deploymentId: number;
  let board: { publicId: string; workbookId: number };
  const read = (token: string, publicId = board.publicId, host?: string) =>
    server.app.inject({
      method: 'GET',
      url: `/api/v1/embed/dashboard/${publicId}`,
      headers: { ...bearer(token), ...(host ? { host } : {}) },
    });
  const widget = (token: string, publicId: string, deployment = deploymentId) =>
    server.app.inject({
      method: 'POST',
      url: `/api/v1/deployments/${deployment}/dashboards/${publicId}/widgets/w1/data`,
      headers: bearer(token),
      payload: {},
    });

  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
    deploymentId = server.demoDeploymentId;
    board = await publishSimpleBoard(server, deploymentId, true);
  });
  afterAll(() => server?.close());

  it('gives exactly one token to 100 parallel redemptions of one session', async () => {
    const { sessionId } = (await api.generate({ deploymentId, externalId: 'racer' })).body;
    const answers = await Promise.all(Array.from({ length: 100 }, () => api.redeem(sessionId)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401 && a.body.code === 'embed_session_redeemed')).toHaveLength(
      99,
    );
    expect((await read(won[0].body.token)).statusCode).toBe(200);
  });

  it('refuses an unknown, a redeemed, an expired and a revoked session with 401', async () => {
    expect((await api.redeem('0'.repeat(32))).body.code).toBe('embed_session_invalid');
    expect((await api.redeem('not even hex')).status).toBe(401);

    const used = (await api.generate({ deploymentId })).body.sessionId;
    expect((await api.redeem(used)).status).toBe(200);
    const again = await api.redeem(used);
    expect([again.status, again.body.code]).toEqual([401, 'embed_session_redeemed']);

    const stale = (await api.generate({ deploymentId })).body.sessionId;
    await sql`update embed_sessions set expires_at = now() - interval '1 second' where session_hash = ${sha256(stale)}`.execute(
      server.store.db,
    );
    const expired = await api.redeem(stale);
    expect([expired.status, expired.body.code]).toEqual([401, 'embed_session_expired']);

    const revoked = (await api.generate({ deploymentId })).body.sessionId;
    expect((await api.revoke(revoked)).status).toBe(204);
    const refused = await api.redeem(revoked);
    expect([refused.status, refused.body.code]).toEqual([401, 'embed_session_revoked']);
  });

  it('answers bad input on the unauthenticated token route with 400 naming the field', async () => {
    const missing = await server.app.inject({
      method: 'POST',
      url: '/api/v1/embed/session/token',
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors.map((e: { field: string }) => e.field)).toEqual(['body/sessionId']);
    const malformed = await server.app.inject({
      method: 'POST',
      url: '/api/v1/embed/session/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"sessionId": ',
    });
    expect([malformed.statusCode, malformed.json().code]).toEqual([400, 'malformed_body']);
  });

  it('revokes the token minted from a session; revoking is idempotent', async () => {
    const { sessionId } = (await api.generate({ deploymentId })).body;
    const { token } = (await api.redeem(sessionId)).body;
    expect((await read(token)).statusCode).toBe(200);
    expect((await api.revoke(sessionId)).status).toBe(204);
    const after = await read(token);
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('credential_revoked');
    expect((await widget(token, board.publicId)).statusCode).toBe(401);
    expect((await api.revoke(sessionId)).status).toBe(204);
    expect((await api.revoke('f'.repeat(32))).status).toBe(204);
    const malformed = await api.revoke('nope');
    expect(malformed.status).toBe(400);
  });

  it('refuses a tampered, a foreign-signed and an expired token with 401', async () => {
    const token = await embedToken(server, { deploymentId, externalId: 'mallory' });
    const [head, payload, signature] = token.split('.');
    const claims = claimsOf(token);
    claims.embed.securityContext = { serviceCloud: { groups: ['admin'] } };
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const flipped = `${head}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const stranger = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('x'));
    for (const bad of [forged, flipped, stranger]) {
      const res = await read(bad);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('credential_invalid');
    }
    // The same claims signed with the tenant's real secret but already expired.
    const row = await server.store.db
      .selectFrom('embed_settings')
      .select('token_secret_enc')
      .where('tenant_id', '=', server.tenantId)
      .executeTakeFirstOrThrow();
    const secret = new SecretBox('test-secret').open(row.token_secret_enc as string);
    const { iat: _iat, exp: _exp, ...rest } = claimsOf(token);
    const expired = await new SignJWT(rest)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(secret));
    const res = await read(expired);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('credential_expired');
    expect((await read(token)).statusCode).toBe(200);
  });

  it('lives 24 hours, as the reference says', async () => {
    const claims = claimsOf(await embedToken(server, { deploymentId }));
    expect(claims.exp - claims.iat).toBe(86_400);
    expect(claims).toMatchObject({ iss: 'tessera', aud: 'tessera-embed' });
  });

  it('reads nothing of another deployment, another dashboard or while embedding is not allowed', async () => {
    const other = await newDeployment(server, 'other deployment');
    const elsewhere = await publishSimpleBoard(server, other, true);
    const sibling = await publishSimpleBoard(server, deploymentId, true);
    const token = await embedToken(server, { deploymentId, externalId: 'pat' });
    expect((await read(token, sibling.publicId)).statusCode).toBe(200);
    expect((await read(token, elsewhere.publicId)).statusCode).toBe(404);
    const widgetElsewhere = await widget(token, elsewhere.publicId, other);
    expect([widgetElsewhere.statusCode, widgetElsewhere.json().code]).toEqual([
      403,
      'deployment_out_of_scope',
    ]);

    const pinned = await embedToken(server, { deploymentId, publicDashboardId: board.publicId });
    expect((await read(pinned)).statusCode).toBe(200);
    expect((await read(pinned, sibling.publicId)).statusCode).toBe(404);
    expect((await widget(pinned, sibling.publicId)).statusCode).toBe(404);

    // allowEmbed turned off after the token was issued: refused at once, then back.
    const off = await api.send('PATCH', `/api/v1/embed/dashboard/${sibling.publicId}`, { allowEmbed: false });
    expect(off.body).toEqual({ publicId: sibling.publicId, allowEmbed: false });
    const refused = await read(token, sibling.publicId);
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'embedding_not_allowed']);
    expect((await widget(token, sibling.publicId)).statusCode).toBe(403);
    await api.send('PATCH', `/api/v1/embed/dashboard/${sibling.publicId}`, { allowEmbed: true });
    expect((await read(token, sibling.publicId)).statusCode).toBe(200);

    // Embedding turned off for the account: existing tokens stop too.
    await api.send('PUT', '/api/v1/embed/settings', { enabled: false });
    try {
      const disabled = await read(token);
      expect([disabled.statusCode, disabled.json().code]).toEqual([403, 'embedding_disabled']);
    } finally {
      await api.send('PUT', '/api/v1/embed/settings', { enabled: true });
    }
  });

  it('answers 403 to an embed token on routes that do not take one', async () => {
    const token = await embedToken(server, { deploymentId });
    for (const [method, url] of [
      ['GET', '/api/v1/deployments'],
      ['POST', '/api/v1/embed/generate-session'],
      ['GET', '/api/v1/embed-tenants'],
    ] as const) {
      const res = await server.app.inject({ method, url, headers: bearer(token), payload: { deploymentId } });
      expect([res.statusCode, res.json().code], url).toEqual([403, 'credential_kind_not_allowed']);
    }
    // The workspace takes creator-mode tokens only (creator-mode.test.ts); this one is not.
    const workbooks = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${deploymentId}/workbooks`,
      headers: bearer(token),
    });
    expect([workbooks.statusCode, workbooks.json().code]).toEqual([403, 'embed_creator_mode_required']);
  });
});

/** A token of one account reads nothing on another account's host (DESIGN.md "Addresses"). */
describe('embed tokens across accounts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ domain: 'tessera.test' });
  });
  afterAll(() => server?.close());

  it("is refused on another account's host", async () => {
    const home = 'default.tessera.test';
    const deploymentId = server.demoDeploymentId;
    const board = await publishSimpleBoard(server, deploymentId, true);
    await server.services.repositories.tenants.create({ name: 'second', displayName: 'Second' });
    server.services.tenantResolver.invalidate();
    const read = (token: string, host: string) =>
      server.app.inject({
        method: 'GET',
        url: `/api/v1/embed/dashboard/${board.publicId}`,
        headers: { ...bearer(token), host },
      });
    const session = await embedApi(server, server.adminKey, home).generate({ deploymentId });
    expect(session.status).toBe(200);
    const { token } = (await embedApi(server, server.adminKey, home).redeem(session.body.sessionId)).body;
    expect((await read(token, home)).statusCode).toBe(200);
    const foreign = await read(token, 'second.tessera.test');
    expect([foreign.statusCode, foreign.json().code]).toEqual([401, 'credential_invalid']);
  });

  it("takes a session as unknown on another account's host, whatever its state, and leaves it redeemable at home", async () => {
    const home = embedApi(server, server.adminKey, 'default.tessera.test');
    await server.services.repositories.tenants.create({ name: 'elsewhere', displayName: 'Elsewhere' });
    server.services.tenantResolver.invalidate();
    const abroad = embedApi(server, server.adminKey, 'elsewhere.tessera.test');
    const deploymentId = server.demoDeploymentId;
    const fresh = async () => {
      const s = await home.generate({ deploymentId, externalId: 'traveller' });
      expect(s.status).toBe(200);
      return s.body.sessionId as string;
    };
    const unknown = await abroad.redeem('0'.repeat(32));
    expect([unknown.status, unknown.body.code]).toEqual([401, 'embed_session_invalid']);
    const strip = (b: Record<string, unknown>) => {
      const { requestId: _r, ...rest } = b;
      return rest;
    };

    // Live, redeemed, revoked, expired: abroad, all the same as an id never issued.
    const live = await fresh();
    const redeemed = await fresh();
    expect((await home.redeem(redeemed)).status).toBe(200);
    const revoked = await fresh();
    expect((await home.revoke(revoked)).status).toBe(204);
    const expired = await fresh();
    await sql`update embed_sessions set expires_at = now() - interval '1 second' where session_hash = ${sha256(expired)}`.execute(
      server.store.db,
    );
    for (const id of [live, redeemed, revoked, expired]) {
      const res = await abroad.redeem(id);
      expect(res.status, id).toBe(401);
      expect(strip(res.body), id).toEqual(strip(unknown.body));
    }

    // Many tries abroad beside one at home: the one at home gets the only token, for its account.
    const racing = await fresh();
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, () => abroad.redeem(racing)),
      home.redeem(racing),
    ]);
    expect(answers.map((a) => a.status)).toEqual([...Array(30).fill(401), 200]);
    expect(claimsOf(answers[30].body.token).embed.tenantId).toBe(server.tenantId);
    const row = await server.store.db
      .selectFrom('embed_sessions')
      .select(['tenant_id', 'redeemed_at'])
      .where('session_hash', '=', sha256(racing))
      .executeTakeFirstOrThrow();
    expect(row.tenant_id).toBe(server.tenantId);
    expect(row.redeemed_at).not.toBeNull();

    // The live one, tried abroad above, still redeems once at home.
    expect((await home.redeem(live)).status).toBe(200);
    expect((await home.redeem(live)).body.code).toBe('embed_session_redeemed');
  });
});
