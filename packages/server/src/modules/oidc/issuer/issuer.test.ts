import { createServer } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { sql } from 'kysely';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../../test/harness.ts';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Issue 22 item 7, Tessera as an OpenID issuer: OIDC token configs (reference group), deployment
 * tokens verified by standard clients (openid-client reads the discovery document, jose verifies
 * with the published JWKS) over real HTTP, and keys rotated with overlap.
 */
describe('Tessera as an OpenID issuer for its deployments', () => {
  let server: TestServer;
  let issuer: string;
  let configId: number;

  const mint = async (id = configId) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/oidc-token-configs/${id}/token`,
      headers: bearer(server.adminKey),
      payload: { deploymentId: server.demoDeploymentId },
    });
    return res;
  };
  /** What a warehouse does: discover the issuer's keys and verify the token with them. */
  const verify = async (token: string, audience: string) => {
    const metadata = await client.discovery(new URL(issuer), 'warehouse', undefined, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const jwks = createRemoteJWKSet(new URL(metadata.serverMetadata().jwks_uri!));
    return jwtVerify(token, jwks, { issuer, audience });
  };

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    server = await startTestServer({ port, publicUrl: issuer });
    await server.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => server?.close());

  it('keeps configs as the reference shapes them, refusing bad ones by field', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oidc-token-configs',
      headers: bearer(server.adminKey),
      payload: {
        name: 'snowflake',
        audienceType: 'custom',
        customAudience: 'https://acme.snowflakecomputing.com',
        subFormat: 'tessera:{deployment_id}:{component}',
        customClaims: { scp: 'session:role:ANALYST', iss: 'https://evil.example.com' },
        targetEnvVar: 'SNOWFLAKE_TOKEN',
      },
    });
    expect(created.statusCode).toBe(200);
    configId = created.json().id;
    expect(created.json()).toMatchObject({
      name: 'snowflake',
      audienceType: 'custom',
      audience: 'https://acme.snowflakecomputing.com',
      targetEnvVar: 'SNOWFLAKE_TOKEN',
      isEnabled: true,
    });

    const bad = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oidc-token-configs',
      headers: bearer(server.adminKey),
      payload: { name: 'Not Valid', audienceType: 'custom', subFormat: '{user_id}', targetEnvVar: 'lower' },
    });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['body/name', 'body/subFormat', 'body/targetEnvVar'].sort());
    const noAudience = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oidc-token-configs',
      headers: bearer(server.adminKey),
      payload: { name: 'other', audienceType: 'custom' },
    });
    expect(noAudience.statusCode).toBe(400);
    expect(noAudience.json().errors[0].field).toBe('body/customAudience');
    const taken = await server.app.inject({
      method: 'POST',
      url: '/api/v1/oidc-token-configs',
      headers: bearer(server.adminKey),
      payload: { name: 'snowflake', audienceType: 'default' },
    });
    expect(taken.statusCode).toBe(409);
  });

  it('mints deployment tokens that a standard client verifies with the published JWKS', async () => {
    const res = await mint();
    expect(res.statusCode).toBe(200);
    const { payload, protectedHeader } = await verify(
      res.json().token,
      'https://acme.snowflakecomputing.com',
    );
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      iss: issuer,
      sub: `tessera:${server.demoDeploymentId}:data-api`,
      scp: 'session:role:ANALYST',
      tenant: server.tenantId,
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(15 * 60);
    expect(Date.parse(res.json().expiresAt)).toBe((payload.exp ?? 0) * 1000);
    // Another audience is refused, as is a token changed after signing.
    await expect(verify(res.json().token, 'https://other.example.com')).rejects.toThrow();
    const [h, p, s] = res.json().token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'deployment:1' })).toString('base64url')}.${s}`;
    expect(p).not.toBe(tampered.split('.')[1]);
    await expect(verify(tampered, 'https://acme.snowflakecomputing.com')).rejects.toThrow();
  });

  it('rotates keys with overlap: old tokens verify until the retired key leaves the JWKS', async () => {
    const before = (await mint()).json().token;
    await server.services.oidcIssuer.rotateKeys();
    const after = (await mint()).json().token;
    expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
    const jwks = await (await fetch(`${issuer}/.well-known/jwks.json`)).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual(
      expect.arrayContaining([decodeProtectedHeader(before).kid, decodeProtectedHeader(after).kid]),
    );
    expect(JSON.stringify(jwks)).not.toMatch(/"d":/);
    await verify(before, 'https://acme.snowflakecomputing.com');
    await verify(after, 'https://acme.snowflakecomputing.com');

    await sql`update oidc_signing_keys set expires_at = now() - interval '1 second' where retired_at is not null`.execute(
      server.store.db,
    );
    await expect(verify(before, 'https://acme.snowflakecomputing.com')).rejects.toThrow();
    await verify(after, 'https://acme.snowflakecomputing.com');
  });

  it("hands the deployment's data source a token in the config's target env variable", async () => {
    const values = await server.services.envVariableResolver.values(server.demoDeploymentId);
    const token = values.get('SNOWFLAKE_TOKEN');
    expect(token).toBeDefined();
    const { payload } = await verify(token!, 'https://acme.snowflakecomputing.com');
    expect(payload.sub).toBe(`tessera:${server.demoDeploymentId}:data-api`);
    // The same token until it nears its expiry: the data source keeps its connections.
    expect(
      (await server.services.envVariableResolver.values(server.demoDeploymentId)).get('SNOWFLAKE_TOKEN'),
    ).toBe(token);
  });

  it('mints nothing under a disabled config, and updates only what is sent', async () => {
    const updated = await server.app.inject({
      method: 'PUT',
      url: `/api/v1/oidc-token-configs/${configId}`,
      headers: bearer(server.adminKey),
      payload: { isEnabled: false },
    });
    expect(updated.json()).toMatchObject({
      isEnabled: false,
      name: 'snowflake',
      targetEnvVar: 'SNOWFLAKE_TOKEN',
    });
    expect((await mint()).statusCode).toBe(409);
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/oidc-token-configs/${configId}`,
      headers: bearer(server.adminKey),
    });
    expect(deleted.json()).toEqual({ id: configId, deleted: true });
    expect((await mint()).statusCode).toBe(404);
  });
});
