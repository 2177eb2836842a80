import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { initPgliteDir } from './pglite-initdb.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

/** The metadata store: Kysely over PGlite (embedded default) or PostgreSQL (DESIGN.md "Persistence"). */
export interface Store {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** LISTEN on a channel; notifications arrive after the notifying transaction commits. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL connection string; null selects PGlite. */
  databaseUrl: string | null;
  /** PGlite data directory; `memory://` keeps it in memory. */
  pgliteDir?: string;
  /** A PGlite data-directory dump to start from (tests clone an initialised store this way). */
  pgliteDump?: Blob;
  /**
   * PGlite's WebAssembly compiled once and its file-system bundle read once, for a process that
   * opens many stores (the tests: one per test file); PGlite compiles and reads them otherwise.
   */
  pgliteAssets?: Pick<PGliteOptions, 'pgliteWasmModule' | 'fsBundle'>;
  poolSize?: number;
}

/**
 * PGlite runs PostgreSQL with the `shared_buffers` its initdb chose (128 MB), allocated and
 * zeroed inside its WebAssembly memory at open, which never shrinks: 16 MB took 110 MiB off an
 * idle embedded server (issue 20, item 6) and halved the open. A metadata store of a few
 * megabytes fits in it, and the operating system caches the files beneath it. Durability
 * settings stay PGlite's.
 */
export const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    // node-postgres loads with a PostgreSQL store only: the embedded default never needs it.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle connection dropped by the server (restart, failover, admin kill) must not crash the
    // process: the pool discards it and the next query opens a new one.
    pool.on('error', () => undefined);
    // Fail fast with a clear message instead of on the first request.
    const client = await pool.connect();
    client.release();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const listen = async (channel: string, onPayload: (payload: string) => void) => {
      const listener = new pg.Client({ connectionString: options.databaseUrl! });
      await listener.connect();
      listener.on('notification', (m) => m.channel === channel && onPayload(m.payload ?? ''));
      // A dropped listener must not take the process down; readers fall back to their TTLs.
      listener.on('error', () => undefined);
      await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return () => listener.end().catch(() => undefined);
    };
    return { db, kind: 'postgres', listen, close: () => db.destroy() };
  }
  const dir = options.pgliteDir ?? 'memory://';
  if (!dir.startsWith('memory://')) {
    mkdirSync(path.dirname(dir), { recursive: true });
    if (!options.pgliteDump) await initPgliteDir(dir, pgliteStartParams);
  }
  const pglite = await PGlite.create(dir, {
    startParams: pgliteStartParams,
    ...options.pgliteAssets,
    ...(options.pgliteDump ? { loadDataDir: options.pgliteDump } : {}),
  });
  return pgliteStore(pglite);
}

/** The store over an open PGlite instance; closing the store closes the instance. */
export function pgliteStore(pglite: PGlite): Store {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    listen: async (channel, onPayload) => {
      const unlisten = await pglite.listen(channel, onPayload);
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    },
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/** A Kysely instance that never connects: enough to register routes (OpenAPI generation). */
export async function unconnectedDb(): Promise<Db> {
  const { default: pg } = await import('pg');
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ max: 1 }) }) });
}
