/**
 * A server process for the crash test (modules/notifications/crash.test.ts): the application on a PostgreSQL store,
 * running one scheduler pass at a given time, as a replica would. The test kills it with SIGKILL
 * mid-delivery and starts another. Env: CRASH_DATABASE_URL, CRASH_SMTP_URL, CRASH_DATA_DIR,
 * CRASH_AT (ISO time of the pass), CRASH_LEASE_MS.
 */
import { loadConfig } from '../src/config/config.ts';
import { SecretBox } from '../src/crypto/secrets.ts';
import { openStore } from '../src/db/database.ts';
import { buildApp } from '../src/http/app.ts';

const env = process.env;
const store = await openStore({ databaseUrl: env.CRASH_DATABASE_URL as string, poolSize: 4 });
const config = {
  ...loadConfig({}),
  dataDir: env.CRASH_DATA_DIR as string,
  smtpUrl: env.CRASH_SMTP_URL as string,
  scheduler: { disabled: true, intervalMs: 60_000, concurrency: 2 },
};
const { app, services } = await buildApp({
  config,
  db: store.db,
  secrets: new SecretBox('test-secret'),
  logger: false,
});
await app.ready();
const scheduler = services.notifications.scheduler;
(scheduler.options as { leaseMs: number }).leaseMs = Number(env.CRASH_LEASE_MS);
process.stdout.write('ready\n');
const result = await scheduler.tick(new Date(env.CRASH_AT as string));
process.stdout.write(`${JSON.stringify(result)}\n`);
await app.close();
await store.close();
