import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seed } from '../src/bootstrap/seed.ts';
import { InvalidationBus } from '../src/cache/invalidation-bus.ts';
import type { Application } from '../src/composition.ts';
import { type Config, loadConfig } from '../src/config/config.ts';
import { SecretBox } from '../src/crypto/secrets.ts';
import { sampleDatabaseFile } from '../src/datasources/registry.ts';
import { buildApp, type RouteInfo } from '../src/http/app.ts';
import type { App } from '../src/http/types.ts';
import { countSetup } from './setup-counters.ts';
import { keepSample, provideSample } from './test-samples.ts';
import { openTestStore, type TestStore } from './test-stores.ts';

export { openTestStore, type TestStore } from './test-stores.ts';

export interface TestServer {
  app: App;
  store: TestStore;
  /** The composition root's objects (src/composition.ts), for tests that reach past the API. */
  services: Application;
  routes: RouteInfo[];
  config: Config;
  adminKey: string;
  tenantId: number;
  adminUserId: number;
  /** The first admin's sign-in (modules/sign-in), as first start prints it. */
  adminEmail: string;
  adminPassword: string;
  demoDeploymentId: number;
  close(): Promise<void>;
}

/** A full Tessera app on a real store, seeded as on first start. Requests go through app.inject. */
export async function startTestServer(
  overrides: Partial<Config> = {},
  beforeReady?: (app: App) => void,
  /** Where the app's log lines go (at debug level), for a test reading them; none by default. */
  logStream?: NodeJS.WritableStream,
): Promise<TestServer> {
  countSetup('servers');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-test-'));
  const defaults = loadConfig({});
  // The notification scheduler stays off unless a test turns it on: a test drives it with tick(),
  // and no background pass may write while another test compares store snapshots.
  const scheduler = { ...defaults.scheduler, disabled: true };
  // Redis is one server for every test file, whose stores repeat ids: each test server keys its
  // results and channels apart, as installations sharing a Redis do (its replicas share this)
  const redisPrefix = `tessera-test-${process.pid}-${path.basename(dataDir)}`;
  const config: Config = {
    ...defaults,
    dataDir,
    rateLimitPerMinute: 0,
    scheduler,
    redisPrefix,
    ...overrides,
  };
  const store = await openTestStore();
  provideSample(dataDir);
  const provided = existsSync(sampleDatabaseFile(dataDir));
  const secrets = new SecretBox('test-secret');
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const bus = new InvalidationBus();
  await bus.connect(store);
  const logger = logStream ? { level: 'debug', stream: logStream } : false;
  const { app, services, routes } = await buildApp({ config, db: store.db, secrets, bus, logger });
  beforeReady?.(app);
  await app.ready();
  return {
    app,
    store,
    services,
    routes,
    config,
    adminKey: seeded.createdAdminKey!,
    tenantId: seeded.tenantId,
    adminUserId: seeded.adminUserId,
    adminEmail: seeded.adminEmail,
    adminPassword: seeded.createdAdminPassword!,
    demoDeploymentId: seeded.demoDeploymentId!,
    close: async () => {
      await app.close();
      await bus.close();
      await store.close();
      keepSample(dataDir, provided);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A second application instance on a test server's store, as another replica would run it. */
export interface Replica {
  app: App;
  services: Application;
  close(): Promise<void>;
}

export async function startReplica(
  server: TestServer,
  options: {
    /** Its own configuration (e.g. another REDIS_URL). */
    config?: Partial<Config>;
    /** Hears the store's change notifications (cache/invalidation-bus.ts), as another process does. */
    listen?: boolean;
  } = {},
): Promise<Replica> {
  countSetup('servers');
  const bus = new InvalidationBus();
  if (options.listen) await bus.connect(server.store);
  const { app, services } = await buildApp({
    config: { ...server.config, ...options.config },
    db: server.store.db,
    secrets: new SecretBox('test-secret'),
    bus,
    logger: false,
  });
  await app.ready();
  return {
    app,
    services,
    close: async () => {
      await app.close();
      await bus.close();
    },
  };
}

export function bearer(key: string) {
  return { authorization: `Bearer ${key}` };
}

/** Creates an API key through the API, as a client would. */
export async function createKey(
  server: TestServer,
  body: Record<string, unknown>,
  asKey = server.adminKey,
): Promise<{ id: number; key: string }> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: bearer(asKey),
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`creating key failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/**
 * Signs a new user with `role` in as a browser does (modules/sign-in): the session cookie to send
 * (`name=value`) and the CSRF token its writes carry in `x-csrf-token`.
 */
export async function signedInUser(server: TestServer, role: 'admin' | 'developer' | 'viewer') {
  const { user } = await userWithKey(server, role);
  const password = `password of ${user.email}`;
  const set = await server.app.inject({
    method: 'PUT',
    url: `/api/v1/users/${user.id}/password`,
    headers: bearer(server.adminKey),
    payload: { password },
  });
  if (set.statusCode !== 204) throw new Error(`setting the password failed: ${set.statusCode} ${set.body}`);
  return { user, ...(await signIn(server, user.email, password)) };
}

/** Signs in as a browser does: the session cookie (`name=value`) and the CSRF token for writes. */
export async function signIn(server: TestServer, email: string, password: string) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/session',
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`signing in failed: ${res.statusCode} ${res.body}`);
  return { cookie: String(res.headers['set-cookie']).split(';')[0], csrf: res.json().csrfToken as string };
}

/** Creates a user with a role and an API key of theirs. */
export async function userWithKey(
  server: TestServer,
  role: 'admin' | 'developer' | 'viewer',
  extra: Record<string, unknown> = {},
) {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: bearer(server.adminKey),
    payload: { email, username: email, role },
  });
  if (res.statusCode !== 200) throw new Error(`creating user failed: ${res.statusCode} ${res.body}`);
  const user = res.json();
  const key = await createKey(server, { name: `${role} key`, userId: user.id, ...extra });
  return { user, key: key.key, keyId: key.id };
}
