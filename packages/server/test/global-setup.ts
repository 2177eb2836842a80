import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureWebBuild } from '../../web/scripts/ensure-build.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory, dumped once: each store starts from a copy of it. */
    pgliteTemplate: string;
    /** Admin connection string of the local PostgreSQL server, or null when it is unreachable. */
    postgresUrl: string | null;
    /** The run's migrated template database on that server (the `postgres` project only). */
    postgresTemplate: string | null;
    /** Which store a test server opens: the project's (vitest.config.ts). */
    testDb: 'pglite' | 'postgres';
    /** Where sample databases generated during the run are kept for the next server (test-samples.ts). */
    sampleCacheDir: string | null;
    /** Why the web bundle could not be built, or null; the web app's tests fail with it. */
    webBuildError: string | null;
  }
}

/**
 * The server serves the web app's bundle (http/web-app.ts) and browser tests load it: build it
 * when it is missing or older than its sources. Runs that start together build one at a time
 * (a lock directory), since a build empties dist/ first. A failed build fails only the web app's
 * tests (they read `webBuildError`), not every test of the run.
 */
async function buildWebApp(): Promise<string | null> {
  const lock = path.join(os.tmpdir(), 'tessera-web-build.lock');
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a run that died (older than a build can take) is taken over.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000 || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    await ensureWebBuild((line) => console.log(line));
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`The web app did not build; its tests will fail:\n${message}`);
    return message;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** PGlite's initdb and the migrations, paid once per run (DESIGN.md "Chosen libraries"). */
async function makePgliteTemplate(dir: string): Promise<string> {
  const pglite = await PGlite.create();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  // Uncompressed: every store loads it, and gunzip cost more than the bytes it saves.
  const dump = await pglite.dumpDataDir('none');
  const file = path.join(dir, 'pglite-template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  return file;
}

async function reachablePostgres(): Promise<string | null> {
  const url = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return url;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Drops the test databases of processes no longer running (workers of this run or of one that died). */
async function dropDeadProcessesDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE 'tessera\\_test\\_%' OR datname LIKE 'tessera\\_template\\_%'`,
  );
  for (const { datname } of rows) {
    const pid = Number(/^tessera_(?:test|template)_(\d+)/.exec(datname)?.[1]);
    if (pid && !alive(pid)) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}

/**
 * The run's template database, migrated once; each store is a copy of it (test-stores.ts). The
 * databases of runs that died without their teardown are dropped first, so none piles up.
 */
async function makePostgresTemplate(adminUrl: string): Promise<{ name: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await dropDeadProcessesDatabases(admin);
  const name = `tessera_template_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(db);
  // No session may stay on a template while it is copied.
  await db.destroy();
  return {
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      // The databases the workers kept for reuse (test-stores.ts), now that they have ended.
      await dropDeadProcessesDatabases(client);
      await client.end();
    },
  };
}

/**
 * Runs once per test project (vitest.config.ts) and prepares only what its tests use: the
 * `pglite` and `browser` projects a PGlite template, the `postgres` project a template database,
 * the projects that serve the web app its bundle.
 */
export default async function setup(project: TestProject) {
  const name = project.name;
  const storeBacked = name === 'pglite' || name === 'postgres' || name === 'browser';
  const dir = mkdtempSync(path.join(os.tmpdir(), `tessera-test-run-${name}-`));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];

  project.provide('webBuildError', storeBacked ? await buildWebApp() : null);
  project.provide('sampleCacheDir', storeBacked ? dir : null);

  const postgresUrl = await reachablePostgres();
  project.provide('postgresUrl', postgresUrl);
  if (name === 'postgres') {
    if (!postgresUrl)
      throw new Error('The postgres test project needs PostgreSQL (TESSERA_TEST_POSTGRES_URL)');
    const template = await makePostgresTemplate(postgresUrl);
    cleanups.push(template.drop);
    project.provide('postgresTemplate', template.name);
    project.provide('testDb', 'postgres');
    project.provide('pgliteTemplate', '');
  } else {
    project.provide('postgresTemplate', null);
    project.provide('testDb', 'pglite');
    project.provide('pgliteTemplate', storeBacked ? await makePgliteTemplate(dir) : '');
  }
  if (!postgresUrl)
    console.warn('PostgreSQL is not reachable: PostgreSQL-only tests are skipped (CI runs them).');
  return async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
}
