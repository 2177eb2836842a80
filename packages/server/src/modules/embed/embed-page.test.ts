import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { embedApi } from './test-support.ts';

const frameAncestors = (csp: unknown) =>
  String(csp)
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith('frame-ancestors'));

/**
 * The embed page (`/embed/dashboard/{publicId}?session=...`, DESIGN.md "Addresses") may be framed
 * by the origins its tenant allows (CSP Level 3 `frame-ancestors`) and by no others; every other
 * page of the app by none.
 */
describe('embed page framing', () => {
  let server: TestServer;
  let api: ReturnType<typeof embedApi>;
  const page = (url: string, host?: string) =>
    server.app.inject({ url, headers: { accept: 'text/html', ...(host ? { host } : {}) } });

  beforeAll(async () => {
    server = await startTestServer();
    api = embedApi(server);
  });
  afterAll(() => server?.close());

  it("sends the tenant's allowed origins on embed pages, and 'none' on every other page", async () => {
    const before = await page('/embed/dashboard/abc?session=0123');
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('<div id="root"></div>');
    expect(frameAncestors(before.headers['content-security-policy'])).toBe("frame-ancestors 'self'");
    expect(before.headers['x-frame-options']).toBeUndefined();

    const saved = await api.send('PUT', '/api/v1/embed/settings', {
      frameAncestors: ['http://localhost:8080', 'https://*.example.com'],
    });
    expect(saved.status).toBe(200);
    for (const url of ['/embed/dashboard/abc?session=0123', '/embed/dashboard/x-1/', '/embed']) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(200);
      expect(frameAncestors(res.headers['content-security-policy']), url).toBe(
        "frame-ancestors 'self' http://localhost:8080 https://*.example.com",
      );
      expect(res.headers['x-frame-options'], url).toBeUndefined();
      // The session in the address never travels to another origin as a Referer.
      expect(res.headers['referrer-policy'], url).toMatch(/^(same-origin|no-referrer|strict-origin)$/);
    }
    for (const url of [
      '/',
      '/sign-in',
      '/workspace/1',
      '/dashboards/1/abc',
      '/embedded',
      '/x/embed/dashboard/a',
    ]) {
      const res = await page(url);
      expect(res.statusCode, url).toBe(200);
      expect(frameAncestors(res.headers['content-security-policy']), url).toBe("frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }

    // A change is seen by the next page, with nothing to restart.
    await api.send('PUT', '/api/v1/embed/settings', { frameAncestors: [] });
    expect(frameAncestors((await page('/embed/dashboard/abc')).headers['content-security-policy'])).toBe(
      "frame-ancestors 'self'",
    );
  });
});

/** With several accounts on one server, each embed page carries its own account's origins. */
describe('embed page framing per account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ domain: 'tessera.test' });
  });
  afterAll(() => server?.close());

  it("frames each account's embed pages by that account's origins only", async () => {
    const second = await server.services.repositories.tenants.create({
      name: 'second',
      displayName: 'Second',
    });
    server.services.tenantResolver.invalidate();
    await embedApi(server, server.adminKey, 'default.tessera.test').send('PUT', '/api/v1/embed/settings', {
      frameAncestors: ['https://first.example'],
    });
    await server.services.embedSettings.update(
      {
        tenantId: second.id,
        userId: 0,
        role: 'admin',
        credentialId: 0,
        credentialKind: 'api',
        deploymentIds: null,
      },
      { frameAncestors: ['https://second.example'] },
    );
    const csp = async (host: string) =>
      frameAncestors(
        (await server.app.inject({ url: '/embed/dashboard/abc', headers: { host, accept: 'text/html' } }))
          .headers['content-security-policy'],
      );
    expect(await csp('default.tessera.test')).toBe("frame-ancestors 'self' https://first.example");
    expect(await csp('second.tessera.test')).toBe("frame-ancestors 'self' https://second.example");
  });
});
