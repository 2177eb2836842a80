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
  /** Aborting cancels the statement on the engine (DuckDB interrupt, PostgreSQL cancel request). */
  signal?: AbortSignal;
}

/** Thrown when a statement was cancelled through its signal (timeout or shutdown). */
export class QueryCancelledError extends Error {
  override readonly name = 'QueryCancelledError';
}

/**
 * The warehouse cannot be reached or opened: an unknown or unreachable host, a refused login, a
 * database or DuckDB file that is not there. Neither the query's fault nor ours: the data API
 * answers 503 `warehouse_unavailable`, and only the log sees `cause`, which names hosts and files.
 */
export class WarehouseUnavailableError extends Error {
  override readonly name = 'WarehouseUnavailableError';
  constructor(cause: unknown) {
    super('The warehouse cannot be reached', { cause });
  }
}

/**
 * The engine refused the statement as written (a syntax error, a column or table that is not
 * there, a division by zero): the query's or its model's fault, which the data API answers 400
 * with the engine's first line (it names no setting of the connection).
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
