import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';

const tables = ['customers', 'products', 'orders', 'line_items'] as const;

/** DuckDB column type -> MySQL column type, for the few types the sample uses. */
function mysqlType(duckType: string): string {
  if (/^DECIMAL/i.test(duckType)) return duckType.toUpperCase();
  const map: Record<string, string> = {
    BIGINT: 'BIGINT',
    INTEGER: 'INT',
    VARCHAR: 'VARCHAR(255)',
    // DATETIME, not TIMESTAMP: no conversion through the session zone, no 2038 limit
    TIMESTAMP: 'DATETIME(3)',
    DOUBLE: 'DOUBLE',
    BOOLEAN: 'BOOLEAN',
  };
  const t = map[duckType.toUpperCase()];
  if (!t) throw new Error(`No MySQL type for DuckDB type ${duckType}`);
  return t;
}

/**
 * Copies the generated sample tables from a DuckDB file into a MySQL or MariaDB database, as
 * copy-to-postgres.ts does for PostgreSQL, so that tests can compare engines on the same rows.
 * Rows travel as text in multi-row INSERTs; `id` columns become primary keys.
 */
export async function copySampleToMysql(
  duckdbFile: string,
  connection: mysql.ConnectionOptions,
  batchSize = 2_000,
): Promise<void> {
  const instance = await DuckDBInstance.create(duckdbFile, { access_mode: 'READ_ONLY' });
  const duck = await instance.connect();
  const client = await mysql.createConnection(connection);
  try {
    for (const table of tables) {
      const described = (await duck.runAndReadAll(`DESCRIBE ${table}`)).getRowObjectsJS() as {
        column_name: string;
        column_type: string;
      }[];
      const columns = described.map((c) => ({ name: c.column_name, type: mysqlType(c.column_type) }));
      const key = columns.some((c) => c.name === 'id') ? ', PRIMARY KEY (id)' : '';
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.query(
        `CREATE TABLE ${table} (${columns.map((c) => `${c.name} ${c.type}`).join(', ')}${key})`,
      );
      const select = columns
        .map((c) =>
          c.type === 'BOOLEAN'
            ? `CAST(${c.name} AS INTEGER) AS ${c.name}`
            : `CAST(${c.name} AS VARCHAR) AS ${c.name}`,
        )
        .join(', ');
      for (let offset = 0; ; offset += batchSize) {
        const rows = (
          await duck.runAndReadAll(
            `SELECT ${select} FROM ${table} ORDER BY ${columns[0]!.name} LIMIT ${batchSize} OFFSET ${offset}`,
          )
        ).getRowsJS() as (string | number | null)[][];
        if (rows.length === 0) break;
        await client.query(`INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES ?`, [
          rows,
        ]);
        if (rows.length < batchSize) break;
      }
    }
  } finally {
    await client.end();
    duck.closeSync();
    instance.closeSync();
  }
}
