import { sql } from 'kysely';
import type { TestServer } from '../harness.ts';

/**
 * Columns that move without the request writing anything: `api_keys.last_used_at` is stamped
 * once a minute by authentication (auth/authenticate.ts), whatever the answer.
 */
const bookkeeping = new Set(['last_used_at']);

/**
 * Tables that only ever gain rows (the audit log: never updated, never deleted by a request): a
 * write shows as a new count and a new largest id, so their rows need no hashing. Hashing them
 * made each fingerprint grow with every audited write the fuzzing made, and the fuzz files slow.
 */
const appendOnly = new Set(['audit_log']);

/**
 * Operational logs, not data: the deployment's log records each query the data API refused as
 * well as ran (issue 25 item 1), written a moment later by a buffer, so a refused request leaves a
 * line there by design. What a 4xx must not change is everything else.
 */
const operationalLogs = new Set(['deployment_logs']);

/** Every column of every table of the schema, found once: a table added later is covered too. */
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
    if (!bookkeeping.has(column) && !operationalLogs.has(table))
      tables.set(table, [...(tables.get(table) ?? []), column]);
  return tables;
}

/**
 * A fingerprint of every row of every table, computed in the store in one statement: per table,
 * the row count and the sum of a 64-bit hash of each row's text (bookkeeping columns left out).
 * Equal fingerprints mean no row was inserted, updated or deleted in between (barring a hash
 * collision); cheap enough to take around every refused write.
 */
export async function storeFingerprinter(server: TestServer): Promise<() => Promise<string>> {
  const perTable = [...(await tableColumns(server))].map(([table, columns]) => {
    if (appendOnly.has(table))
      return sql`select ${sql.lit(table)} as name, count(*)::text as n, coalesce(max(id), 0)::text as h
        from ${sql.table(table)}`;
    const row = sql.join(columns.map((c) => sql.ref(`r.${c}`)));
    return sql`select ${sql.lit(table)} as name, count(*)::text as n,
      coalesce(sum(hashtextextended(row(${row})::text, 0)), 0)::text as h
      from ${sql.table(table)} r`;
  });
  const statement = sql<{ name: string; n: string; h: string }>`${sql.join(perTable, sql` union all `)}`;
  return async () => {
    const { rows } = await statement.execute(server.store.db);
    return rows.map((r) => `${r.name}:${r.n}:${r.h}`).join('\n');
  };
}
