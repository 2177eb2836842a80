import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { generateApiKey } from '../../auth/credentials.ts';

describe('tenant resolution from the Host header', () => {
  let server: TestServer;
  let acmeKey: string;
  beforeAll(async () => {
    server = await startTestServer({ domain: 'tessera.test' });
    // A second account with its own admin and key, created the way the store holds them.
    const repos = server.services.repositories;
    const acme = await repos.tenants.create({
      name: 'acme',
      displayName: 'Acme',
      customDomain: 'analytics.acme.example',
    });
    const admin = await repos.users.insert(acme.id, {
      email: 'root@acme.example',
      username: 'root',
      role: 'admin',
    });
    const generated = generateApiKey();
    await repos.apiKeys.insert({
      tenantId: acme.id,
      userId: admin.id,
      name: 'acme',
      kind: 'api',
      hash: generated.hash,
      prefix: generated.prefix,
      deploymentIds: null,
      expiresAt: null,
    });
    acmeKey = generated.key;
    server.services.tenantResolver.invalidate();
  });
  afterAll(() => server?.close());

  const list = (host: string, key: string) =>
    server.app.inject({ url: '/api/v1/deployments', headers: { host, ...bearer(key) } });

  it('serves each tenant on its subdomain and custom domain, with its own data', async () => {
    expect((await list('default.tessera.test', server.adminKey)).json().items).toHaveLength(1);
    expect((await list('acme.tessera.test', acmeKey)).json().items).toHaveLength(0);
    expect((await list('analytics.acme.example:8443', acmeKey)).statusCode).toBe(200);
  });

  it("does not accept one tenant's key on another tenant's host", async () => {
    const res = await list('acme.tessera.test', server.adminKey);
    expect(res.statusCode).toBe(401);
    expect((await list('default.tessera.test', acmeKey)).statusCode).toBe(401);
  });

  it('answers 404 for a host that names no tenant once there are several', async () => {
    const res = await list('unknown.example', server.adminKey);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('tenant_not_found');
  });
});
