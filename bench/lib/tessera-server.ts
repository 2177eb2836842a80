/**
 * Shared by the HTTP, embed and chat benchmarks: the seeded Tessera app (demo deployment, an
 * admin API key, no rate limit) listening on loopback over a given store.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seed } from '../../packages/server/src/bootstrap/seed.ts';
import { InvalidationBus } from '../../packages/server/src/cache/invalidation-bus.ts';
import type { Application } from '../../packages/server/src/composition.ts';
import { loadConfig } from '../../packages/server/src/config/config.ts';
import { SecretBox } from '../../packages/server/src/crypto/secrets.ts';
import type { Store } from '../../packages/server/src/db/database.ts';
import { buildApp } from '../../packages/server/src/http/app.ts';

export interface TesseraServer {
  /** `http://127.0.0.1:{port}`. */
  base: string;
  seeded: Awaited<ReturnType<typeof seed>>;
  /** The composition root's objects, for benchmarks that call a service in process as well. */
  services: Application;
  /** Where the sample DuckDB database is generated on the first query (datasources/registry.ts). */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * `name` tells the benchmark's data directories apart in $TMPDIR; `dataDir` reuses one instead
 * (a sample database generated there by an earlier run is not generated again).
 */
export async function startTessera(
  store: Store,
  name: string,
  options: { dataDir?: string } = {},
): Promise<TesseraServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), `tessera-bench-${name}-`));
  const secrets = new SecretBox('bench');
  const seeded = await seed(store.db, secrets, { dataDir, adminApiKey: null, skipDemo: false });
  const config = { ...loadConfig({}), dataDir, rateLimitPerMinute: 0 };
  const bus = new InvalidationBus();
  await bus.connect(store);
  const { app, services } = await buildApp({ config, db: store.db, secrets, bus, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    base,
    seeded,
    services,
    dataDir,
    close: async () => {
      await app.close();
      await bus.close();
    },
  };
}
