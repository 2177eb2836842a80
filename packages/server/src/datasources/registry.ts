import { type SecretBox, sha256 } from '../crypto/secrets.ts';
import type { DataSourceSettings, DeploymentRow } from '../db/schema.ts';
import { ValidationError } from '../errors/domain-errors.ts';
import type { ConnectionTest } from './connection-test.ts';
import { type Driver, WarehouseUnavailableError } from './driver.ts';
import { SAMPLE_PATH } from './duckdb-path.ts';
import { clearFields, referencesIn, substitute } from './env-references.ts';
import { type IntrospectedTable, introspect } from './introspect.ts';
import { kindOf } from './kinds/index.ts';
import type { ClearSettings, OpenContext, StoredSettings } from './kinds/kind.ts';

export { sampleDatabaseFile } from './kinds/duckdb.ts';

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
  /** TESSERA_AWS_SERVER_CREDENTIALS (config.ts). */
  awsServerCredentials?: boolean;
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

/**
 * One driver per deployment, opened on first use and kept, by its kind (datasources/kinds/): a
 * bounded pool per deployment for a server engine, one DuckDB instance per database file shared by
 * the deployments on it. Changed settings open a new driver and close the old one.
 */
export class DriverRegistry {
  private readonly byDeployment = new Map<number, { key: string; driver: Promise<Driver> }>();
  private readonly shared = new Map<string, Promise<Driver>>();
  /** Per-user pools by `deploymentId:userId`, least recently used first (Map order). */
  private readonly byViewer = new Map<
    string,
    { key: string; driver: Promise<Driver>; password: { current: string } }
  >();

  constructor(private readonly options: DriverRegistryOptions) {}

  private context(deploymentId: number | null): OpenContext {
    const { dataDir, sampleScale, awsServerCredentials = false } = this.options;
    return { dataDir, sampleScale, shared: this.shared, deploymentId, awsServerCredentials };
  }

  /**
   * The deployment's driver; with `viewer`, on a kind that can (PostgreSQL), a pool of that user's
   * own, authenticated with their token instead of the data source's password. A refreshed token
   * keeps the pool: new connections authenticate with it, open ones stay as the server
   * authenticated them (managed PostgreSQL checks IAM/OAuth tokens when a connection opens).
   */
  async get(
    deployment: Pick<DeploymentRow, 'id' | 'data_source'>,
    viewer?: ViewerCredential,
  ): Promise<Driver> {
    const stored = deployment.data_source as StoredSettings;
    const kind = kindOf(stored);
    if (viewer && kind.openForViewer) return this.forViewer(deployment.id, stored, viewer);
    const clear = await this.clearSettings(deployment.id, stored);
    // Keyed by what the connection uses, so that a changed variable opens a new pool; hashed, so
    // that no clear password sits in the map.
    const key = sha256(JSON.stringify(clear));
    const current = this.byDeployment.get(deployment.id);
    if (current?.key === key) return current.driver;
    if (current && !kind.sharesDrivers) this.closeQuietly(current.driver);
    const driver = kind.open(clear, this.context(deployment.id));
    // A failed open (server down, bad password) is retried on the next request, not cached.
    driver.catch(() => {
      if (this.byDeployment.get(deployment.id)?.driver === driver) this.byDeployment.delete(deployment.id);
    });
    this.byDeployment.set(deployment.id, { key, driver });
    return driver;
  }

  private async forViewer(deploymentId: number, stored: StoredSettings, viewer: ViewerCredential) {
    const kind = kindOf(stored);
    const { password: _stored, ...settings } = await this.clearSettings(deploymentId, stored);
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
    const driver = kind.openForViewer!(settings, this.context(deploymentId), {
      userId: viewer.userId,
      password: () => password.current,
      poolSize: viewerPoolSize,
      idleMs: viewerIdleMs,
    });
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
   * The settings to connect with: secrets opened, `${NAME}` references replaced by the
   * deployment's env variables. A name the deployment lacks (the variable was removed after the
   * data source was saved) is the caller's to fix: 400 naming it, never a connection attempt.
   */
  private async clearSettings(deploymentId: number | null, stored: StoredSettings): Promise<ClearSettings> {
    const kind = kindOf(stored);
    const clear = clearFields(stored, (sealed) => this.options.secrets.open(sealed));
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
    const settings: ClearSettings = { type: stored.type };
    for (const [field, value] of Object.entries(stored))
      if (!kind.secretFields.some((s) => field === `${s}Enc`)) settings[field] = value;
    return { ...settings, ...resolved };
  }

  /**
   * Connects with `settings` (saved or not: secrets sealed, as stored) and runs `SELECT 1`. A
   * server engine's test opens a connection of its own and closes it, so that the deployment's
   * pool is left alone; a DuckDB file opens as the data API would open it. A failure is an answer
   * in words (the kind's `describeFailure`), not an error; a missing env variable is the caller's 400.
   */
  async test(
    deploymentId: number | null,
    settings: DataSourceSettings,
    timeoutMs = 5_000,
  ): Promise<ConnectionTest> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const kind = kindOf(settings);
    const clear = await this.clearSettings(deploymentId, settings);
    try {
      await kind.test(clear, this.context(deploymentId), timeoutMs);
      return { ok: true, problem: null, message: 'Connected.', field: null, durationMs: elapsed() };
    } catch (error) {
      const cause = error instanceof WarehouseUnavailableError ? error.cause : error;
      return { ok: false, ...kind.describeFailure(cause, settings, timeoutMs), durationMs: elapsed() };
    }
  }

  /** The tables, columns and keys the deployment's data source shows its connection. */
  async introspect(deployment: Pick<DeploymentRow, 'id' | 'data_source'>): Promise<IntrospectedTable[]> {
    const driver = await this.get(deployment);
    return introspect(driver, kindOf(deployment.data_source as StoredSettings).catalogue);
  }

  private closeQuietly(driver: Promise<Driver>) {
    driver.then((d) => d.close()).catch(() => undefined);
  }

  /** Closes every driver; wired to the app's onClose hook. */
  async close(): Promise<void> {
    const drivers = new Set<Promise<Driver>>([
      ...[...this.byDeployment.values()].map((e) => e.driver),
      ...[...this.byViewer.values()].map((e) => e.driver),
      ...this.shared.values(),
    ]);
    this.byDeployment.clear();
    this.byViewer.clear();
    this.shared.clear();
    await Promise.all([...drivers].map((d) => d.then((x) => x.close()).catch(() => undefined)));
  }
}
