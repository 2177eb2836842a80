import { readFileSync, statSync } from 'node:fs';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';
import { storeChangedSince, storeMark } from '../../../test/store-changes.ts';
import { seed } from '../../bootstrap/seed.ts';
import { SecretBox, sha256 } from '../../crypto/secrets.ts';
import { embedToken } from '../embed/test-support.ts';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read as loosely typed JSON in assertions.
type Json = any;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/** A browser: the cookie it was given and the CSRF token the page read, over real HTTP. */
interface Browser {
  cookie: string;
  csrf: string;
  userId: number;
}

/** A route only embed tokens may call, as `credential: 'embed', embed: 'read'` declares it. */
const embedOnlyPath = '/api/v1/test/embed-only';

/**
 * Browser sign-in over real HTTP on loopback (DESIGN.md "Web app and sessions"): the cookie, its
 * CSRF token, sign-out, both expiry limits, deactivation, the routes a cookie may not call,
 * password rules, parallel sign-ins and the throttle of failed attempts.
 */
describe('browser sign-in', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer({}, (app) => {
      app.get(
        embedOnlyPath,
        {
          schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } },
          config: { access: { role: 'viewer', credential: 'embed', embed: 'read', scopedKeys: 'service' } },
        },
        async () => ({ ok: true }),
      );
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const address = server.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => server?.close());

  async function send(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Answer> {
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
  }

  /** Only the `name=value` part of the session cookie a response sets. */
  function sessionCookie(res: Answer): string | undefined {
    return res.headers
      .getSetCookie()
      .find((c) => c.startsWith('tessera_session='))
      ?.split(';')[0];
  }

  async function signIn(email: string, password: string): Promise<Browser> {
    const res = await send('POST', '/api/v1/session', { body: { email, password } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cookie = sessionCookie(res);
    if (!cookie) throw new Error('no session cookie');
    return { cookie, csrf: res.body.csrfToken, userId: res.body.user.id };
  }

  /** As the web app calls: the cookie, and the CSRF header on writes. */
  const as = (browser: Browser, csrf: string | null = browser.csrf) => ({
    cookie: browser.cookie,
    ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
  });

  /** A user with a password and an API key of theirs. */
  async function userWithPassword(
    role: 'admin' | 'developer' | 'viewer',
    password = 'a long enough password',
  ) {
    const made = await userWithKey(server, role);
    const set = await send('PUT', `/api/v1/users/${made.user.id}/password`, {
      body: { password },
      headers: bearer(server.adminKey),
    });
    expect(set.status).toBe(204);
    return { ...made, email: made.user.email as string, password };
  }

  const sessionRow = (browser: Browser) =>
    server.store.db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('session_hash', '=', sha256(browser.cookie.split('=')[1]))
      .executeTakeFirstOrThrow();

  it('signs in with the password first start printed: an HttpOnly, SameSite=Lax cookie stored only as a hash', async () => {
    const res = await send('POST', '/api/v1/session', {
      body: { email: 'ADMIN@localhost', password: server.adminPassword },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({
      id: server.adminUserId,
      email: 'admin@localhost',
      firstName: 'Tessera',
      lastName: 'Admin',
      role: 'admin',
      isAdmin: true,
    });
    expect(res.body.user).not.toHaveProperty('passwordHash');
    expect(res.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const setCookie = res.headers.getSetCookie();
    expect(setCookie).toHaveLength(1);
    const [pair, ...attributes] = setCookie[0].split('; ');
    expect(pair).toMatch(/^tessera_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes.some((a) => a.startsWith('Expires='))).toBe(true);
    // Development serves plain HTTP: a Secure cookie would never come back.
    expect(attributes).not.toContain('Secure');
    const expires = new Date(attributes.find((a) => a.startsWith('Expires='))!.slice('Expires='.length));
    expect(Math.abs(expires.getTime() - (Date.now() + 7 * 24 * 3_600_000))).toBeLessThan(60_000);

    const id = pair.split('=')[1];
    const row = await server.store.db
      .selectFrom('browser_sessions')
      .selectAll()
      .where('session_hash', '=', sha256(id))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: server.adminUserId, tenant_id: server.tenantId, revoked_at: null });
    expect(
      JSON.stringify(await server.store.db.selectFrom('browser_sessions').selectAll().execute()),
    ).not.toContain(id);
    const stored = await server.store.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', server.adminUserId)
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('sets a Secure cookie in production', async () => {
    const production = await startTestServer({ env: 'production', trustProxy: true });
    try {
      const res = await production.app.inject({
        method: 'POST',
        url: '/api/v1/session',
        headers: { 'x-forwarded-proto': 'https' },
        payload: { email: production.adminEmail, password: production.adminPassword },
      });
      expect(res.statusCode).toBe(200);
      const setCookie = String(res.headers['set-cookie']);
      expect(setCookie.split('; ')).toEqual(
        expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']),
      );
    } finally {
      await production.close();
    }
  });

  it('answers a wrong password, an unknown email, a deactivated user and one without a password alike', async () => {
    const active = await userWithPassword('viewer');
    const deactivated = await userWithPassword('viewer');
    await send('PUT', `/api/v1/users/${deactivated.user.id}`, {
      body: { isDeactivated: true },
      headers: bearer(server.adminKey),
    });
    const passwordless = await userWithKey(server, 'viewer');
    const before = await storeMark(server);
    const attempts = [
      { email: active.email, password: 'not the password' },
      { email: 'nobody@example.com', password: active.password },
      { email: deactivated.email, password: deactivated.password },
      { email: passwordless.user.email, password: 'anything at all' },
    ];
    const answers = [];
    for (const body of attempts) {
      const res = await send('POST', '/api/v1/session', { body });
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      answers.push({
        status: res.status,
        code: res.body.code,
        title: res.body.title,
        detail: res.body.detail,
      });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toMatchObject({ status: 401, code: 'sign_in_failed' });
    expect(await storeChangedSince(server, before)).toEqual([]);
    // The right password still opens a session.
    await signIn(active.email, active.password);
  });

  it('refuses bad input with 400 naming the field, writing nothing', async () => {
    const before = await storeMark(server);
    const cases: [unknown, string[]][] = [
      [{}, ['body/email', 'body/password']],
      [{ email: 5, password: 'x' }, ['body/email']],
      [{ email: 'a@b.c', password: '' }, ['body/password']],
      [{ email: 'a@b.c', password: 'x', remember: true }, ['body/remember']],
      [{ email: 'a@b.c', password: 'x'.repeat(1025) }, ['body/password']],
      [{ email: 'a\u0000@b.c', password: 'long enough password' }, ['body/email']],
    ];
    for (const [body, fields] of cases) {
      const res = await send('POST', '/api/v1/session', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(fields));
    }
    const malformed = await send('POST', '/api/v1/session', { raw: '{"email": "a@b.c",' });
    expect(malformed.status).toBe(400);
    expect(await storeChangedSince(server, before)).toEqual([]);
  });

  it('authenticates management reads with the cookie, and answers who is signed in with a fresh CSRF token', async () => {
    const browser = await signIn(server.adminEmail, server.adminPassword);
    const deployments = await send('GET', '/api/v1/deployments', { headers: as(browser, null) });
    expect(deployments.status).toBe(200);
    expect(deployments.body.items.length).toBeGreaterThan(0);
    const me = await send('GET', '/api/v1/session', { headers: as(browser, null) });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(server.adminUserId);
    expect(me.body.csrfToken).not.toBe(browser.csrf);
    // An API key has no session and needs no token.
    const withKey = await send('GET', '/api/v1/session', { headers: bearer(server.adminKey) });
    expect(withKey.body).toMatchObject({ user: { id: server.adminUserId }, csrfToken: null });
    // No credential at all.
    const none = await send('GET', '/api/v1/session');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('credential_missing');
    const forged = await send('GET', '/api/v1/session', {
      headers: { cookie: `tessera_session=${'A'.repeat(43)}` },
    });
    expect(forged.body.code).toBe('credential_invalid');
    const malformed = await send('GET', '/api/v1/session', { headers: { cookie: 'tessera_session=abc' } });
    expect(malformed.body.code).toBe('credential_malformed');
  });

  it('needs the CSRF token of the session on every write the cookie authenticates', async () => {
    const browser = await signIn(server.adminEmail, server.adminPassword);
    const other = await signIn(server.adminEmail, server.adminPassword);
    const group = (name: string) => ({ body: { name } });
    const before = await storeMark(server);
    for (const [label, csrf] of [
      ['missing', null],
      ['wrong', 'abc.def'],
      ['empty', ''],
      ['of another session', other.csrf],
      ['the session id itself', browser.cookie.split('=')[1]],
    ] as const) {
      const res = await send('POST', '/api/v1/groups', {
        ...group(`csrf ${label}`),
        headers: as(browser, csrf),
      });
      expect(res.status, label).toBe(403);
      expect(res.body.code, label).toBe('csrf_token_invalid');
    }
    for (const [method, path, body] of [
      ['PUT', '/api/v1/app-config', { applyThemeGlobally: true }],
      ['PATCH', '/api/v1/embed/dashboard/no-such-dashboard', { allowEmbed: true }],
      ['DELETE', '/api/v1/groups/1', undefined],
    ] as const) {
      const res = await send(method, path, { body, headers: as(browser, null) });
      expect(res.status, method).toBe(403);
      expect(res.body.code, method).toBe('csrf_token_invalid');
    }
    expect(await storeChangedSince(server, before)).toEqual([]);

    const created = await send('POST', '/api/v1/groups', { ...group('csrf right'), headers: as(browser) });
    expect(created.status).toBe(200);
    // Every token issued to the session stays valid: the one GET answered works too.
    const fresh = (await send('GET', '/api/v1/session', { headers: as(browser, null) })).body.csrfToken;
    const again = await send('POST', '/api/v1/groups', {
      ...group('csrf fresh'),
      headers: as(browser, fresh),
    });
    expect(again.status).toBe(200);
  });

  it('ignores the cookie when an Authorization header is sent: API keys need no CSRF token', async () => {
    const browser = await signIn(server.adminEmail, server.adminPassword);
    const garbage = await send('GET', '/api/v1/deployments', {
      headers: { ...as(browser, null), authorization: 'Bearer nope' },
    });
    expect(garbage.status).toBe(401);
    const viewer = await userWithKey(server, 'viewer');
    // The admin's cookie does not lift a viewer key to admin.
    const lifted = await send('GET', '/api/v1/users', { headers: { ...as(browser), ...bearer(viewer.key) } });
    expect(lifted.status).toBe(403);
    const keyWrite = await send('POST', '/api/v1/groups', {
      body: { name: 'by key' },
      headers: { cookie: browser.cookie, ...bearer(server.adminKey) },
    });
    expect(keyWrite.status).toBe(200);
  });

  it('signs out: the session ends at once, the cookie is cleared, and signing out again is no error', async () => {
    const browser = await signIn(server.adminEmail, server.adminPassword);
    expect((await send('GET', '/api/v1/deployments', { headers: as(browser, null) })).status).toBe(200);
    const forged = await send('DELETE', '/api/v1/session', { headers: as(browser, null) });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('csrf_token_invalid');
    expect((await send('GET', '/api/v1/deployments', { headers: as(browser, null) })).status).toBe(200);

    const out = await send('DELETE', '/api/v1/session', { headers: as(browser) });
    expect(out.status).toBe(204);
    const cleared = out.headers.getSetCookie();
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(/^tessera_session=;/);
    expect(cleared[0]).toMatch(/Expires=Thu, 01 Jan 1970 00:00:00 GMT/);
    expect((await sessionRow(browser)).revoked_at).not.toBeNull();
    const after = await send('GET', '/api/v1/deployments', { headers: as(browser, null) });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('credential_revoked');
    expect((await send('DELETE', '/api/v1/session', { headers: as(browser) })).status).toBe(204);
    expect((await send('DELETE', '/api/v1/session')).status).toBe(204);
  });

  it('ends a session at its absolute limit and after the idle timeout, and keeps an active one alive', async () => {
    const absolute = await signIn(server.adminEmail, server.adminPassword);
    await sql`update browser_sessions set expires_at = now() - interval '1 second' where id = ${(await sessionRow(absolute)).id}`.execute(
      server.store.db,
    );
    const a = await send('GET', '/api/v1/session', { headers: as(absolute, null) });
    expect(a.status).toBe(401);
    expect(a.body.code).toBe('credential_expired');

    const idle = await signIn(server.adminEmail, server.adminPassword);
    await sql`update browser_sessions set last_seen_at = now() - interval '12 hours 1 minute' where id = ${(await sessionRow(idle)).id}`.execute(
      server.store.db,
    );
    const b = await send('GET', '/api/v1/session', { headers: as(idle, null) });
    expect(b.body.code).toBe('credential_expired');

    const active = await signIn(server.adminEmail, server.adminPassword);
    const row = await sessionRow(active);
    await sql`update browser_sessions set last_seen_at = now() - interval '11 hours' where id = ${row.id}`.execute(
      server.store.db,
    );
    expect((await send('GET', '/api/v1/session', { headers: as(active, null) })).status).toBe(200);
    // The request moved last_seen_at (written off the request path: wait for it).
    await expect
      .poll(async () => Date.now() - (await sessionRow(active)).last_seen_at.getTime())
      .toBeLessThan(60_000);
  });

  it("ends a user's sessions at once when an admin or SCIM deactivates them", async () => {
    const byAdmin = await userWithPassword('developer');
    const browser = await signIn(byAdmin.email, byAdmin.password);
    expect((await send('GET', '/api/v1/deployments', { headers: as(browser, null) })).status).toBe(200);
    const off = await send('PUT', `/api/v1/users/${byAdmin.user.id}`, {
      body: { isDeactivated: true },
      headers: bearer(server.adminKey),
    });
    expect(off.status).toBe(200);
    expect((await send('GET', '/api/v1/deployments', { headers: as(browser, null) })).status).toBe(401);
    expect((await sessionRow(browser)).revoked_at).not.toBeNull();
    // Reactivating does not bring the old session back.
    await send('PUT', `/api/v1/users/${byAdmin.user.id}`, {
      body: { isDeactivated: false },
      headers: bearer(server.adminKey),
    });
    expect((await send('GET', '/api/v1/deployments', { headers: as(browser, null) })).status).toBe(401);

    const scim = await scimClient(server);
    const provisioned = await scim.user('sso-user@example.com');
    const userId = Number(provisioned.id);
    await send('PUT', `/api/v1/users/${userId}/password`, {
      body: { password: 'provisioned password' },
      headers: bearer(server.adminKey),
    });
    const sso = await signIn('sso-user@example.com', 'provisioned password');
    expect((await send('GET', '/api/v1/session', { headers: as(sso, null) })).status).toBe(200);
    const patched = await scim.call(
      'PATCH',
      `/Users/${provisioned.id}`,
      scim.patchOp({ op: 'replace', path: 'active', value: false }),
    );
    expect(patched.status).toBe(200);
    expect((await send('GET', '/api/v1/session', { headers: as(sso, null) })).status).toBe(401);
    const again = await send('POST', '/api/v1/session', {
      body: { email: 'sso-user@example.com', password: 'provisioned password' },
    });
    expect(again.body.code).toBe('sign_in_failed');
  });

  it('refuses the cookie on SCIM and on routes only embed tokens may call', async () => {
    const browser = await signIn(server.adminEmail, server.adminPassword);
    const scim = await send('GET', '/api/scim/v2/Users', { headers: as(browser, null) });
    expect(scim.status).toBe(403);
    expect(scim.headers.get('content-type')).toContain('application/scim+json');
    const scimWrite = await send('POST', '/api/scim/v2/Groups', {
      body: { displayName: 'by cookie' },
      headers: as(browser),
    });
    expect(scimWrite.status).toBe(403);

    const embedOnly = await send('GET', embedOnlyPath, { headers: as(browser, null) });
    expect(embedOnly.status).toBe(403);
    expect(embedOnly.body.code).toBe('credential_kind_not_allowed');
    expect((await send('GET', embedOnlyPath, { headers: bearer(server.adminKey) })).status).toBe(403);
    const token = await embedToken(server, {
      deploymentId: server.demoDeploymentId,
      externalId: 'embed-only',
    });
    expect((await send('GET', embedOnlyPath, { headers: bearer(token) })).body).toEqual({ ok: true });
  });

  it('changes the own password with the current one: rules named by field, other sessions end', async () => {
    const user = await userWithPassword('viewer', 'the first password');
    const browser = await signIn(user.email, user.password);
    const elsewhere = await signIn(user.email, user.password);
    const change = (body: unknown, headers = as(browser)) =>
      send('PUT', '/api/v1/session/password', { body, headers });

    const before = await storeMark(server);
    const refusals: [unknown, string][] = [
      [{ currentPassword: 'not it at all', newPassword: 'a brand new password' }, 'body/currentPassword'],
      [{ currentPassword: user.password, newPassword: 'elevenchars' }, 'body/newPassword'],
      [{ currentPassword: user.password }, 'body/newPassword'],
      [{ newPassword: 'a brand new password' }, 'body/currentPassword'],
      [{ currentPassword: user.password, newPassword: 'x'.repeat(1025) }, 'body/newPassword'],
    ];
    for (const [body, field] of refusals) {
      const res = await change(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect(
      (
        await change(
          { currentPassword: user.password, newPassword: 'a brand new password' },
          as(browser, null),
        )
      ).status,
    ).toBe(403);
    expect(await storeChangedSince(server, before)).toEqual([]);

    // Twelve characters is enough (code points, not bytes).
    const changed = await change({ currentPassword: user.password, newPassword: 'ünïcödé pass' });
    expect(changed.status).toBe(204);
    expect((await send('GET', '/api/v1/session', { headers: as(browser, null) })).status).toBe(200);
    expect((await send('GET', '/api/v1/session', { headers: as(elsewhere, null) })).status).toBe(401);
    const old = await send('POST', '/api/v1/session', {
      body: { email: user.email, password: user.password },
    });
    expect(old.status).toBe(401);
    await signIn(user.email, 'ünïcödé pass');

    // With an API key too (no CSRF): every session of the user ends.
    const byKey = await send('PUT', '/api/v1/session/password', {
      body: { currentPassword: 'ünïcödé pass', newPassword: 'set with the key' },
      headers: bearer(user.key),
    });
    expect(byKey.status).toBe(204);
    expect((await send('GET', '/api/v1/session', { headers: as(browser, null) })).status).toBe(401);
  });

  it("lets only admins set another user's password, ending that user's sessions", async () => {
    const target = await userWithPassword('developer');
    const session = await signIn(target.email, target.password);
    const developer = await userWithKey(server, 'developer');
    const set = (id: number, body: unknown, headers: Record<string, string>) =>
      send('PUT', `/api/v1/users/${id}/password`, { body, headers });

    expect((await set(target.user.id, { password: 'developer tries' }, bearer(developer.key))).status).toBe(
      403,
    );
    expect((await set(target.user.id, { password: 'developer tries' }, as(session))).status).toBe(403);
    const short = await set(target.user.id, { password: 'short' }, bearer(server.adminKey));
    expect(short.status).toBe(400);
    expect(short.body.errors.map((e: { field: string }) => e.field)).toContain('body/password');
    expect((await set(999_999, { password: 'nobody has this' }, bearer(server.adminKey))).body.code).toBe(
      'user_not_found',
    );
    expect((await send('GET', '/api/v1/session', { headers: as(session, null) })).status).toBe(200);

    // An admin signed in with the cookie (and its CSRF token) sets it.
    const admin = await signIn(server.adminEmail, server.adminPassword);
    expect((await set(target.user.id, { password: 'set by an admin' }, as(admin))).status).toBe(204);
    expect((await send('GET', '/api/v1/session', { headers: as(session, null) })).status).toBe(401);
    expect((await send('GET', '/api/v1/session', { headers: as(admin, null) })).status).toBe(200);
    await signIn(target.email, 'set by an admin');
  });

  it('opens twenty distinct sessions for twenty parallel sign-ins', async () => {
    const user = await userWithPassword('viewer');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        send('POST', '/api/v1/session', { body: { email: user.email, password: user.password } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const cookies = answers.map((a) => sessionCookie(a)!);
    expect(new Set(cookies).size).toBe(20);
    expect(new Set(answers.map((a) => a.body.csrfToken)).size).toBe(20);
    const rows = await server.store.db
      .selectFrom('browser_sessions')
      .select('session_hash')
      .where('user_id', '=', user.user.id)
      .execute();
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((r) => r.session_hash))).toEqual(
      new Set(cookies.map((c) => sha256(c.split('=')[1]))),
    );
    const checks = await Promise.all(
      cookies.map((cookie) => send('GET', '/api/v1/session', { headers: { cookie } })),
    );
    expect(checks.map((c) => c.body.user.id)).toEqual(Array(20).fill(user.user.id));
  });

  it('throttles failed sign-ins per email and address: 429 with Retry-After, even for the right password', async () => {
    const user = await userWithPassword('viewer');
    const wrong = { email: user.email, password: 'guess number n' };
    const failures = await Promise.all(
      Array.from({ length: 10 }, () => send('POST', '/api/v1/session', { body: wrong })),
    );
    expect(failures.map((f) => f.status)).toEqual(Array(10).fill(401));
    for (const body of [wrong, { email: user.email.toUpperCase(), password: user.password }]) {
      const res = await send('POST', '/api/v1/session', { body });
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('sign_in_throttled');
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    }
    // Another email from the same address is not held back.
    const other = await userWithPassword('viewer');
    await signIn(other.email, other.password);

    // Parallel guesses cannot slip past the limit: of 15 at once, 10 are checked.
    const third = await userWithPassword('viewer');
    const burst = await Promise.all(
      Array.from({ length: 15 }, () =>
        send('POST', '/api/v1/session', { body: { email: third.email, password: 'parallel guess' } }),
      ),
    );
    expect(burst.filter((b) => b.status === 401)).toHaveLength(10);
    expect(burst.filter((b) => b.status === 429)).toHaveLength(5);

    // Wrong current passwords count the same way.
    const changer = await userWithPassword('viewer');
    for (let i = 0; i < 10; i++) {
      const res = await send('PUT', '/api/v1/session/password', {
        body: { currentPassword: `wrong ${i}`, newPassword: 'never accepted' },
        headers: bearer(changer.key),
      });
      expect(res.status).toBe(400);
    }
    const blocked = await send('PUT', '/api/v1/session/password', {
      body: { currentPassword: changer.password, newPassword: 'never accepted' },
      headers: bearer(changer.key),
    });
    expect(blocked.status).toBe(429);
  });
});

describe('the first admin password', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('is generated once, saved 0600 beside the admin key, and kept by later starts', async () => {
    const file = `${server.config.dataDir}/admin-password`;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${server.adminPassword}\n`);
    expect(server.adminPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const hashBefore = await server.store.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', server.adminUserId)
      .executeTakeFirstOrThrow();

    const second = await seed(server.store.db, new SecretBox('test-secret'), {
      dataDir: server.config.dataDir,
      adminApiKey: null,
      skipDemo: false,
    });
    expect(second.createdAdminPassword).toBeNull();
    expect(second.adminEmail).toBe('admin@localhost');
    const hashAfter = await server.store.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', server.adminUserId)
      .executeTakeFirstOrThrow();
    expect(hashAfter).toEqual(hashBefore);
    expect(readFileSync(file, 'utf8')).toBe(`${server.adminPassword}\n`);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/session',
      payload: { email: server.adminEmail, password: server.adminPassword },
    });
    expect(res.statusCode).toBe(200);
  });
});
