import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureWebBuild } from '../../web/scripts/ensure-build.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory, dumped once: each test file starts from a copy of it. */
    pgliteTemplate: string;
    /** Admin connection string of the local PostgreSQL server, or null when it is unreachable. */
    postgresUrl: string | null;
    testDb: 'pglite' | 'postgres';
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

/**
 * Runs once per test run. PGlite's initdb costs seconds and a gigabyte of memory, so it is paid
 * once here (DESIGN.md "Chosen libraries"), and every test file loads the dumped template.
 */
export default async function setup(project: TestProject) {
  project.provide('webBuildError', await buildWebApp());
  const pglite = await PGlite.create();
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  await migrateToLatest(db);
  const dump = await pglite.dumpDataDir('gzip');
  const file = path.join(os.tmpdir(), `tessera-pglite-template-${process.pid}.tar.gz`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.destroy();
  project.provide('pgliteTemplate', file);

  const postgresUrl = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  let reachable = false;
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    reachable = true;
  } catch {
    reachable = false;
  } finally {
    await client.end().catch(() => undefined);
  }
  const testDb = process.env.TESSERA_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
  if (testDb === 'postgres' && !reachable) {
    throw new Error(`TESSERA_TEST_DB=postgres but PostgreSQL is not reachable at ${postgresUrl}`);
  }
  if (!reachable)
    console.warn(
      `PostgreSQL not reachable at ${postgresUrl}: PostgreSQL-only tests are skipped (CI runs them).`,
    );
  project.provide('postgresUrl', reachable ? postgresUrl : null);
  project.provide('testDb', testDb);
}
