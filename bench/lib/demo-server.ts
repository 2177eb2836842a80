/**
 * Shared by the browser benchmarks (bench/embed/draw.ts, bench/web): a Tessera server on loopback
 * over the sample DuckDB database at scale 1 (1,000,000 orders), seeded as on first start, with
 * the demo deployment's "Demo shop" dashboard, an admin API key and a way to sign a browser in.
 */
import os from 'node:os';
import path from 'node:path';
import { DEMO_WORKBOOK_NAME, seedDemoDashboard } from '../../packages/server/src/bootstrap/demo-dashboard.ts';
import { type SeedResult, seed } from '../../packages/server/src/bootstrap/seed.ts';
import { InvalidationBus } from '../../packages/server/src/cache/invalidation-bus.ts';
import type { Application } from '../../packages/server/src/composition.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { SecretBox } from '../../packages/server/src/crypto/secrets.ts';
import { sampleDatabaseFile } from '../../packages/server/src/datasources/registry.ts';
import { ensureSampleDatabase } from '../../packages/server/src/datasources/sample/generate.ts';
import { openStore } from '../../packages/server/src/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/db/migrate.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';
import { hashPassword } from '../../packages/server/src/modules/sign-in/passwords.ts';

export interface DemoServer {
  base: string;
  /** The sample DuckDB file the demo deployment queries. */
  sampleFile: string;
  deploymentId: number;
  publicId: string;
  adminKey: string;
  /** A new embed session's page address, as a host application would put in its iframe. */
  embedUrl(): Promise<string>;
  /** Signs the admin in as the sign-in page does: the session cookie's name and value. */
  adminSessionCookie(): Promise<{ name: string; value: string }>;
  close(): Promise<void>;
}

export async function api(base: string, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * The demo deployment's "Demo shop" dashboard (bootstrap/demo-dashboard.ts): six widgets on the
 * sample data (a figure, a line, a donut, two bar charts and a table), embedding allowed. Reused
 * when the first start already made it.
 */
async function demoDashboard(base: string, key: string, services: Application, seeded: SeedResult) {
  const listed = await api(base, key, 'GET', `/api/v1/embed?deploymentId=${seeded.demoDeploymentId}`);
  const found = listed.items.find((d: { title: string | null }) => d.title === DEMO_WORKBOOK_NAME);
  if (found) return found.publicId as string;
  const board = await seedDemoDashboard(services, {
    tenantId: seeded.tenantId,
    userId: seeded.adminUserId,
    deploymentId: seeded.demoDeploymentId as number,
  });
  return board.publicId;
}

/**
 * Env: `dataDirEnv` names the variable holding the data directory (default `$TMPDIR/<fallback>`),
 * where the generated sample database is kept between runs. `env` overrides settings read from
 * the environment (e.g. a short result freshness, so that every filter change queries the engine).
 */
export async function startDemoServer(options: {
  dataDir: string;
  env?: Record<string, string>;
}): Promise<DemoServer> {
  const { dataDir } = options;
  const sampleFile = sampleDatabaseFile(dataDir);
  await ensureSampleDatabase(sampleFile, 1, (line) => process.stderr.write(`\r${line}   `));
  process.stderr.write('\n');
  const store = await openStore({ databaseUrl: null });
  await migrateToLatest(store.db as never);
  const secrets = new SecretBox('bench');
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const config = { ...loadConfig({ ...process.env, ...options.env }), dataDir, rateLimitPerMinute: 0 };
  Object.assign(process.env, options.env);
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app, services } = await buildApp({ config, db: store.db, secrets, bus, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const key = seeded.createdAdminKey as string;
  const deploymentId = seeded.demoDeploymentId as number;
  const publicId = await demoDashboard(base, key, services, seeded);
  const password = 'a benchmark password, long enough';
  await store.db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', seeded.adminUserId)
    .execute();
  const admin = await api(base, key, 'GET', `/api/v1/users/${seeded.adminUserId}`);
  return {
    base,
    sampleFile,
    deploymentId,
    publicId,
    adminKey: key,
    embedUrl: async () => {
      const { sessionId } = await api(base, key, 'POST', '/api/v1/embed/generate-session', {
        deploymentId,
        externalId: 'bench-viewer',
        publicDashboardId: publicId,
      });
      return `${base}/embed/dashboard/${publicId}?session=${sessionId}`;
    },
    adminSessionCookie: async () => {
      const res = await fetch(`${base}/api/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: admin.email, password }),
      });
      if (res.status !== 200) throw new Error(`signing in failed: ${res.status} ${await res.text()}`);
      const [pair] = String(res.headers.get('set-cookie')).split(';');
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1) };
    },
    close: async () => {
      await app.close();
      await bus.close();
      await store.close();
    },
  };
}

/** The default data directory of a benchmark, under the system's temporary directory. */
export function benchDataDir(envName: string, fallback: string): string {
  return process.env[envName] ?? path.join(os.tmpdir(), fallback);
}
