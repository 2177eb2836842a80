/**
 * Runs a benchmark on a migrated PGlite store, then on a fresh PostgreSQL database
 * (TESSERA_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test) when reachable,
 * dropped afterwards.
 */
import pg from 'pg';
import { openStore, type Store } from '../../packages/server/src/db/database.ts';
import { migrateToLatest } from '../../packages/server/src/db/migrate.ts';

export type Engine = 'PGlite' | 'PostgreSQL';

export interface EachStoreOptions {
  /** Part of the PostgreSQL database's name (with the process id). */
  name: string;
  /** PostgreSQL pool size. */
  poolSize: number;
}

export async function onEachStore(
  options: EachStoreOptions,
  run: (engine: Engine, store: Store) => Promise<void>,
): Promise<void> {
  const pglite = await openStore({ databaseUrl: null });
  try {
    await migrateToLatest(pglite.db as never);
    await run('PGlite', pglite);
  } finally {
    await pglite.close();
  }
  const postgres = await postgresStore(options);
  if (!postgres) {
    console.log('PostgreSQL not reachable: skipped (CI runs it)');
    return;
  }
  try {
    await run('PostgreSQL', postgres.store);
  } finally {
    await postgres.drop();
  }
}

async function postgresStore({
  name,
  poolSize,
}: EachStoreOptions): Promise<{ store: Store; drop: () => Promise<void> } | null> {
  const adminUrl = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const database = `tessera_bench_${name}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const store = await openStore({ databaseUrl: url.toString(), poolSize });
  await migrateToLatest(store.db as never);
  return {
    store,
    drop: async () => {
      await store.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    },
  };
}
