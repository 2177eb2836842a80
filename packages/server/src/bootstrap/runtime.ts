import path from 'node:path';
import type { Config } from '../config/config.ts';
import { SecretBox } from '../crypto/secrets.ts';
import { openStore, type Store } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { resolveSecretKey } from './secret-key.ts';

/** Opens the configured store and brings its schema up to date. */
export async function openMigratedStore(config: Config): Promise<Store> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pgdata'),
  });
  try {
    await migrateToLatest(store.db as never);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

export function secretBoxFor(config: Config): SecretBox {
  return new SecretBox(resolveSecretKey(config.secretKey, config.dataDir));
}
