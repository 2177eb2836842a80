import { DuckDBInstance } from '@duckdb/node-api';
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
