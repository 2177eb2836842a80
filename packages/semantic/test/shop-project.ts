/**
 * The shop project of the JavaScript and Jinja model tests: its model files, the fixture tables
 * under `public.` (as Cube's example projects read them), and the engines holding them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DialectName, ModelFile } from '../src/index.ts';
import { duckdbEngine, type Engine, postgresDatabaseEngine } from './engines.ts';
import { type Tables, tables } from './fixtures/data.ts';

/** The files of test/fixtures/{syntax}/shop, under `model/`. */
export function readShopFiles(syntax: 'javascript' | 'jinja'): ModelFile[] {
  const dir = path.join(import.meta.dirname, `fixtures/${syntax}/shop`);
  return readdirSync(dir).map((f) => ({
    path: `model/${f}`,
    content: readFileSync(path.join(dir, f), 'utf8'),
  }));
}

export const publicTables: Tables = Object.fromEntries(
  Object.entries(tables).map(([n, t]) => [`public.${n}`, t]),
);

export type Engines = Partial<Record<DialectName, Engine>>;

/** DuckDB, and PostgreSQL when `postgres` (it is reachable), each holding `publicTables`. */
export async function openShopEngines(postgres: boolean): Promise<Engines> {
  return {
    duckdb: await duckdbEngine(publicTables),
    ...(postgres ? { postgres: await postgresDatabaseEngine(publicTables) } : {}),
  };
}

export async function closeEngines(engines: Engines): Promise<void> {
  await engines.duckdb?.close();
  await engines.postgres?.close();
}
