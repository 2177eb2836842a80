/**
 * The tests' stores, each paid for once (issue 20): PGlite starts from a migrated data directory
 * dumped once per run by global setup, with its WebAssembly compiled and its file-system bundle
 * read once per worker; PostgreSQL gets a database per store copied from a migrated template
 * database made once per run (`CREATE DATABASE ... TEMPLATE`), so no store runs the migrations.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type Store, type StoreOptions } from '../src/db/database.ts';
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
    const name = `tessera_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await withAdmin(adminUrl, (client) => createFromTemplate(client, name, template));
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    // The tests' databases are thrown away: a commit need not wait for the disk.
    url.searchParams.set('options', '-c synchronous_commit=off');
    const store = await openStore({ databaseUrl: url.toString(), poolSize: 20 });
    return {
      ...store,
      label: 'postgres',
      close: async () => {
        await store.close();
        await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      },
    };
  }
  const { template, templateFile: _file, ...pgliteAssets } = await loadPgliteAssets(inject('pgliteTemplate'));
  const store = await openStore({
    databaseUrl: null,
    pgliteDir: 'memory://',
    pgliteDump: template,
    pgliteAssets,
  });
  return { ...store, label: 'pglite' };
}
