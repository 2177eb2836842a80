import pg from 'pg';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { postgresFault } from './engine-faults.ts';

export interface PostgresSettings {
  host: string;
  port?: number;
  database: string;
  user?: string;
  /** A function: asked at each new connection (a per-user pool's current OAuth token, registry.ts). */
  password?: string | (() => string);
  ssl?: boolean;
  /** Schema searched first (tests load the sample data into a schema of their own). */
  searchPath?: string;
  max?: number;
  connectionTimeoutMs?: number;
  /** Idle connections close after this long (pg's default when absent: 10 s). */
  idleTimeoutMs?: number;
  /**
   * What the server shows in pg_stat_activity: whose connection it is (per-user pools, registry.ts);
   * by default `tessera deployment <id>` (issue 24 item 3).
   */
  applicationName?: string;
  /** Named in `application_name` and in the comment ahead of every statement. */
  deploymentId?: number | null;
  /**
   * An engine that speaks PostgreSQL's protocol with SQL of its own (Redshift): the dialect its
   * queries compile to, and its session set by statements instead of startup options (the
   * startup packet's `options` is PostgreSQL's; Redshift documents SET for its settings).
   */
  flavour?: { dialect: 'redshift'; session: readonly SessionStatement[] };
}

/** A statement each new connection runs first; an optional one may fail where the engine lacks it. */
export interface SessionStatement {
  sql: string;
  /** SQLSTATEs that mean "this engine has no such setting": ignored, the connection is used. */
  optional?: readonly string[];
}

/**
 * Errors that say the server is out of reach rather than the statement wrong: SQLSTATE class 08
 * (connection exception), 28 (invalid authorization), 3D000 (no such database), 53300 (too many
 * connections), 57P01-57P03 (shutting down, cannot connect now); node's socket errors (ECONNRESET,
 * ETIMEDOUT, ...), and pg's "Connection terminated" when the server goes away mid-statement.
 * After one of these, the connection is not given back to the pool.
 */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(08|28)/.test(code) || ['3D000', '53300', '57P01', '57P02', '57P03'].includes(code)) return true;
  if (/^E[A-Z]+$/.test(code)) return true;
  return typeof e?.message === 'string' && /^Connection terminated/.test(e.message);
}

/**
 * Opening a connection failed in a way a second attempt may not (the server restarting, its
 * connection slots full for a moment, a connection reset): tried once more. Only the opening is
 * retried, before any statement was sent, never a statement (issue 24 item 3).
 */
function worthRetrying(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return ['57P03', '53300', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(String(code));
}
const retryDelayMs = 250;

/**
 * `timestamp without time zone` (OID 1114) stays text: the PostgreSQL dialect of
 * @tessera/semantic computes wall-clock times in UTC, and node-pg would otherwise read them in the
 * process's local zone. Per-pool parsers, so that the global pg.types are left alone.
 */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 1114
      ? (v: string) => v
      : pg.types.getTypeParser(oid, format as never)) as typeof pg.types.getTypeParser,
};

/**
 * PostgreSQL through a `pg` Pool, one per deployment, bounded by `max`: a query beyond it waits in
 * pg-pool's queue for a connection, at most `connectionTimeoutMs`, and then fails as the
 * warehouse being busy rather than opening another.
 */
export class PostgresDriver implements Driver {
  readonly dialect: 'postgres' | 'redshift';
  private readonly pool: pg.Pool;
  private readonly deploymentId: number | null;
  private readonly session: readonly SessionStatement[];
  /** Connections that ran `session` already (pg-pool hands the same client out again). */
  private readonly prepared = new WeakSet<pg.PoolClient>();

  constructor(settings: PostgresSettings) {
    this.deploymentId = settings.deploymentId ?? null;
    this.dialect = settings.flavour?.dialect ?? 'postgres';
    this.session = settings.flavour?.session ?? [];
    const applicationName =
      settings.applicationName ??
      `tessera${this.deploymentId === null ? '' : ` deployment ${this.deploymentId}`}`;
    this.pool = new pg.Pool({
      host: settings.host,
      port: settings.port ?? 5432,
      database: settings.database,
      user: settings.user,
      password: settings.password,
      ssl: settings.ssl ? { rejectUnauthorized: true } : undefined,
      max: settings.max ?? 10,
      // pg waits for a connection forever by default; a host that drops packets must fail in time.
      connectionTimeoutMillis: settings.connectionTimeoutMs ?? 10_000,
      ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMillis: settings.idleTimeoutMs } : {}),
      application_name: applicationName,
      types,
      // The semantic layer's PostgreSQL SQL assumes a UTC session (date_trunc on wall-clock time).
      ...(settings.flavour
        ? {}
        : {
            options: `-c TimeZone=UTC${settings.searchPath ? ` -c search_path=${settings.searchPath},public` : ''}`,
          }),
    });
    // An idle client losing its server must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const client = await this.connect();
    // waited in the pool's queue past a timeout or the client leaving: send nothing
    if (signal?.aborted) {
      client.release();
      throw new QueryCancelledError('Query cancelled');
    }
    // pg cancels through a second connection carrying the backend's pid and secret key.
    const onAbort = () => {
      const c = client as unknown as { processID: number; secretKey: number };
      const canceller = new pg.Client(this.pool.options);
      canceller
        .connect()
        .then(() => canceller.query('SELECT pg_cancel_backend($1)', [c.processID]))
        .catch(() => undefined)
        .finally(() => canceller.end().catch(() => undefined));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let broken = false;
    try {
      const result = await client.query(
        statementTag(this.deploymentId, options.queryId) + sql,
        params as unknown[],
      );
      return result.rows;
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      broken = (error as { code?: string }).code === undefined || isConnectionError(error);
      throw engineFault(error, postgresFault(error));
    } finally {
      signal?.removeEventListener('abort', onAbort);
      client.release(broken);
    }
  }

  /**
   * A connection of the pool. Anything that stops one from opening (DNS, refused, TLS, login,
   * database, no free slot in time) is the warehouse being unavailable, whatever the statement.
   */
  private async connect(): Promise<pg.PoolClient> {
    const client = await this.open();
    if (this.session.length === 0 || this.prepared.has(client)) return client;
    try {
      for (const statement of this.session) {
        try {
          await client.query(statement.sql);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if (!statement.optional?.includes(String(code))) throw error;
        }
      }
    } catch (error) {
      client.release(true);
      throw this.unavailable(error);
    }
    this.prepared.add(client);
    return client;
  }

  private async open(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      if (worthRetrying(error)) {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
        try {
          return await this.pool.connect();
        } catch (again) {
          throw this.unavailable(again);
        }
      }
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): WarehouseUnavailableError {
    if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message))
      return new WarehouseUnavailableError(
        error,
        this.pool.totalCount >= this.pool.options.max ? 'busy' : 'unreachable',
      );
    const sorted = postgresFault(error);
    return new WarehouseUnavailableError(error, sorted?.fault === 'engine' ? sorted.reason : 'unreachable');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
