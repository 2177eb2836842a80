import mysql from 'mysql2/promise';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { mysqlFault } from './engine-faults.ts';
import { inlineParams } from './inline-params.ts';

export interface MysqlSettings {
  host: string;
  port?: number;
  database: string;
  user?: string;
  password?: string;
  ssl?: boolean;
  /** Connections per deployment: queries beyond it wait for one (a bounded pool). */
  max?: number;
  connectionTimeoutMs?: number;
  /** Named in a comment at the head of every statement, so the engine's process list shows who runs it. */
  deploymentId?: number | null;
}

/**
 * What the MySQL dialect of @tessera/semantic expects of a session: `"` quotes identifiers and
 * `||` concatenates (its SQL and PostgreSQL-style model SQL), times read in UTC, and a DECIMAL
 * division keeps 20 digits (4 by default: a ratio `1.0 * a / b` would read 0.48276). The mode is set
 * whole, not appended to the server's: NO_BACKSLASH_ESCAPES there would change how the values
 * substituted below must be escaped.
 */
const SESSION =
  "SET SESSION sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT,STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', time_zone = '+00:00', div_precision_increment = 20";

/** The connection is no longer usable (lost, reset, a fatal protocol error): it leaves the pool. */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; fatal?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  return /^(E[A-Z]+|PROTOCOL_.*|ER_NET_.*)$/.test(code) || e?.fatal === true;
}

/**
 * Opening a connection failed in a way a second attempt may not (connection slots full for a
 * moment, a reset): tried once more. Only the opening, before any statement was sent.
 */
function worthRetrying(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return ['ER_CON_COUNT_ERROR', 'ECONNRESET', 'EPIPE', 'PROTOCOL_CONNECTION_LOST'].includes(String(code));
}
const retryDelayMs = 250;

/**
 * The dialect's `$n` placeholders replaced by escaped values (inline-params.ts). Inlined rather
 * than bound: MySQL's `?` takes one value per occurrence, and as literals a GROUP BY expression and
 * its SELECT twin print alike (ONLY_FULL_GROUP_BY compares them).
 */
export function substituteParams(sql: string, params: readonly unknown[]): string {
  return inlineParams(sql, params, {
    quotes: '\'"`',
    backslashEscapes: true,
    hashComments: true,
    literal: (value) => mysql.escape(value as Parameters<typeof mysql.escape>[0]),
  });
}

/**
 * MySQL and MariaDB through a `mysql2` pool, one per deployment, bounded by `max`: a query beyond
 * it waits in the pool's queue (the data API's timeout and the client going away bound the wait).
 */
export class MysqlDriver implements Driver {
  readonly dialect = 'mysql' as const;
  private readonly pool: mysql.Pool;
  private zoneTables: Promise<boolean> | null = null;

  constructor(private readonly settings: MysqlSettings) {
    this.pool = mysql.createPool({
      ...this.connectionOptions(),
      connectionLimit: settings.max ?? 10,
      maxIdle: Math.min(settings.max ?? 10, 2),
      idleTimeout: 60_000,
      // a queue, not an error, when every connection is busy: the data API's timeout bounds the wait
      queueLimit: 0,
    });
    // The first statement of every new connection, queued ahead of the query that opened it.
    // With a callback: an error of a callback-less query would be an unhandled 'error' event.
    this.pool.on('connection', (conn) => {
      (conn as unknown as { query(sql: string, done: () => void): unknown }).query(SESSION, () => undefined);
    });
  }

  private connectionOptions(): mysql.ConnectionOptions {
    const s = this.settings;
    return {
      host: s.host,
      port: s.port ?? 3306,
      database: s.database,
      user: s.user,
      password: s.password,
      ssl: s.ssl ? { rejectUnauthorized: true } : undefined,
      connectTimeout: s.connectionTimeoutMs ?? 10_000,
      // DATETIME and TIMESTAMP as text: the session is UTC, and a Date would be read in the process's zone
      dateStrings: true,
      // DECIMAL as text, like PostgreSQL's numeric; BIGINT counts as numbers while they fit
      decimalNumbers: false,
      supportBigNumbers: true,
      bigNumberStrings: false,
      multipleStatements: false,
    };
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const text = statementTag(this.settings.deploymentId, options.queryId) + substituteParams(sql, params);
    const conn = await this.connect();
    if (signal?.aborted) {
      conn.release();
      throw new QueryCancelledError('Query cancelled');
    }
    if (/CONVERT_TZ\(/.test(sql) && !(await this.hasZoneTables(conn))) {
      conn.release();
      // CONVERT_TZ gives NULL for a named zone without them: refuse rather than answer empty buckets
      throw new WarehouseUnavailableError(
        'The MySQL server has no time-zone tables',
        'setup',
        'the MySQL server has no time-zone tables, which named time zones need: its administrator loads them with mysql_tzinfo_to_sql (mariadb-tzinfo-to-sql)',
      );
    }
    // MySQL cancels with KILL QUERY <thread> from another connection; the pool's may all be busy.
    const onAbort = () => {
      const killer = mysql.createConnection(this.connectionOptions());
      killer
        .then((k) => k.query(`KILL QUERY ${Number(conn.threadId)}`).finally(() => k.end()))
        .catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let broken = false;
    try {
      const [rows] = await conn.query({ sql: text, rowsAsArray: false });
      return rows as Record<string, unknown>[];
    } catch (error) {
      broken = isConnectionError(error);
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      throw engineFault(error, mysqlFault(error));
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (broken) conn.destroy();
      else conn.release();
    }
  }

  /** A connection of the pool; one that cannot open is the warehouse unavailable (503). */
  private async connect(): Promise<mysql.PoolConnection> {
    const unavailable = (error: unknown) => {
      const sorted = mysqlFault(error);
      return new WarehouseUnavailableError(error, sorted?.fault === 'engine' ? sorted.reason : 'unreachable');
    };
    try {
      return await this.pool.getConnection();
    } catch (error) {
      if (!worthRetrying(error)) throw unavailable(error);
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
      return this.pool.getConnection().catch((again) => {
        throw unavailable(again);
      });
    }
  }

  /** Whether named zones convert; a yes is kept, a no asked again (the tables may be loaded since). */
  private hasZoneTables(conn: mysql.PoolConnection): Promise<boolean> {
    this.zoneTables ??= conn
      .query("SELECT CONVERT_TZ('2024-01-01 00:00:00', '+00:00', 'America/New_York') AS t")
      .then(([rows]) => (rows as Array<{ t: unknown }>)[0]?.t !== null)
      .catch(() => false)
      .then((ok) => {
        if (!ok) this.zoneTables = null;
        return ok;
      });
    return this.zoneTables;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
