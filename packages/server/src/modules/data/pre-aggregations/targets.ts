import type { DialectName } from '@tessera/semantic';
import type { Driver } from '../../../datasources/driver.ts';
import { DuckDbDriver } from '../../../datasources/duckdb-driver.ts';
import { MYSQL_ROLLUP_PREFIX } from '../../../datasources/kinds/mysql.ts';
import { SAMPLE_PATH, sampleDatabaseFile } from '../../../datasources/registry.ts';
import type { DataSourceSettings, DeploymentRow, PreAggregationTableRow } from '../../../db/schema.ts';
import type { PreAggregationRepository } from './repository.ts';

/** The schema rollup tables are built in, on the deployment's own engine. */
export const ROLLUP_SCHEMA = 'tessera_pre_aggregations';

/**
 * Where a deployment's rollups are built and read.
 * - PostgreSQL, and DuckDB files Tessera opens for writing: on the deployment's engine, in the
 *   schema `tessera_pre_aggregations`; MySQL/MariaDB: in the deployment's own database, as
 *   `tessera_pa_*` tables (mysqlTarget says why). Every replica reads the same tables, so the table pointers
 *   live in the store and one replica at a time builds (a lease per deployment). Building on the
 *   source engine (rather than copying rows into the embedded DuckDB) keeps one dialect, moves no
 *   rows through Node, and lets every replica read the rollup; it needs CREATE on that database.
 * - The generated sample DuckDB, which is opened read-only (several replicas can share the file):
 *   an in-memory DuckDB of this process, with the sample attached read-only to build from. Its
 *   tables exist only in this process, so pointers are kept here and each replica builds its own.
 */
export interface RollupTarget {
  readonly dialect: DialectName;
  /** Runs the rollup queries (and builds). */
  readonly driver: Driver;
  /** True when the rollups are on another engine than the raw data (Cube's `external`). */
  readonly external: boolean;
  readonly pointers: PointerStore;
  /** Serialises refreshes across replicas; absent where each process builds its own tables. */
  readonly shared: boolean;
  qualify(table: string): string;
  /** Characters `qualify` leaves for a table's own name (the engine's identifier limit). */
  readonly nameRoom: number;
  createStatements(table: string, select: string): string[];
}

/** The table serving each rollup partition. */
export interface PointerStore {
  tables(deploymentId: number): Promise<PreAggregationTableRow[]>;
  swap(row: Omit<PreAggregationTableRow, 'built_at'>): Promise<string | null>;
  removeExcept(deploymentId: number, keep: readonly string[]): Promise<string[]>;
}

export function isSample(deployment: Pick<DeploymentRow, 'data_source'>): boolean {
  const s = deployment.data_source as DataSourceSettings;
  return s.type === 'duckdb' && (s.path ?? SAMPLE_PATH) === SAMPLE_PATH;
}

export function sharedTarget(driver: Driver, repository: PreAggregationRepository): RollupTarget {
  if (driver.dialect === 'mysql') return mysqlTarget(driver, repository);
  return {
    dialect: driver.dialect,
    driver,
    external: false,
    pointers: repository,
    shared: true,
    qualify: (t) => `${ROLLUP_SCHEMA}.${t}`,
    nameRoom: 63, // PostgreSQL's NAMEDATALEN - 1; DuckDB has no limit
    createStatements: (t, select) => [
      `CREATE SCHEMA IF NOT EXISTS ${ROLLUP_SCHEMA}`,
      `CREATE TABLE ${ROLLUP_SCHEMA}.${t} AS ${select}`,
    ],
  };
}

/**
 * MySQL and MariaDB: rollup tables live in the deployment's own database (the one its connection
 * opens), named `tessera_pa_<rollup>_<partition>_<version>`, rather than in a database
 * `tessera_pre_aggregations`. In MySQL a schema is a database: creating one needs CREATE on the
 * whole server (or on that name), which a warehouse login usually lacks (`GRANT ALL ON dw.*` is the
 * common grant; PlanetScale and several hosted services refuse CREATE DATABASE outright), and a
 * database outside the deployment's would be shared by every deployment and installation on the
 * server. Its own database needs only CREATE, DROP and SELECT there. Identifiers hold 64
 * characters: the prefix leaves 53 for the name.
 *
 * The DDL is not transactional, and need not be: `CREATE TABLE ... AS SELECT` makes a new table
 * under a new name (dropped by the engine if it fails), readers find tables only through the
 * pointer the store moves after it completed, and a replaced table is dropped later (DROP waits
 * for queries still reading it, on its metadata lock). Needs MySQL 8.0.21+ or MariaDB where GTID
 * consistency is enforced (earlier versions refuse CREATE ... SELECT there).
 */
function mysqlTarget(driver: Driver, repository: PreAggregationRepository): RollupTarget {
  return {
    dialect: driver.dialect,
    driver,
    external: false,
    pointers: repository,
    shared: true,
    qualify: (t) => `${MYSQL_ROLLUP_PREFIX}${t}`,
    nameRoom: 64 - MYSQL_ROLLUP_PREFIX.length,
    createStatements: (t, select) => [`CREATE TABLE ${MYSQL_ROLLUP_PREFIX}${t} AS ${select}`],
  };
}

/** The in-process DuckDB holding the rollups of a read-only sample database. */
export async function sampleTarget(dataDir: string): Promise<RollupTarget> {
  const driver = await DuckDbDriver.open(':memory:');
  const file = sampleDatabaseFile(dataDir).replace(/'/g, "''");
  await driver.query(`ATTACH '${file}' AS src (READ_ONLY)`, []);
  await driver.query(`CREATE SCHEMA memory.${ROLLUP_SCHEMA}`, []);
  return {
    dialect: 'duckdb',
    driver,
    external: true,
    pointers: new MemoryPointers(),
    shared: false,
    qualify: (t) => `memory.${ROLLUP_SCHEMA}.${t}`,
    nameRoom: 63,
    // `USE src` resolves the model's table names in the sample; it stays on that pooled
    // connection, which reads rollups by their qualified names only.
    createStatements: (t, select) => [`USE src; CREATE TABLE memory.${ROLLUP_SCHEMA}.${t} AS ${select}`],
  };
}

class MemoryPointers implements PointerStore {
  private readonly rows = new Map<string, PreAggregationTableRow>();

  async tables(deploymentId: number) {
    return [...this.rows.values()].filter((r) => r.deployment_id === deploymentId);
  }

  async swap(row: Omit<PreAggregationTableRow, 'built_at'>) {
    const key = `${row.deployment_id}|${row.cube}.${row.name}.${row.partition}`;
    const before = this.rows.get(key)?.table_name ?? null;
    this.rows.set(key, { ...row, built_at: new Date() });
    return before;
  }

  async removeExcept(deploymentId: number, keep: readonly string[]) {
    const gone: string[] = [];
    for (const [key, r] of this.rows) {
      if (r.deployment_id !== deploymentId || keep.includes(`${r.cube}.${r.name}.${r.partition}`)) continue;
      this.rows.delete(key);
      gone.push(r.table_name);
    }
    return gone;
  }
}
