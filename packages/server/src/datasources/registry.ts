import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { SecretBox } from '../crypto/secrets.ts';
import type { DataSourceSettings, DeploymentRow } from '../db/schema.ts';
import { type Driver, WarehouseUnavailableError } from './driver.ts';
import { DuckDbDriver } from './duckdb-driver.ts';
import { duckDbFile, SAMPLE_PATH } from './duckdb-path.ts';
import type { PostgresSettings } from './postgres-driver.ts';
import { ensureSampleDatabase } from './sample/generate.ts';

export interface DriverRegistryOptions {
  dataDir: string;
  secrets: SecretBox;
  /** Rows scale of a sample database generated on first use (TESSERA_SAMPLE_SCALE). */
  sampleScale: number;
}

export { SAMPLE_PATH };

export function sampleDatabaseFile(dataDir: string): string {
  return path.join(dataDir, 'sample.duckdb');
}

/**
 * One driver per deployment, opened on first use and kept: a PostgreSQL pool per deployment, one
 * DuckDB instance per database file (DuckDB allows one writer instance per file, so deployments
 * on the same file share it). Changed settings open a new driver and close the old one.
 */
export class DriverRegistry {
  private readonly byDeployment = new Map<number, { key: string; driver: Promise<Driver> }>();
  private readonly duckdbFiles = new Map<string, Promise<Driver>>();

  constructor(private readonly options: DriverRegistryOptions) {}

  get(deployment: Pick<DeploymentRow, 'id' | 'data_source'>): Promise<Driver> {
    const settings = deployment.data_source as DataSourceSettings;
    const key = JSON.stringify(settings);
    const current = this.byDeployment.get(deployment.id);
    if (current?.key === key) return current.driver;
    if (current && settings.type === 'postgres') this.closeQuietly(current.driver);
    const driver = this.open(settings);
    // A failed open (server down, bad password) is retried on the next request, not cached.
    driver.catch(() => {
      if (this.byDeployment.get(deployment.id)?.driver === driver) this.byDeployment.delete(deployment.id);
    });
    this.byDeployment.set(deployment.id, { key, driver });
    return driver;
  }

  private open(settings: DataSourceSettings): Promise<Driver> {
    if (settings.type === 'postgres') {
      const postgres: PostgresSettings = {
        host: settings.host ?? '127.0.0.1',
        port: settings.port,
        database: settings.database ?? 'postgres',
        user: settings.user,
        password: settings.passwordEnc ? this.options.secrets.open(settings.passwordEnc) : undefined,
        ssl: settings.ssl,
      };
      // node-postgres loads with the first PostgreSQL warehouse, not at start (issue 20, item 6).
      return import('./postgres-driver.ts').then(({ PostgresDriver }) => new PostgresDriver(postgres));
    }
    const sample = (settings.path ?? SAMPLE_PATH) === SAMPLE_PATH;
    const file = sample
      ? sampleDatabaseFile(this.options.dataDir)
      : duckDbFile(this.options.dataDir, settings.path!);
    // A path stored before paths were checked (duckdb-path.ts) is refused here too.
    if (file === null)
      return Promise.reject(new WarehouseUnavailableError('DuckDB path outside the data directory'));
    let driver = this.duckdbFiles.get(file);
    if (!driver) {
      driver = (async () => {
        if (sample) {
          await ensureSampleDatabase(file, this.options.sampleScale);
          return DuckDbDriver.open(file, true);
        }
        // DuckDB would create a missing file and answer "no such table": say what is wrong instead.
        const found = await stat(file).catch((error) => {
          throw new WarehouseUnavailableError(error);
        });
        if (!found.isFile()) throw new WarehouseUnavailableError(`${file} is not a file`);
        return DuckDbDriver.open(file).catch((error) => {
          throw new WarehouseUnavailableError(error);
        });
      })();
      driver.catch(() => this.duckdbFiles.delete(file));
      this.duckdbFiles.set(file, driver);
    }
    return driver;
  }

  private closeQuietly(driver: Promise<Driver>) {
    driver.then((d) => d.close()).catch(() => undefined);
  }

  /** Closes every driver; wired to the app's onClose hook. */
  async close(): Promise<void> {
    const drivers = new Set<Promise<Driver>>([
      ...[...this.byDeployment.values()].map((e) => e.driver),
      ...this.duckdbFiles.values(),
    ]);
    this.byDeployment.clear();
    this.duckdbFiles.clear();
    await Promise.all([...drivers].map((d) => d.then((x) => x.close()).catch(() => undefined)));
  }
}
