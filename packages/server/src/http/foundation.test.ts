import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer } from '../../test/harness.ts';

describe('HTTP foundation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, (app) => {
      // A route that fails the way a bug would, to see what a client is shown.
      app.get('/api/v1/test-failure', { config: { access: { role: 'viewer' } } }, async () => {
        throw new Error('connection to 10.0.0.5:5432 failed for user "secret_user"');
      });
    });
  });
  afterAll(() => server?.close());

  it('answers liveness and readiness', async () => {
    expect((await server.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await server.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('exposes Prometheus metrics with a per-route request histogram', async () => {
    await server.app.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) });
    const res = await server.app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(
      /tessera_http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/deployments",status_code="200"\} \d+/,
    );
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it("gives every response a request id and keeps the caller's", async () => {
    const generated = await server.app.inject('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await server.app.inject({ url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const unsafe = await server.app.inject({
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(unsafe.headers['x-request-id']).not.toContain(' ');
  });

  it('serves the OpenAPI document, covering every management route, and the reference page', async () => {
    const doc = (await server.app.inject('/api/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    // A browser's redirect step (OAuth and OpenID callbacks: hidden, answering only 302) is no API
    // operation a client calls; every other route must be in the document.
    const browserRedirect = (r: (typeof server.routes)[number]) => {
      const schema = r.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
      return schema?.hide === true && Object.keys(schema.response ?? {}).join() === '302';
    };
    const routes = server.routes
      .filter((r) => r.url.startsWith('/api/v1/') && r.url !== '/api/v1/test-failure' && !browserRedirect(r))
      .map((r) => `${r.method} ${r.url}`);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const docs = await server.app.inject('/api/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('serves the same document at /api/v1/spec to any credential, as the reference does, and 401 without one', async () => {
    const spec = await server.app.inject({ url: '/api/v1/spec', headers: bearer(server.adminKey) });
    expect(spec.statusCode).toBe(200);
    expect(spec.json()).toEqual((await server.app.inject('/api/openapi.json')).json());
    expect(spec.json().paths['/api/v1/spec'].get.operationId).toBe('getSpec');
    expect((await server.app.inject('/api/v1/spec')).statusCode).toBe(401);
  });

  it('serves the web app at / (http/web-app.test.ts covers its pages and headers)', async () => {
    const res = await server.app.inject({ url: '/', headers: { host: 'localhost:4000' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('answers unknown routes with a problem+json 404', async () => {
    const res = await server.app.inject('/api/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 404, code: 'route_not_found' });
  });

  it('never shows internals in a 5xx', async () => {
    const res = await server.app.inject({ url: '/api/v1/test-failure', headers: bearer(server.adminKey) });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({
      status: 500,
      code: 'internal_error',
      detail: 'An unexpected error occurred',
    });
    expect(res.body).not.toMatch(/10\.0\.0\.5|secret_user|stack|at /);
    expect(res.json().requestId).toBe(res.headers['x-request-id']);
  });
});

describe('rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ rateLimitPerMinute: 3 });
  });
  afterAll(() => server?.close());

  it('answers 429 with Retry-After per credential, leaving other credentials alone', async () => {
    const other = await createKey(server, { name: 'other' });
    const statuses: number[] = [];
    let last = null as Awaited<ReturnType<typeof server.app.inject>> | null;
    for (let i = 0; i < 3; i++) {
      last = await server.app.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) });
      statuses.push(last.statusCode);
    }
    // createKey above used one of the admin key's three requests.
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['content-type']).toContain('application/problem+json');
    expect(last!.json().code).toBe('rate_limited');
    expect(
      (await server.app.inject({ url: '/api/v1/deployments', headers: bearer(other.key) })).statusCode,
    ).toBe(200);
    expect((await server.app.inject('/healthz')).statusCode).toBe(200);
  });
});

describe('transport security in production mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: 'production', trustProxy: true });
  });
  afterAll(() => server?.close());

  it('refuses plain HTTP and sends HSTS when a trusted proxy terminated TLS', async () => {
    const plain = await server.app.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) });
    expect(plain.statusCode).toBe(403);
    expect(plain.json().code).toBe('https_required');
    const proxied = await server.app.inject({
      url: '/api/v1/deployments',
      headers: { ...bearer(server.adminKey), 'x-forwarded-proto': 'https' },
    });
    expect(proxied.statusCode).toBe(200);
    expect(proxied.headers['strict-transport-security']).toContain('max-age=');
  });
});

describe('HTTPS', () => {
  it('serves TLS with the configured certificate and key', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      {
        stdio: 'ignore',
      },
    );
    const server = await startTestServer({ env: 'production', tlsCertFile: cert, tlsKeyFile: key });
    try {
      await server.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (server.app.server.address() as { port: number }).port;
      const res = await new Promise<{ status: number; hsts: string | undefined; body: string }>(
        (resolve, reject) => {
          https
            .get(
              {
                host: '127.0.0.1',
                port,
                path: '/api/v1/deployments',
                headers: bearer(server.adminKey),
                rejectUnauthorized: false,
              },
              (r) => {
                let body = '';
                r.on('data', (c) => (body += c));
                r.on('end', () =>
                  resolve({
                    status: r.statusCode!,
                    hsts: r.headers['strict-transport-security'] as string,
                    body,
                  }),
                );
              },
            )
            .on('error', reject);
        },
      );
      expect(res.status).toBe(200);
      expect(res.hsts).toContain('max-age=');
      expect(JSON.parse(res.body).items.length).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('lets in-flight requests finish, then closes the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const server = await startTestServer({}, (app) => {
      app.get('/api/v1/test-slow', { config: { access: { public: true } } }, async () => {
        await gate;
        return { done: true };
      });
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.app.server.address() as { port: number }).port;
    const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/test-slow`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.app.close();
    setTimeout(release, 200);
    await closing;
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await server.store.close();
    await expect(sql`select 1`.execute(server.store.db)).rejects.toThrow();
  });

  it('hangs up a connection that never sent a request instead of waiting for its headers timeout', async () => {
    const server = await startTestServer();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.app.server.address() as { port: number }).port;
    // What a browser's or fetch's pre-opened connection looks like: connected, nothing sent.
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const hungUp = once(socket, 'close');
    // A used keep-alive connection beside it is closed too, after its answer.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await server.close();
    await hungUp;
    expect(socket.destroyed).toBe(true);
  });
});
