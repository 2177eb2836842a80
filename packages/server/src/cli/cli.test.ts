import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServerBuild, serverBuildIsCurrent } from '../../scripts/ensure-build.js';
import { countSetup } from '../../test/setup-counters.ts';
import { generateApiKey } from '../auth/credentials.ts';

const run = promisify(execFile);
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tessera.js');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-cli-'));
const children: ChildProcessWithoutNullStreams[] = [];
/** The password `reset-password` gave ops@example.com, for a later sign-in. */
let opsPassword = '';

/**
 * How long one CLI process may take: each opens and migrates a store, which took over a minute on
 * a CI machine running the rest of the suite beside it when every process also compiled the
 * server with tsx; they run the compiled build now (issue 20), so this is the margin of a very
 * busy machine, not the expected time.
 */
const processLimitMs = 170_000;

function env(extra: Record<string, string> = {}) {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return { ...rest, TESSERA_DATA_DIR: dataDir, LOG_LEVEL: 'warn', TESSERA_SAMPLE_SCALE: '0.01', ...extra };
}

async function tessera(args: string[], extra: Record<string, string> = {}) {
  countSetup('processes');
  const { stdout } = await run(process.execPath, [bin, ...args], {
    env: env(extra),
    timeout: processLimitMs,
  });
  return stdout;
}

/**
 * Starts `tessera start` on a free port (PORT=0) and resolves once it printed its URLs, with the
 * address it printed (`http://127.0.0.1:PORT`).
 */
function start(
  extra: Record<string, string>,
): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string; base: string; port: number }> {
  countSetup('processes');
  const child = spawn(process.execPath, [bin, 'start'], {
    env: env({ HOST: '127.0.0.1', PORT: '0', ...extra }),
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), processLimitMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const printed = /Management API: +http:\/\/127\.0\.0\.1:(\d+)\/api\/v1\/deployments/.exec(output);
      if (printed) {
        clearTimeout(timer);
        const port = Number(printed[1]);
        resolve({ child, output: () => output, base: `http://127.0.0.1:${port}`, port });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

function exitCode(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read as loosely typed JSON in assertions.
type JsonBody = any;

/** GET with an explicit Host header (fetch does not let a caller choose it). */
function getJson(
  port: number,
  pathname: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: JsonBody }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathname, headers }, (res) => {
        let data = '';
        res.on('data', (chunk) => {
          data += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      })
      .on('error', reject);
  });
}

// The processes run the compiled server (bin/tessera.js); built here, once, when stale, so that
// no process builds it in the middle of a test's time limit.
beforeAll(() => ensureServerBuild(() => undefined), 120_000);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the tessera CLI', () => {
  // Six commands, each a process opening the store: slow on a busy machine.
  it('migrates, creates a user and an API key, and resets a password, with JSON output for scripts', {
    timeout: 600_000,
  }, async () => {
    expect(JSON.parse(await tessera(['migrate', '--json']))).toEqual({ ok: true });
    const user = JSON.parse(
      await tessera(['create-user', '--email', 'ops@example.com', '--role', 'developer', '--json']),
    );
    expect(user).toMatchObject({ email: 'ops@example.com', role: 'developer' });
    const key = JSON.parse(
      await tessera(['create-api-key', '--email', 'ops@example.com', '--name', 'deploy bot', '--json']),
    );
    expect(key).toMatchObject({ name: 'deploy bot', userId: user.id, revokedAt: null });
    expect(key.key).toMatch(/^tsk_/);
    await expect(tessera(['create-user', '--role', 'developer'])).rejects.toMatchObject({ code: 2 });
    const reset = JSON.parse(await tessera(['reset-password', '--email', 'ops@example.com', '--json']));
    expect(reset).toMatchObject({ id: user.id, email: 'ops@example.com' });
    expect(reset.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    opsPassword = reset.password;
  });

  it('runs the compiled build, whose stack traces name the TypeScript lines', async () => {
    expect(serverBuildIsCurrent()).toBe(true);
    const failed = await tessera(['start'], { PORT: 'abc' }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain('PORT must be a non-negative integer, got "abc"');
    expect(failed?.stderr).toMatch(/at loadConfig \(.*\/src\/config\/config\.ts:\d+:\d+\)/);
    expect(failed?.stderr).not.toContain('dist/main.js');
  });

  it('starts, prints where to open it and the admin key once, serves it, and stops cleanly on SIGTERM', {
    timeout: 240_000,
  }, async () => {
    const { child, output, base, port } = await start({});
    // the port the system gave, never the 0 asked for
    expect(port).toBeGreaterThan(0);
    expect(output()).toContain(`${base}/api/docs`);
    // The demo chat address printed is the chat page, which a browser opens (issue 21); the
    // stream beside it is labelled as the POST it is.
    const chatPage = /Demo chat: +(\S+)/.exec(output())?.[1];
    expect(chatPage).toMatch(new RegExp(`^${base}/chat/\\d+$`));
    const page = await fetch(chatPage!, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(output()).toMatch(/Chat API: +POST http:\/\/\S+\/chat\/stream-chat-state/);
    const keyFile = path.join(dataDir, 'admin-api-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(output()).toContain(key);
    // The first admin's password for the web app: printed once beside the key, saved 0600.
    const passwordFile = path.join(dataDir, 'admin-password');
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(output()).toContain('admin@localhost');
    expect(output()).toContain(password);
    const signIn = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.getSetCookie()[0]).toMatch(/^tessera_session=/);
    const res = await fetch(`${base}/api/v1/deployments`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { items: { name: string }[] }).items.map((d: { name: string }) => d.name),
    ).toEqual(['Demo']);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    expect(output()).toContain('Received SIGTERM');
  });

  it('reuses the data on a second start, honours TESSERA_ADMIN_API_KEY, and serves a second tenant', {
    timeout: 600_000,
  }, async () => {
    const bootstrap = generateApiKey().key;
    const tenant = JSON.parse(
      await tessera(['create-tenant', '--name', 'acme', '--domain', 'bi.acme.example', '--json']),
    );
    expect(tenant).toMatchObject({
      name: 'acme',
      customDomain: 'bi.acme.example',
      adminEmail: 'admin@acme.localhost',
    });
    expect(tenant.adminApiKey).toMatch(/^tsk_/);
    await expect(tessera(['create-tenant', '--name', 'acme'])).rejects.toMatchObject({ code: 2 });

    const { child, output, port } = await start({
      TESSERA_ADMIN_API_KEY: bootstrap,
      TESSERA_DOMAIN: 'tessera.localhost',
    });
    expect(output()).not.toContain('Admin API key');
    expect(output()).not.toContain('Password:');
    const ops = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/api/v1/session',
          method: 'POST',
          headers: { host: 'default.tessera.localhost', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ email: 'ops@example.com', password: opsPassword }));
    });
    expect(ops).toBe(200);
    // Two tenants now: the default one answers on its subdomain, acme on its custom domain.
    const res = await getJson(port, '/api/v1/users?first=100', {
      authorization: `Bearer ${bootstrap}`,
      host: 'default.tessera.localhost',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items.map((u: { email: string }) => u.email)).toEqual([
      'admin@localhost',
      'ops@example.com',
    ]);
    const acme = await getJson(port, '/api/v1/users/me', {
      authorization: `Bearer ${tenant.adminApiKey}`,
      host: 'bi.acme.example',
    });
    expect(acme.body.email).toBe('admin@acme.localhost');
    const wrongHost = await getJson(port, '/api/v1/users/me', {
      authorization: `Bearer ${tenant.adminApiKey}`,
      host: 'default.tessera.localhost',
    });
    expect(wrongHost.status).toBe(401);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });
});
