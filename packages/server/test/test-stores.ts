/**
 * The tests' stores, each paid for once (issue 20): PGlite starts from a migrated data directory
 * dumped once per run by global setup, with its WebAssembly compiled and its file-system bundle
 * read once per worker; PostgreSQL gets a database per store copied from a migrated template
 * database made once per run (`CREATE DATABASE ... TEMPLATE`), so no store runs the migrations.
 * Both are reused within a worker once emptied (below).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import {
  openStore,
  pgliteStartParams,
  pgliteStore,
  type Store,
  type StoreOptions,
} from '../src/db/database.ts';
import { countSetup } from './setup-counters.ts';

export type TestStore = Store & { label: 'pglite' | 'postgres' };

type PgliteAssets = NonNullable<StoreOptions['pgliteAssets']> & { template: Blob; templateFile: string };

/** Kept on globalThis: a worker runs many test files, and the module may load more than once. */
const assetsKey = Symbol.for('tessera.test.pgliteAssets');
type WithAssets = typeof globalThis & { [assetsKey]?: Promise<PgliteAssets> };

async function loadPgliteAssets(templateFile: string): Promise<PgliteAssets> {
  const holder = globalThis as WithAssets;
  const cached = await holder[assetsKey];
  if (cached?.templateFile === templateFile) return cached;
  const loading = (async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    return {
      templateFile,
      template: new Blob([readFileSync(templateFile)]),
      pgliteWasmModule: await WebAssembly.compile(readFileSync(path.join(dist, 'pglite.wasm'))),
      fsBundle: new Blob([readFileSync(path.join(dist, 'pglite.data'))]),
    };
  })();
  holder[assetsKey] = loading;
  return loading;
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Copies the template. PostgreSQL refuses a copy while another session is connected to the
 * template (55006), which another worker's copy briefly is: try again after a moment.
 */
async function createFromTemplate(client: pg.Client, name: string, template: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
}

/**
 * A real store for one test file or test (its database is `tessera_test_<pid>_…`; global setup
 * drops those of runs that died): a copy of the migrated PGlite template, or a database
 * of its own on the local PostgreSQL server (the `postgres` test project, vitest.config.ts).
 */
export async function openTestStore(kind = inject('testDb')): Promise<TestStore> {
  countSetup('stores');
  if (kind === 'postgres') {
    const adminUrl = inject('postgresUrl');
    const template = inject('postgresTemplate');
    if (!adminUrl || !template) throw new Error('PostgreSQL is not reachable');
    const name = await checkOutDatabase(adminUrl, template);
    const store = await openStore({ databaseUrl: databaseUrl(adminUrl, name), poolSize: 20 });
    return {
      ...store,
      label: 'postgres',
      close: async () => {
        await store.close();
        await giveBackDatabase(adminUrl, name);
      },
    };
  }
  const pglite = await checkOutPglite(inject('pgliteTemplate'));
  return { ...pgliteStore(lease(pglite)), label: 'pglite' };
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // The tests' databases are thrown away: a commit need not wait for the disk.
  url.searchParams.set('options', '-c synchronous_commit=off');
  return url.toString();
}

/**
 * PostgreSQL databases a worker reuses, as PGlite instances below: emptied and given the
 * template's contents back when their store closes. Dropping a database forces a checkpoint, about
 * 1.5 s of the disk per store, and the postgres project opens some 130 stores (issue 20).
 */
const databasePoolKey = Symbol.for('tessera.test.databasePool');
type WithDatabasePool = typeof globalThis & { [databasePoolKey]?: Pool<string> };

function databasePool() {
  const holder = globalThis as WithDatabasePool;
  holder[databasePoolKey] ??= { idle: [], fingerprint: null, contents: null };
  return holder[databasePoolKey];
}

async function withDatabase<T>(adminUrl: string, name: string, work: (client: pg.Client) => Promise<T>) {
  return withAdmin(databaseUrl(adminUrl, name), work);
}

async function checkOutDatabase(adminUrl: string, template: string): Promise<string> {
  const pool = databasePool();
  const idle = pool.idle.pop();
  if (idle) return idle;
  const name = `tessera_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await withAdmin(adminUrl, (client) => createFromTemplate(client, name, template));
  if (!pool.fingerprint)
    await withDatabase(adminUrl, name, async (client) => {
      pool.fingerprint = await schemaFingerprint(client);
      pool.contents = await templateContents(client);
    });
  return name;
}

/** Keeps a closed store's database for the next store, or drops it when it cannot be emptied. */
async function giveBackDatabase(adminUrl: string, name: string): Promise<void> {
  const pool = databasePool();
  const reusable =
    pool.idle.length < maxIdle &&
    (await withDatabase(adminUrl, name, async (client) => {
      // A session a test left open (a replica's listener) would hold the truncation: drop instead.
      await client.query("SET lock_timeout = '2s'");
      return emptied(client, pool);
    }).catch(() => false));
  if (reusable) pool.idle.push(name);
  else await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * PGlite instances a worker reuses: a store's instance, once its store is closed, is emptied
 * (every table but the migrations' truncated, sequences restarted, the session discarded), given
 * back the rows the migrations themselves insert (the built-in roles) and their sequences'
 * positions, and kept for the next store if its schema is then exactly the template's (a
 * fingerprint of the catalog); an instance a test changed otherwise is closed. Opening one from
 * the template costs about a second of CPU; emptying one, some tens of milliseconds. (Without the
 * migrations' rows given back, no emptied instance matched the template and none was reused.)
 */
const poolKey = Symbol.for('tessera.test.pglitePool');
/** What the migrations wrote into a fresh copy of the template: rows by table, sequences' positions. */
interface TemplateContents {
  tables: Array<{ name: string; rows: string }>;
  sequences: Array<{ name: string; value: string }>;
}
interface Pool<Idle = PGlite> {
  idle: Idle[];
  fingerprint: string | null;
  contents: TemplateContents | null;
}
type WithPool = typeof globalThis & { [poolKey]?: Pool };
const maxIdle = 2;

function pglitePool() {
  const holder = globalThis as WithPool;
  holder[poolKey] ??= { idle: [], fingerprint: null, contents: null };
  return holder[poolKey];
}

async function checkOutPglite(templateFile: string): Promise<PGlite> {
  const pool = pglitePool();
  const idle = pool.idle.pop();
  if (idle) return idle;
  const { template, templateFile: _file, ...assets } = await loadPgliteAssets(templateFile);
  const pglite = await PGlite.create('memory://', {
    startParams: pgliteStartParams,
    ...assets,
    loadDataDir: template,
  });
  pool.fingerprint ??= await schemaFingerprint(pglite);
  pool.contents ??= await templateContents(pglite);
  return pglite;
}

/** What emptying an instance or a database needs of its connection: PGlite and node-postgres alike. */
interface SqlRunner {
  query<Row>(text: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

const userTables = `SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables
  WHERE schemaname = 'public' AND tablename NOT LIKE 'kysely_migration%'`;

async function templateContents(pglite: SqlRunner): Promise<TemplateContents> {
  const { rows: names } = await pglite.query<{ name: string }>(userTables);
  const tables: TemplateContents['tables'] = [];
  for (const { name } of names) {
    const { rows } = await pglite.query<{ rows: string | null }>(
      `SELECT json_agg(t)::text AS rows FROM ${name} t`,
    );
    if (rows[0]?.rows) tables.push({ name, rows: rows[0].rows });
  }
  const { rows: sequences } = await pglite.query<{ name: string; value: string }>(
    `SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name, last_value::text AS value
     FROM pg_sequences WHERE last_value IS NOT NULL`,
  );
  return { tables, sequences };
}

/** Puts the migrations' rows back, foreign keys and triggers aside (replica role) as a restore does. */
async function restoreContents(pglite: SqlRunner, contents: TemplateContents): Promise<void> {
  await pglite.query('SET session_replication_role = replica');
  for (const table of contents.tables)
    await pglite.query(
      `INSERT INTO ${table.name} SELECT * FROM json_populate_recordset(NULL::${table.name}, $1)`,
      [table.rows],
    );
  for (const sequence of contents.sequences)
    await pglite.query('SELECT setval($1::regclass, $2::bigint)', [sequence.name, sequence.value]);
  await pglite.query('RESET session_replication_role');
}

/**
 * Empties a store's instance or database and gives it the template's contents back; answers
 * whether it is then as a fresh copy of the template (false when a test changed its schema).
 */
async function emptied(runner: SqlRunner, pool: Pool<unknown>): Promise<boolean> {
  const { rows } = await runner.query<{ name: string }>(userTables);
  await runner.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`);
  if (pool.contents) await restoreContents(runner, pool.contents);
  await runner.query('DISCARD ALL');
  return (await schemaFingerprint(runner)) === pool.fingerprint;
}

/** Empties a closed store's instance and keeps it, or closes it when its schema moved on. */
async function giveBack(pglite: PGlite): Promise<void> {
  const pool = pglitePool();
  // An instance that cannot be emptied is not reused.
  if (pool.idle.length < maxIdle && (await emptied(pglite, pool).catch(() => false))) {
    pool.idle.push(pglite);
    return;
  }
  await pglite.close().catch(() => undefined);
}

/** The schema and the sequences' positions: equal for an emptied instance and a fresh copy of the template. */
async function schemaFingerprint(pglite: SqlRunner): Promise<string> {
  const { rows } = await pglite.query<{ fingerprint: string }>(`
    SELECT md5(string_agg(item, '|' ORDER BY item)) AS fingerprint FROM (
      SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text AS item
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_to%'
      UNION ALL SELECT 'col ' || a.attrelid::regclass || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
          || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
      UNION ALL SELECT 'con ' || conrelid::regclass || ' ' || pg_get_constraintdef(c.oid)
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'
      UNION ALL SELECT 'fn ' || p.proname || ' ' || md5(p.prosrc)
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
      UNION ALL SELECT 'trg ' || tgrelid::regclass || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL SELECT 'seq ' || sequencename || ' ' || coalesce(last_value::text, '-') FROM pg_sequences
      UNION ALL SELECT 'schema ' || nspname FROM pg_namespace
      UNION ALL SELECT 'role ' || rolname FROM pg_roles
      UNION ALL SELECT 'migrations ' || count(*) FROM kysely_migration
    ) items`);
  return rows[0]!.fingerprint;
}

/**
 * What a store sees of its instance: the instance until the store closes it, then nothing (a
 * query after close fails, as on a closed instance). Closing hands the instance back to the pool
 * after ending the listens the store left.
 */
function lease(pglite: PGlite): PGlite {
  let closed = false;
  const unlisteners = new Set<() => Promise<void>>();
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const unlisten of unlisteners) await unlisten().catch(() => undefined);
    await giveBack(pglite);
  };
  const listen: PGlite['listen'] = async (channel, callback, tx) => {
    const unlisten = await pglite.listen(channel, callback, tx);
    const once = async () => {
      if (unlisteners.delete(once)) await unlisten();
    };
    unlisteners.add(once);
    return once;
  };
  return new Proxy(pglite, {
    get(target, property) {
      if (property === 'closed') return closed || target.closed;
      if (property === 'close') return close;
      if (closed) throw new Error('PGlite is closed');
      if (property === 'listen') return listen;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
