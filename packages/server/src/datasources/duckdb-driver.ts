import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type Driver, engineFault, QueryCancelledError, type QueryOptions } from './driver.ts';
import { duckdbFault } from './engine-faults.ts';

/**
 * Statements a DuckDB file runs at once; more wait their turn. Each already uses every core
 * (DuckDB's own threads), so more at once only share them thinner and hold more memory.
 */
const maxConnections = 8;

/**
 * DuckDB through @duckdb/node-api. One connection runs one statement at a time, so idle
 * connections are pooled and a busy pool opens another (opening one costs microseconds), up to
 * `maxConnections`; beyond it a statement queues for one. Cancelling interrupts the connection
 * running the statement, or takes a queued one out of the queue (DESIGN.md "Chosen libraries").
 */
export class DuckDbDriver implements Driver {
  readonly dialect = 'duckdb' as const;
  private readonly idle: DuckDBConnection[] = [];
  /** Statements waiting for a connection, first come first served. */
  private readonly queue: Array<(conn: DuckDBConnection) => void> = [];
  private open = 0;
  private closed = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly max = maxConnections,
  ) {}

  static async open(path: string, readOnly = false, max = maxConnections): Promise<DuckDbDriver> {
    // Loaded by the first data query, not at start: DuckDB's native library is the largest
    // package a start would load, and a process that serves no data never needs it (issue 20).
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path, readOnly ? { access_mode: 'READ_ONLY' } : {});
    return new DuckDbDriver(instance, max);
  }

  /** An idle connection, a new one below the bound, or the next one given back. */
  private async acquire(signal: AbortSignal | undefined): Promise<DuckDBConnection> {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.open < this.max) {
      this.open++;
      try {
        return await this.instance.connect();
      } catch (error) {
        this.open--;
        throw error;
      }
    }
    return new Promise<DuckDBConnection>((resolve, reject) => {
      const turn = (conn: DuckDBConnection) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(conn);
      };
      const onAbort = () => {
        const at = this.queue.indexOf(turn);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new QueryCancelledError('Query cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(turn);
    });
  }

  private release(conn: DuckDBConnection) {
    if (this.closed) {
      conn.closeSync();
      this.open--;
      return;
    }
    const next = this.queue.shift();
    if (next) next(conn);
    else this.idle.push(conn);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    if (this.closed) throw new Error('DuckDB driver is closed');
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const conn = await this.acquire(signal);
    const onAbort = () => conn.interrupt();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reader = await conn.runAndReadAll(sql, params.length > 0 ? (params as never) : undefined);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      throw engineFault(error, duckdbFault(error));
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.release(conn);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const conn of this.idle.splice(0)) {
      conn.closeSync();
      this.open--;
    }
    this.instance.closeSync();
  }
}
