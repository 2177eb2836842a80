import pg from 'pg';
import { type Driver, QueryCancelledError, type QueryOptions, WarehouseUnavailableError } from './driver.ts';

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
  /** What the server shows in pg_stat_activity: whose connection it is (per-user pools, registry.ts). */
  applicationName?: string;
}

/**
 * Errors that say the server is out of reach rather than the statement wrong: SQLSTATE class 08
 * (connection exception), 28 (invalid authorization), 3D000 (no such database), 53300 (too many
 * connections), 57P01-57P03 (shutting down, cannot connect now); node's socket errors (ECONNRESET,
 * ETIMEDOUT, ...), and pg's "Connection terminated" when the server goes away mid-statement.
 */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(08|28)/.test(code) || ['3D000', '53300', '57P01', '57P02', '57P03'].includes(code)) return true;
  if (/^E[A-Z]+$/.test(code)) return true;
  return typeof e?.message === 'string' && /^Connection terminated/.test(e.message);
}

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

/** PostgreSQL through a `pg` Pool, one per deployment. */
export class PostgresDriver implements Driver {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(settings: PostgresSettings) {
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
      ...(settings.applicationName !== undefined ? { application_name: settings.applicationName } : {}),
      types,
      // The semantic layer's PostgreSQL SQL assumes a UTC session (date_trunc on wall-clock time).
      options: `-c TimeZone=UTC${settings.searchPath ? ` -c search_path=${settings.searchPath},public` : ''}`,
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
    // Anything that stops a connection from opening (DNS, refused, TLS, login, database) is the
    // warehouse being unavailable, whatever the statement.
    const client = await this.pool.connect().catch((error) => {
      throw new WarehouseUnavailableError(error);
    });
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
      const result = await client.query(sql, params as unknown[]);
      return result.rows;
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      broken = (error as { code?: string }).code === undefined || isConnectionError(error);
      throw isConnectionError(error) ? new WarehouseUnavailableError(error) : error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
