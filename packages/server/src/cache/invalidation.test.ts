import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey, startTestServer, type TestServer } from '../../test/harness.ts';
import { SecretBox } from '../crypto/secrets.ts';
import { buildApp } from '../http/app.ts';
import type { App } from '../http/types.ts';
import { InvalidationBus } from './invalidation-bus.ts';

/**
 * Two replicas on one store: a write on one must reach the other's caches through the store's
 * change notifications, not wait for the cache TTL (30 s).
 */
describe('cache invalidation across replicas', () => {
  let server: TestServer;
  let replica: App;
  let replicaBus: InvalidationBus;
  beforeAll(async () => {
    server = await startTestServer();
    replicaBus = new InvalidationBus();
    await replicaBus.connect(server.store);
    replica = (
      await buildApp({
        config: server.config,
        db: server.store.db,
        secrets: new SecretBox('test-secret'),
        bus: replicaBus,
        logger: false,
      })
    ).app;
    await replica.ready();
  });
  afterAll(async () => {
    await replica?.close();
    await replicaBus?.close();
    await server?.close();
  });

  async function eventually(check: () => Promise<boolean>, ms = 3000) {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  it('refuses a key on the other replica soon after it is revoked here', async () => {
    const key = await createKey(server, { name: 'replicated' });
    expect((await replica.inject({ url: '/api/v1/deployments', headers: bearer(key.key) })).statusCode).toBe(
      200,
    );
    await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      headers: bearer(server.adminKey),
    });
    const refused = await eventually(
      async () =>
        (await replica.inject({ url: '/api/v1/deployments', headers: bearer(key.key) })).statusCode === 401,
    );
    expect(refused).toBe(true);
  });

  it("shows a deployment created here in the other replica's list", async () => {
    const before = (
      await replica.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) })
    ).json().count;
    await server.app.inject({
      method: 'POST',
      url: '/api/v1/deployments',
      headers: bearer(server.adminKey),
      payload: { name: 'fresh' },
    });
    const seen = await eventually(
      async () =>
        (await replica.inject({ url: '/api/v1/deployments', headers: bearer(server.adminKey) })).json()
          .count ===
        before + 1,
    );
    expect(seen).toBe(true);
  });
});
