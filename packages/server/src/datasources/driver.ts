import type { DialectName } from '@tessera/semantic';

/**
 * A warehouse connection as the data API needs it: run one compiled statement, cancel it through
 * the signal, close. Deliberately tiny (STYLE.md, Lightdash's "short explicit interface per
 * warehouse"): planning and SQL printing live in @tessera/semantic, not here.
 */
export interface Driver {
  readonly dialect: DialectName;
  query(sql: string, params: readonly unknown[], options?: QueryOptions): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * Aborting cancels the statement on the engine (DuckDB interrupt, PostgreSQL cancel request,
   * MySQL `KILL QUERY`): the query timed out, or every request waiting for it went away.
   */
  signal?: AbortSignal;
  /** The execution's id (modules/data/executor.ts), named in the statement's tag. */
  queryId?: string;
}

/**
 * The comment a server engine's statement starts with (issue 24 item 3), so that a DBA reading
 * pg_stat_activity or the process list sees that Tessera runs it, for which deployment, and which
 * execution (the id the log names). Only digits and hex go in, so it cannot end the comment early;
 * prepended to the SQL sent, after the result's cache key is made (modules/data/run.ts), and
 * before any `$n`, whose numbers it leaves alone.
 */
export function statementTag(deploymentId: number | null | undefined, queryId: string | undefined): string {
  const deployment = Number.isInteger(deploymentId) ? ` deployment=${deploymentId}` : '';
  const query = queryId !== undefined && /^[0-9a-f]+$/.test(queryId) ? ` query=${queryId}` : '';
  return `/* tessera${deployment}${query} */ `;
}

/** Thrown when a statement was cancelled through its signal (timeout or shutdown). */
export class QueryCancelledError extends Error {
  override readonly name = 'QueryCancelledError';
}

/**
 * Why the engine, not the query, failed; each has its own words in the data API's 503
 * (modules/data/errors.ts `warehouseUnavailable`):
 * - `unreachable`: an unknown or unreachable host, a refused login, a database or file not there;
 * - `busy`: out of connections, memory or disk;
 * - `shutting_down`: the server is stopping or starting;
 * - `conflict`: a lock wait timed out, a deadlock or a serialization failure (worth a retry);
 * - `cancelled`: the engine cancelled the statement itself (its statement timeout, an operator);
 * - `permission`: the data source's user may not read what the statement reads;
 * - `setup`: the engine lacks something Tessera needs (MySQL's time-zone tables);
 * - `failed`: an internal or storage error of the engine.
 */
export type UnavailableReason =
  | 'unreachable'
  | 'busy'
  | 'shutting_down'
  | 'conflict'
  | 'cancelled'
  | 'permission'
  | 'setup'
  | 'failed';

/**
 * The warehouse cannot answer: neither the query's fault nor ours. The data API answers 503
 * `warehouse_unavailable` in words for the `reason`, with `detail` (a sentence that names no host,
 * user, password or file) when there is one; only the log sees `cause`, which may name them.
 */
export class WarehouseUnavailableError extends Error {
  override readonly name = 'WarehouseUnavailableError';
  constructor(
    cause: unknown,
    readonly reason: UnavailableReason = 'unreachable',
    readonly detail?: string,
  ) {
    super('The warehouse cannot be reached', { cause });
  }
}

/** An engine error sorted: the query's fault (400), the engine's (503), or neither (500, logged). */
export type EngineFault =
  | { fault: 'statement'; message: string }
  | { fault: 'engine'; reason: UnavailableReason; detail?: string }
  | null;

/** The error a driver throws for an engine error sorted by `classify`; others unchanged. */
export function engineFault(error: unknown, sorted: EngineFault): unknown {
  if (sorted?.fault === 'statement') return new StatementRejectedError(sorted.message, error);
  if (sorted?.fault === 'engine') return new WarehouseUnavailableError(error, sorted.reason, sorted.detail);
  return error;
}

/** An engine message's first line, without a `'user'@'host'` (MySQL's permission errors name them). */
export function firstLine(message: unknown): string {
  const text = typeof message === 'string' ? message : '';
  return text
    .split('\n')[0]!
    .replace(/'[^']*'@'[^']*'/g, "the data source's user")
    .trim();
}

/**
 * The engine refused the statement as written (a syntax error, a column or table that is not
 * there, a division by zero, a type mismatch): the query's or its model's fault, which the data API
 * answers 400 with the engine's first line (it names no setting of the connection).
 */
export class StatementRejectedError extends Error {
  override readonly name = 'StatementRejectedError';
  constructor(
    readonly engineMessage: string,
    cause: unknown,
  ) {
    super(engineMessage, { cause });
  }
}
