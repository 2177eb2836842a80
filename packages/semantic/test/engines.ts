import { execSync } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { CompiledQuery } from '../src/index.ts';
import { formatRow } from '../src/index.ts';
import { fixtureStatements, type Tables, tables } from './fixtures/data.ts';

export interface Engine {
  run(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function runQuery(engine: Engine, q: CompiledQuery): Promise<Record<string, unknown>[]> {
  const rows = await engine.run(q.sql, q.params);
  return rows.map((r) => formatRow(r, q.columns));
}

export async function duckdbEngine(data: Tables = tables): Promise<Engine> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  for (const s of fixtureStatements('DOUBLE', data)) await conn.run(s);
  return {
    async run(sql, params) {
      const reader = await conn.runAndReadAll(sql, params as never);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    },
    async close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

let schemas = 0;
const PG = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };

/** Null when PostgreSQL cannot be reached (tests are then skipped with a message). */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ ...PG, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh schema per run, dropped on close. The session time zone is UTC, as the PostgreSQL
 * dialect expects, and `timestamp` values come back as text so no local zone leaks in.
 */
export async function postgresEngine(data: Tables = tables): Promise<Engine> {
  const schema = `tessera_semantic_${process.pid}_${Date.now()}_${++schemas}`;
  const client = new pg.Client({
    ...PG,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 1114
          ? (v: string) => v
          : pg.types.getTypeParser(oid, format as never)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path TO ${schema}`);
  await client.query(`SET TIME ZONE 'UTC'`);
  for (const s of fixtureStatements('DOUBLE PRECISION', data)) await client.query(s);
  return {
    async run(sql, params) {
      const res = await client.query(sql, params as unknown[]);
      return res.rows;
    },
    async close() {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/**
 * A fresh database, dropped on close, for models that name schemas themselves (`public.orders`):
 * a schema of the shared `test` database would not hold them apart from other runs.
 */
export async function postgresDatabaseEngine(data: Tables): Promise<Engine> {
  const database = `tessera_semantic_db_${process.pid}_${Date.now()}_${++schemas}`;
  const admin = new pg.Client(PG);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const client = new pg.Client({
    ...PG,
    database,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 1114
          ? (v: string) => v
          : pg.types.getTypeParser(oid, format as never)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  await client.query(`SET TIME ZONE 'UTC'`);
  for (const s of fixtureStatements('DOUBLE PRECISION', data)) await client.query(s);
  return {
    async run(sql, params) {
      return (await client.query(sql, params as unknown[])).rows;
    },
    async close() {
      await client.end();
      const drop = new pg.Client(PG);
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await drop.end();
    },
  };
}

const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root', database: 'test' };

/**
 * The session the MySQL dialect expects (the server's driver sets the same, mysql-driver.ts):
 * `"` quotes identifiers, `||` concatenates, times read in UTC.
 */
const MARIADB_SESSION =
  "SET SESSION sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', time_zone = '+00:00'";

/** Whether MariaDB (or MySQL) answers at 127.0.0.1:3306 (tests are skipped with a message if not). */
export async function mariadbAvailable(): Promise<boolean> {
  try {
    const conn = await mysql.createConnection({ ...MARIADB, connectTimeout: 2000 });
    await conn.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * Named zones convert only with the server's time-zone tables (CONVERT_TZ answers NULL without
 * them): loaded here when missing, as .ci/run does, so that a fresh server runs the suite too.
 */
export async function ensureMariadbZoneTables(): Promise<void> {
  const conn = await mysql.createConnection(MARIADB);
  try {
    const probe = "SELECT CONVERT_TZ('2024-01-01 00:00:00', 'UTC', 'America/New_York') AS t";
    const [[before]] = (await conn.query(probe)) as unknown as [[{ t: unknown }]];
    if (before.t !== null) return;
    execSync('mariadb-tzinfo-to-sql /usr/share/zoneinfo 2>/dev/null | mariadb -h 127.0.0.1 -u root mysql', {
      stdio: 'ignore',
      shell: '/bin/sh',
    });
    const [[after]] = (await conn.query(probe)) as unknown as [[{ t: unknown }]];
    if (after.t === null) throw new Error('MariaDB time-zone tables could not be loaded');
  } finally {
    await conn.end();
  }
}

/**
 * A fresh database per run, dropped on close. DATETIME(3) for time columns (TIMESTAMP would
 * auto-update and stop at 2038).
 */
export async function mariadbEngine(data: Tables = tables, extra: readonly string[] = []): Promise<Engine> {
  const database = `tessera_semantic_${process.pid}_${Date.now()}_${++schemas}`;
  const admin = await mysql.createConnection(MARIADB);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const conn = await mysql.createConnection({ ...MARIADB, database, dateStrings: true });
  await conn.query(MARIADB_SESSION);
  const statements = fixtureStatements('DOUBLE', data).map((s) =>
    s.startsWith('CREATE TABLE') ? s.replace(/ TIMESTAMP\b/g, ' DATETIME(3)') : s,
  );
  for (const s of [...statements, ...extra]) await conn.query(s);
  return {
    async run(sql, params) {
      // the dialect's `$n`, inlined as the server's driver does (no `$` in this suite's literals)
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => mysql.escape(params[Number(n) - 1] as string));
      const [rows] = await conn.query(text);
      return rows as Record<string, unknown>[];
    },
    async close() {
      await conn.query(`DROP DATABASE IF EXISTS ${database}`);
      await conn.end();
    },
  };
}

/** A value as a ClickHouse literal: text with `\` and `'` backslash-escaped (its string syntax). */
function clickhouseLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * ClickHouse through chdb (embedded ClickHouse 26.7, loaded on first use: its library is 546 MiB),
 * in a session of its own with the settings the dialect expects (CLICKHOUSE_SETTINGS). Tables are
 * Memory tables with Nullable columns (as the other engines' columns are) and times as
 * DateTime64(3, 'UTC'). `extra` statements run after the fixture's.
 */
export async function clickhouseEngine(
  data: Tables = tables,
  extra: readonly string[] = [],
): Promise<Engine> {
  const { Session } = await import('chdb');
  const { CLICKHOUSE_SETTINGS } = await import('../src/index.ts');
  const session = new Session();
  const setup = [
    "SET default_table_engine = 'Memory'",
    'SET data_type_default_nullable = 1',
    ...Object.entries(CLICKHOUSE_SETTINGS).map(([k, v]) => `SET ${k} = ${clickhouseLiteral(v)}`),
  ];
  const statements = fixtureStatements('Float64', data).map((s) =>
    s
      .replace(/^CREATE SCHEMA IF NOT EXISTS/, 'CREATE DATABASE IF NOT EXISTS')
      .replace(/^(CREATE TABLE .*)$/, (ddl) =>
        ddl
          .replace(/ TIMESTAMP\b/g, " DateTime64(3, 'UTC')")
          .replace(/ INTEGER\b/g, ' Int64')
          .replace(/ TEXT\b/g, ' String'),
      ),
  );
  for (const s of [...setup, ...statements, ...extra]) session.query(s);
  return {
    async run(sql, params) {
      const text = sql.replace(/\$(\d+)/g, (_, n: string) => clickhouseLiteral(params[Number(n) - 1]));
      const result = await session.queryAsync(text, { format: 'JSON' });
      return result.json<{ data: Record<string, unknown>[] }>().data;
    },
    async close() {
      session.close();
    },
  };
}
