import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.ts';
import { defaultWebDist, registerWebApp } from './web-app.ts';

const html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const csp =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; font-src 'self'; " +
  "connect-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

describe('web app serving (built bundle)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('answers the app routes with index.html, never cached, with its security headers', async () => {
    for (const url of [
      '/',
      '/sign-in',
      '/workspace/1',
      '/workspace/1/folders/3?x=1',
      '/dashboards/1/abc',
      '/chat/1',
    ]) {
      // The app's own routes are pages whatever the request accepts.
      const res = await server.app.inject({ url, headers: { accept: '*/*' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(res.body, url).toContain('<div id="root"></div>');
      expect(res.body, url).toMatch(/src="\/assets\/[^"]+\.js"/);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-security-policy'], url).toBe(csp);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
    const head = await server.app.inject({ method: 'HEAD', url: '/workspace/2' });
    expect(head.statusCode).toBe(200);
  });

  it('links an icon from every page and serves it, and /favicon.ico leads to it (issue 21)', async () => {
    const page = await server.app.inject({ url: '/', headers: { accept: html } });
    const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(page.body)?.[1];
    expect(href).toMatch(/^\/assets\/favicon-[^/]+\.svg$/);
    const icon = await server.app.inject({ url: href! });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toContain('image/svg+xml');
    expect(icon.body).toContain('<svg');
    const ico = await server.app.inject({ url: '/favicon.ico', headers: { accept: 'image/*' } });
    expect(ico.statusCode).toBe(302);
    expect(ico.headers.location).toBe(href);
  });

  it('serves any other page a browser asks for, and a 404 to everything else', async () => {
    const page = await server.app.inject({ url: '/settings/profile', headers: { accept: html } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const json = await server.app.inject({
      url: '/settings/profile',
      headers: { accept: 'application/json' },
    });
    expect(json.statusCode).toBe(404);
    expect(json.headers['content-type']).toContain('application/problem+json');
    const post = await server.app.inject({ method: 'POST', url: '/workspace/1', headers: { accept: html } });
    expect(post.statusCode).toBe(404);
  });

  it('leaves the API families their own 404s, even for a browser', async () => {
    for (const url of ['/api/v1/nothing-here', '/api', '/v1/load', '/scim/v2/Users', '/metrics/x']) {
      const res = await server.app.inject({ url, headers: { accept: html } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('application/problem+json');
      expect(res.json(), url).toMatchObject({ status: 404, code: 'route_not_found' });
    }
    // The data API answers its unknown paths in its own shape (modules/data).
    const data = await server.app.inject({ url: '/data/1/nope', headers: { accept: html } });
    expect(data.statusCode).toBe(404);
    expect(data.body).not.toContain('<div id="root"></div>');
    const scim = await server.app.inject({ url: '/api/scim/v2/Nothing', headers: { accept: html } });
    expect(scim.statusCode).toBe(404);
    expect(scim.json().schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    const docs = await server.app.inject({ url: '/api/docs/', headers: { accept: html } });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).not.toContain('<div id="root"></div>');
    expect((await server.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
  });

  it('serves the hashed bundle files with a long immutable cache', async () => {
    const files = readdirSync(path.join(defaultWebDist, 'assets'));
    const script = files.find((f) => f.endsWith('.js'))!;
    const res = await server.app.inject(`/assets/${script}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('javascript');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const font = files.find((f) => f.endsWith('.woff2'))!;
    expect((await server.app.inject(`/assets/${font}`)).headers['content-type']).toBe('font/woff2');
    const missing = await server.app.inject({ url: '/assets/nothing.js', headers: { accept: html } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    const traversal = await server.app.inject('/assets/..%2Findex.html');
    expect(traversal.statusCode).toBe(400);
    expect(traversal.body).not.toContain('<div id="root"></div>');
  });

  it('lets embed pages be framed by their own origin by default, other pages by none', async () => {
    const res = await server.app.inject({ url: '/embed/dashboard/abc?session=x', headers: { accept: html } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(res.headers['x-frame-options']).toBeUndefined();
  });
});

describe('web app serving (options)', () => {
  let dist: string;
  beforeAll(() => {
    dist = mkdtempSync(path.join(os.tmpdir(), 'tessera-web-dist-'));
  });
  afterAll(() => rmSync(dist, { recursive: true, force: true }));

  async function appWith(options: Parameters<typeof registerWebApp>[1]) {
    const app = Fastify();
    app.setNotFoundHandler((_request, reply) => reply.code(404).send({ notFound: true }));
    await registerWebApp(app as never, options);
    return app;
  }

  it('tells how to build the bundle when it is missing', async () => {
    const app = await appWith({ distDir: path.join(dist, 'absent') });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('npm run web:build');
    expect(res.body).toContain('href="/api/docs"');
    expect((await app.inject('/assets/index.js')).statusCode).toBe(404);
    await app.close();
  });

  it("puts the embed policy's origins into an embed page's frame-ancestors, and re-reads a rebuilt page", async () => {
    mkdirSync(path.join(dist, 'assets'), { recursive: true });
    writeFileSync(path.join(dist, 'index.html'), '<p>first build</p>');
    const seen: string[] = [];
    const app = await appWith({
      distDir: dist,
      embedFrameAncestors: async (request) => {
        seen.push(request.url);
        return "frame-ancestors 'self' https://partner.example";
      },
    });
    const embed = await app.inject('/embed/dashboard/p1');
    expect(embed.headers['content-security-policy']).toContain(
      "frame-ancestors 'self' https://partner.example",
    );
    expect(seen).toEqual(['/embed/dashboard/p1']);
    const other = await app.inject('/workspace/1');
    expect(other.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(seen).toHaveLength(1);
    expect(other.body).toBe('<p>first build</p>');
    // A later build replaces index.html (new asset names): the next request sends the new one.
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(path.join(dist, 'index.html'), '<p>second build</p>');
    expect((await app.inject('/')).body).toBe('<p>second build</p>');
    await app.close();
  });
});
