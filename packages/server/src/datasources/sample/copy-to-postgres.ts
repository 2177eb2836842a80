import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';

const tables = ['customers', 'products', 'orders', 'line_items'] as const;

/** DuckDB column type -> PostgreSQL column type, for the few types the sample uses. */
function pgType(duckType: string): string {
  if (/^DECIMAL/i.test(duckType)) return duckType.replace(/^DECIMAL/i, 'numeric');
  const map: Record<string, string> = {
    BIGINT: 'bigint',
    INTEGER: 'integer',
    VARCHAR: 'text',
    TIMESTAMP: 'timestamp',
    DOUBLE: 'double precision',
    BOOLEAN: 'boolean',
  };
  const t = map[duckType.toUpperCase()];
  if (!t) throw new Error(`No PostgreSQL type for DuckDB type ${duckType}`);
  return t;
}

/**
 * Copies the generated sample tables from a DuckDB file into a PostgreSQL database, so that the
 * same rows can be queried on both engines (tests compare them). DuckDB's postgres extension is
 * downloaded at run time and so unavailable offline: rows travel through `pg` in batches, each
 * column as a text array cast back by `unnest($n::text[])::type` (one round trip per batch).
 */
export async function copySampleToPostgres(
  duckdbFile: string,
  connection: pg.ClientConfig,
  batchSize = 5_000,
): Promise<void> {
  const instance = await DuckDBInstance.create(duckdbFile, { access_mode: 'READ_ONLY' });
  const duck = await instance.connect();
  const client = new pg.Client(connection);
  await client.connect();
  try {
    for (const table of tables) {
      const described = (await duck.runAndReadAll(`DESCRIBE ${table}`)).getRowObjectsJS() as {
        column_name: string;
        column_type: string;
      }[];
      const columns = described.map((c) => ({ name: c.column_name, type: pgType(c.column_type) }));
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.query(`CREATE TABLE ${table} (${columns.map((c) => `${c.name} ${c.type}`).join(', ')})`);
      const select = columns.map((c) => `CAST(${c.name} AS VARCHAR) AS ${c.name}`).join(', ');
      const insert = `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) SELECT ${columns
        .map((c, i) => `CAST(u${i} AS ${c.type})`)
        .join(', ')} FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS t(${columns
        .map((_, i) => `u${i}`)
        .join(', ')})`;
      for (let offset = 0; ; offset += batchSize) {
        const rows = (
          await duck.runAndReadAll(
            `SELECT ${select} FROM ${table} ORDER BY ${columns[0].name} LIMIT ${batchSize} OFFSET ${offset}`,
          )
        ).getRowsJS() as (string | null)[][];
        if (rows.length === 0) break;
        await client.query(
          insert,
          columns.map((_, i) => rows.map((r) => r[i])),
        );
        if (rows.length < batchSize) break;
      }
      await client.query(`ANALYZE ${table}`);
    }
  } finally {
    await client.end();
    duck.closeSync();
    instance.closeSync();
  }
}
