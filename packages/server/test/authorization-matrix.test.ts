import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedToken } from '../src/modules/embed/test-support.ts';
import {
  bearer,
  createKey,
  signedInUser,
  signIn,
  startTestServer,
  type TestServer,
  userWithKey,
} from './harness.ts';
import {
  createFixtures,
  type Fixtures,
  knownAdminPassword,
  managementRoutes,
  routeSamples,
} from './route-samples.ts';

/**
 * Spec section 5: 401 for a missing, malformed, revoked or expired credential; 403 for a valid one
 * that is not allowed; 2xx for an allowed one. A browser session cookie reads what its user's key
 * reads and writes nothing without its CSRF token. Generated from the route table: a route without
 * a sample fails here.
 */
describe('authorization matrix over every management route', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  const keys = {} as Record<'revoked' | 'expired' | 'otherScope' | 'viewer' | 'embed', string>;
  let sessions: Record<'admin' | 'viewer', { cookie: string; csrf: string }>;
  /** The first admin's browser session, as the admin key's user: content they own reads alike. */
  const adminSession = async () => signIn(server, server.adminEmail, await knownAdminPassword(fixtures));

  beforeAll(async () => {
    server = await startTestServer();
    fixtures = await createFixtures(server);
    const revoked = await createKey(server, { name: 'revoked' });
    await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${revoked.id}`,
      headers: bearer(server.adminKey),
    });
    keys.revoked = revoked.key;
    const expired = await createKey(server, {
      name: 'expired',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    // Move the expiry into the past directly in the store: the API rightly refuses past expiries.
    await sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${expired.id}`.execute(
      server.store.db,
    );
    keys.expired = expired.key;
    keys.otherScope = (
      await createKey(server, { name: 'other scope', deploymentIds: [fixtures.otherDeploymentId] })
    ).key;
    keys.viewer = (await userWithKey(server, 'viewer')).key;
    // An embed token (modules/embed) of the target deployment: a credential of its own kind.
    // Its session refuses dashboard chat (spec 4.3), so the chat routes refuse it as every other does.
    keys.embed = await embedToken(server, {
      deploymentId: fixtures.deploymentId,
      externalId: 'matrix',
      settings: { showDashboardChat: false },
    });
    // Browser sessions (modules/sign-in) of users whose passwords no sample changes.
    sessions = { admin: await adminSession(), viewer: await signedInUser(server, 'viewer') };
  });
  afterAll(() => server?.close());

  it('has a sample request for every management route', () => {
    const missing = managementRoutes(server)
      .map((r) => `${r.method} ${r.url}`)
      .filter((id) => !(id in routeSamples));
    expect(missing, 'add these routes to test/route-samples.ts').toEqual([]);
    expect(managementRoutes(server).length).toBeGreaterThanOrEqual(20);
  });

  /**
   * The routes in parts, a test each (as the bad-input test does), so that a test's time on a
   * loaded machine does not grow with the number of routes; every route is in exactly one part.
   */
  const parts = 3;
  for (let part = 0; part < parts; part++)
    it(`answers 401/401/401/401/403 and then 2xx on every route (part ${part + 1} of ${parts})`, async () => {
      const failures: string[] = [];
      for (const route of managementRoutes(server).filter((_, i) => i % parts === part)) {
        const id = `${route.method} ${route.url}`;
        const sample = await routeSamples[id](fixtures);
        const send = (authorization?: string) =>
          server.app.inject({
            method: route.method as 'GET',
            url: sample.url,
            headers: authorization === undefined ? {} : { authorization },
            ...(sample.payload ? { payload: sample.payload } : {}),
          });
        const expect401 = [
          ['no credential', undefined],
          ['malformed', 'Bearer not-a-key'],
          ['wrong scheme', `Basic ${server.adminKey}`],
          ['unknown', 'Bearer tsk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
          ['revoked', `Bearer ${keys.revoked}`],
          ['expired', `Bearer ${keys.expired}`],
        ] as const;
        for (const [label, header] of expect401) {
          const res = await send(header);
          if (res.statusCode !== 401) failures.push(`${id} ${label}: ${res.statusCode}`);
          else if (!String(res.headers['content-type']).includes('application/problem+json'))
            failures.push(`${id} ${label}: not problem+json`);
        }
        // Routes that narrow results to the key's scope answer 200 with only the scoped deployments.
        const filters = route.access && 'role' in route.access && route.access.scopedKeys === 'filter';
        const scoped = await send(`Bearer ${keys.otherScope}`);
        if (filters) {
          if (scoped.statusCode !== 200)
            failures.push(`${id} other scope: ${scoped.statusCode}, expected 200 (filtered)`);
          else if (
            route.url === '/api/v1/deployments' &&
            scoped.json().items.some((d: { id: number }) => d.id !== fixtures.otherDeploymentId)
          ) {
            failures.push(`${id} other scope: listed a deployment outside the key's scope`);
          }
        } else if (scoped.statusCode !== 403) {
          failures.push(`${id} other scope: ${scoped.statusCode}`);
        }
        const needsMoreThanViewer = route.access && 'role' in route.access && route.access.role !== 'viewer';
        if (needsMoreThanViewer) {
          const viewer = await send(`Bearer ${keys.viewer}`);
          if (viewer.statusCode !== 403) failures.push(`${id} viewer: ${viewer.statusCode}`);
        }
        // Embed tokens reach only the routes that declare `embed: 'read'` (their own tests cover
        // those); this token's session allows neither chat nor creator mode, so `chat` and `create`
        // routes refuse it as every other route does.
        const takesEmbed = route.access && 'role' in route.access && route.access.embed === 'read';
        if (!takesEmbed) {
          const embed = await send(`Bearer ${keys.embed}`);
          if (embed.statusCode !== 403) failures.push(`${id} embed token: ${embed.statusCode}`);
        }
        // A browser session acts as its user's unscoped key: reads answer as they do, a write without
        // the session's CSRF token is refused before it runs (a viewer's, by the role check first).
        const withCookie = (session: typeof sessions.admin, csrf: boolean) =>
          server.app.inject({
            method: route.method as 'GET',
            url: sample.url,
            headers: { cookie: session.cookie, ...(csrf ? { 'x-csrf-token': session.csrf } : {}) },
            ...(sample.payload ? { payload: sample.payload } : {}),
          });
        // Samples that set the admin's password end the admin's sessions: sign in again then.
        let answer = await withCookie(sessions.admin, false);
        if (answer.statusCode === 401 && answer.json().code === 'credential_revoked') {
          sessions.admin = await adminSession();
          answer = await withCookie(sessions.admin, false);
        }
        if (
          route.method === 'GET'
            ? answer.statusCode < 200 || answer.statusCode > 299
            : answer.statusCode !== 403 || answer.json().code !== 'csrf_token_invalid'
        )
          failures.push(
            `${id} admin session (no CSRF token): ${answer.statusCode} ${answer.body.slice(0, 200)}`,
          );
        if (needsMoreThanViewer) {
          const viewer = await withCookie(sessions.viewer, true);
          if (viewer.statusCode !== 403) failures.push(`${id} viewer session: ${viewer.statusCode}`);
        }
        const ok = await send(`Bearer ${server.adminKey}`);
        if (ok.statusCode < 200 || ok.statusCode > 299)
          failures.push(`${id} valid: ${ok.statusCode} ${ok.body.slice(0, 200)}`);
      }
      expect(failures).toEqual([]);
    });
});
