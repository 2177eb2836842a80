/**
 * The sample data on PostgreSQL, for benchmarks that compare engines: a database
 * (`tessera_bench_sample`) on the server of TESSERA_TEST_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/test) holding a copy of the sample DuckDB file's tables,
 * kept between runs and copied again when its row counts differ from the file's. Tables as
 * copy-to-postgres.ts makes them (no indexes, as on DuckDB); the copy takes minutes the first time.
 */
import pg from 'pg';
import type { DuckDbDriver } from '../../packages/server/src/datasources/duckdb-driver.ts';
import { PostgresDriver } from '../../packages/server/src/datasources/postgres-driver.ts';
import { copySampleToPostgres } from '../../packages/server/src/datasources/sample/copy-to-postgres.ts';

const database = 'tessera_bench_sample';

export interface PostgresSample {
  /** The data-source settings of a deployment over it. */
  dataSource: Record<string, unknown>;
  /** A direct connection, UTC session, as the server's driver opens it. */
  direct: PostgresDriver;
}

/** Null when PostgreSQL is not reachable. */
export async function postgresSample(duckdbFile: string, duck: DuckDbDriver): Promise<PostgresSample | null> {
  const adminUrl = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const settings = {
    host: url.hostname,
    port: Number(url.port || 5432),
    database,
    user: decodeURIComponent(url.username) || 'postgres',
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
  if (!(await sameCounts(duck, url.toString()))) {
    process.stderr.write(`copying the sample to PostgreSQL database ${database} (once)...\n`);
    await copySampleToPostgres(duckdbFile, { connectionString: url.toString() }, 50_000);
  }
  return { dataSource: { type: 'postgres', ...settings }, direct: new PostgresDriver(settings) };
}

async function sameCounts(duck: DuckDbDriver, pgUrl: string): Promise<boolean> {
  const sql = "SELECT (SELECT count(*) FROM orders) || '/' || (SELECT count(*) FROM line_items) AS n";
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const [d] = await duck.query(sql, []);
    const p = await client.query(sql).catch(() => null);
    return p?.rows[0]?.n === String(d.n);
  } finally {
    await client.end();
  }
}
