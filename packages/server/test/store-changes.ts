import { sql } from 'kysely';
import type { TestServer } from './harness.ts';

/**
 * Columns that move without the request writing anything: `api_keys.last_used_at` is stamped
 * once a minute by authentication (auth/authenticate.ts), and `browser_sessions.last_seen_at` by
 * a signed-in request (sign-in/repository.ts), whatever the answer.
 */
const bookkeeping = new Set(['last_used_at', 'last_seen_at']);

/**
 * Operational logs, not data: the deployment's log records each query the data API refused as
 * well as ran (issue 25 item 1), written a moment later by a buffer, so a refused request leaves a
 * line there by design. What a 4xx must not change is everything else.
 */
const operationalLogs = new Set(['deployment_logs']);

/** The journal lives in a schema of its own, out of the store's tables and of what it watches. */
const journal = 'tessera_fuzz';

/** Every column of every table of the store's schema, found once: a table added later is covered too. */
async function tableColumns(server: TestServer): Promise<Map<string, string[]>> {
  const { rows } = await sql<{ table: string; column: string }>`
    select c.table_name as table, c.column_name as column
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      and c.table_name not like 'kysely_migration%'
    order by c.table_name, c.ordinal_position`.execute(server.store.db);
  const tables = new Map<string, string[]>();
  for (const { table, column } of rows)
    if (!operationalLogs.has(table)) tables.set(table, [...(tables.get(table) ?? []), column]);
  return tables;
}

export interface StoreChanges {
  /** A mark of the journal now: changes committed after it are `since` it. */
  mark(): Promise<number>;
  /** The tables a committed insert, update or delete touched after `mark`, each once. */
  since(mark: number): Promise<string[]>;
}

/**
 * A journal of every row the store's tables commit, kept by triggers (DESIGN.md "Errors": a write
 * refused with a 4xx leaves the store as it was). Each inserted, deleted or really changed row
 * (an update that only stamps a bookkeeping column, or sets what was there, is no change: rows
 * are compared as text, `json` having no equality) appends
 * its table's name to `tessera_fuzz.changes` in the writer's own transaction, so a write rolled
 * back leaves no line. Checking a request is then one indexed read, where hashing every row of
 * every table around each refused write took about 38 ms on PGlite, two thirds of the fuzz files'
 * time, and reading whole tables (a list kept by hand, missing the newer ones) most of the
 * bad-input files' (issue 20).
 */
export function storeChanges(server: TestServer): Promise<StoreChanges> {
  let journalled = journals.get(server);
  if (!journalled) {
    journalled = startJournal(server);
    journals.set(server, journalled);
  }
  return journalled;
}

/** One journal per server: its triggers are made once, whichever test asks first. */
const journals = new WeakMap<TestServer, Promise<StoreChanges>>();

async function startJournal(server: TestServer): Promise<StoreChanges> {
  // Only the requests under test may write: the embed sweeper's pass (every minute) deletes
  // finished sessions, which a slow run would see as a refused request's write. Stopping is
  // idempotent; the notification scheduler is off in test servers already.
  await server.services.embedSweeper.stop();
  const db = server.store.db;
  await sql`create schema if not exists ${sql.id(journal)}`.execute(db);
  await sql`create table if not exists ${sql.id(journal, 'changes')} (
    id bigserial primary key, table_name text not null)`.execute(db);
  await sql`create or replace function ${sql.id(journal, 'record')}() returns trigger
    language plpgsql as $$
    begin
      insert into tessera_fuzz.changes (table_name) values (TG_TABLE_NAME);
      return null;
    end $$`.execute(db);
  const record = sql.id(journal, 'record');
  for (const [table, columns] of await tableColumns(server)) {
    const watched = columns.filter((c) => !bookkeeping.has(c));
    const before = sql.join(watched.map((c) => sql.ref(`old.${c}`)));
    const after = sql.join(watched.map((c) => sql.ref(`new.${c}`)));
    await sql`create trigger tessera_fuzz_rows after insert or delete on ${sql.table(table)}
      for each row execute function ${record}()`.execute(db);
    await sql`create trigger tessera_fuzz_updates after update on ${sql.table(table)}
      for each row when (row(${before})::text is distinct from row(${after})::text)
      execute function ${record}()`.execute(db);
  }
  return {
    async mark() {
      const { rows } = await sql<{ id: string }>`
        select coalesce(max(id), 0)::text as id from ${sql.id(journal, 'changes')}`.execute(db);
      return Number(rows[0]!.id);
    },
    async since(mark) {
      const { rows } = await sql<{ table: string }>`
        select distinct table_name as table from ${sql.id(journal, 'changes')}
        where id > ${mark} order by table_name`.execute(db);
      return rows.map((r) => r.table);
    },
  };
}

/** A mark of the server's store journal now (the journal starts with the first mark). */
export async function storeMark(server: TestServer): Promise<number> {
  return (await storeChanges(server)).mark();
}

/** The tables a committed write touched since `mark`: `[]` when a refused request wrote nothing. */
export async function storeChangedSince(server: TestServer, mark: number): Promise<string[]> {
  return (await storeChanges(server)).since(mark);
}
