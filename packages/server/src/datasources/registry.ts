import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type SecretBox, sha256 } from '../crypto/secrets.ts';
import type { DataSourceSettings, DeploymentRow } from '../db/schema.ts';
import { ValidationError } from '../errors/domain-errors.ts';
import { type ConnectionTest, describeFailure } from './connection-test.ts';
import { type Driver, WarehouseUnavailableError } from './driver.ts';
import { DuckDbDriver } from './duckdb-driver.ts';
import { duckDbFile, SAMPLE_PATH } from './duckdb-path.ts';
import { clearFields, referencesIn, substitute } from './env-references.ts';
import { type IntrospectedTable, introspect } from './introspect.ts';
import type { PostgresSettings } from './postgres-driver.ts';
import { ensureSampleDatabase } from './sample/generate.ts';

export interface DriverRegistryOptions {
  dataDir: string;
  secrets: SecretBox;
  /** Rows scale of a sample database generated on first use (TESSERA_SAMPLE_SCALE). */
  sampleScale: number;
  /**
   * A deployment's env variables, in clear, for the `${NAME}` references of its data source
   * (datasources/env-references.ts); absent: references stay as written.
   */
  variables?: { values(deploymentId: number): Promise<ReadonlyMap<string, string>> };
}

export { SAMPLE_PATH };

/**
 * Who a query runs for, when the data source authenticates each viewer with their own token
 * (`oauthIntegrationId`, issue 22 item 6): the account user, and their access token as the password.
 */
export interface ViewerCredential {
  userId: number;
  password: string;
}

/** Per-user pools stay small and few: a user's dashboard needs a couple of connections, not ten. */
const viewerPoolSize = 2;
/** At most this many per-user pools are kept; the least recently used one closes first. */
const viewerPoolsMax = 100;
/** A per-user pool's idle connections close after this long. */
const viewerIdleMs = 30_000;

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
  /** Per-user pools by `deploymentId:userId`, least recently used first (Map order). */
  private readonly byViewer = new Map<
    string,
    { key: string; driver: Promise<Driver>; password: { current: string } }
  >();

  constructor(private readonly options: DriverRegistryOptions) {}

  /**
   * The deployment's driver; with `viewer`, a PostgreSQL pool of that user's own, authenticated
   * with their token instead of the data source's password and named `tessera-user-<id>` in
   * pg_stat_activity. A refreshed token keeps the pool: new connections authenticate with it, open
   * ones stay as the server authenticated them (managed PostgreSQL checks IAM/OAuth tokens when a
   * connection opens).
   */
  async get(
    deployment: Pick<DeploymentRow, 'id' | 'data_source'>,
    viewer?: ViewerCredential,
  ): Promise<Driver> {
    const stored = deployment.data_source as DataSourceSettings;
    if (viewer && stored.type === 'postgres') return this.forViewer(deployment.id, stored, viewer);
    const postgres = stored.type === 'postgres' ? await this.postgresSettings(deployment.id, stored) : null;
    // Keyed by what the connection uses, so that a changed variable opens a new pool; hashed, so
    // that no clear password sits in the map.
    const key = postgres ? sha256(JSON.stringify(postgres)) : JSON.stringify(stored);
    const current = this.byDeployment.get(deployment.id);
    if (current?.key === key) return current.driver;
    if (current && stored.type === 'postgres') this.closeQuietly(current.driver);
    const driver = postgres ? this.openPostgres(postgres) : this.open(stored);
    // A failed open (server down, bad password) is retried on the next request, not cached.
    driver.catch(() => {
      if (this.byDeployment.get(deployment.id)?.driver === driver) this.byDeployment.delete(deployment.id);
    });
    this.byDeployment.set(deployment.id, { key, driver });
    return driver;
  }

  private async forViewer(
    deploymentId: number,
    stored: DataSourceSettings,
    viewer: ViewerCredential,
  ): Promise<Driver> {
    const { password: _stored, ...source } = await this.postgresSettings(deploymentId, stored);
    const settings: PostgresSettings = {
      ...source,
      max: viewerPoolSize,
      idleTimeoutMs: viewerIdleMs,
      applicationName: `tessera-user-${viewer.userId}`,
    };
    const slot = `${deploymentId}:${viewer.userId}`;
    // Keyed without the token: a changed data source opens a new pool, a refreshed token does not.
    const key = sha256(JSON.stringify(settings));
    const current = this.byViewer.get(slot);
    if (current) {
      this.byViewer.delete(slot); // re-inserted below: most recently used last
      if (current.key === key) {
        current.password.current = viewer.password;
        this.byViewer.set(slot, current);
        return current.driver;
      }
      this.closeQuietly(current.driver);
    }
    const password = { current: viewer.password };
    const driver = this.openPostgres({ ...settings, password: () => password.current });
    driver.catch(() => {
      if (this.byViewer.get(slot)?.driver === driver) this.byViewer.delete(slot);
    });
    this.byViewer.set(slot, { key, driver, password });
    for (const [oldest, entry] of this.byViewer) {
      if (this.byViewer.size <= viewerPoolsMax) break;
      this.byViewer.delete(oldest);
      this.closeQuietly(entry.driver);
    }
    return driver;
  }

  /**
   * The connection settings of a PostgreSQL data source, its `${NAME}` references replaced by the
   * deployment's env variables. A name the deployment lacks (the variable was removed after the
   * data source was saved) is the caller's to fix: 400 naming it, never a connection attempt.
   */
  private async postgresSettings(
    deploymentId: number | null,
    settings: DataSourceSettings,
  ): Promise<PostgresSettings> {
    const clear = clearFields(settings, (sealed) => this.options.secrets.open(sealed));
    const uses = deploymentId !== null && this.options.variables && referencesIn(clear).length > 0;
    const { settings: resolved, missing } = uses
      ? substitute(clear, await this.options.variables!.values(deploymentId!))
      : { settings: clear, missing: [] };
    if (missing.length > 0) {
      throw new ValidationError(
        `The data source of deployment ${deploymentId} uses env variables it does not have: ${[
          ...new Set(missing.map((m) => m.name)),
        ].join(', ')}`,
        missing.map((m) => ({
          field: `dataSource/${m.field}`,
          message: `names env variable ${m.name}, which deployment ${deploymentId} does not have`,
        })),
      );
    }
    return {
      host: resolved.host ?? '127.0.0.1',
      port: settings.port,
      database: resolved.database ?? 'postgres',
      user: resolved.user,
      password: resolved.password,
      ssl: settings.ssl,
    };
  }

  /**
   * Connects with `settings` (saved or not: the password sealed, as stored) and runs `SELECT 1`.
   * A PostgreSQL test opens a connection of its own and closes it, so that the deployment's pool
   * is left alone; a DuckDB file opens as the data API would open it. A failure is an answer in
   * words (connection-test.ts), not an error; a missing env variable is the caller's 400.
   */
  async test(
    deploymentId: number | null,
    settings: DataSourceSettings,
    timeoutMs = 5_000,
  ): Promise<ConnectionTest> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const postgres =
      settings.type === 'postgres' ? await this.postgresSettings(deploymentId, settings) : null;
    try {
      if (postgres) {
        const driver = await this.openPostgres({ ...postgres, max: 1, connectionTimeoutMs: timeoutMs });
        try {
          await driver.query('SELECT 1', []);
        } finally {
          await driver.close().catch(() => undefined);
        }
      } else {
        await (await this.open(settings)).query('SELECT 1', []);
      }
      return { ok: true, problem: null, message: 'Connected.', field: null, durationMs: elapsed() };
    } catch (error) {
      const cause = error instanceof WarehouseUnavailableError ? error.cause : error;
      return { ok: false, ...describeFailure(cause, settings, timeoutMs), durationMs: elapsed() };
    }
  }

  /** The tables, columns and keys the deployment's data source shows its connection. */
  async introspect(deployment: Pick<DeploymentRow, 'id' | 'data_source'>): Promise<IntrospectedTable[]> {
    const driver = await this.get(deployment);
    return introspect(driver, (deployment.data_source as DataSourceSettings).type);
  }

  private openPostgres(postgres: PostgresSettings): Promise<Driver> {
    // node-postgres loads with the first PostgreSQL warehouse, not at start (issue 20, item 6).
    return import('./postgres-driver.ts').then(({ PostgresDriver }) => new PostgresDriver(postgres));
  }

  private open(settings: DataSourceSettings): Promise<Driver> {
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
      ...[...this.byViewer.values()].map((e) => e.driver),
      ...this.duckdbFiles.values(),
    ]);
    this.byDeployment.clear();
    this.byViewer.clear();
    this.duckdbFiles.clear();
    await Promise.all([...drivers].map((d) => d.then((x) => x.close()).catch(() => undefined)));
  }
}
