import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type Driver, QueryCancelledError, type QueryOptions } from './driver.ts';

/**
 * DuckDB through @duckdb/node-api. One connection runs one statement at a time, so idle
 * connections are pooled and a busy pool opens another (opening one costs microseconds).
 * Cancelling interrupts the connection running the statement (DESIGN.md "Chosen libraries").
 */
export class DuckDbDriver implements Driver {
  readonly dialect = 'duckdb' as const;
  private readonly idle: DuckDBConnection[] = [];
  private closed = false;

  private constructor(private readonly instance: DuckDBInstance) {}

  static async open(path: string, readOnly = false): Promise<DuckDbDriver> {
    // Loaded by the first data query, not at start: DuckDB's native library is the largest
    // package a start would load, and a process that serves no data never needs it (issue 20).
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(path, readOnly ? { access_mode: 'READ_ONLY' } : {});
    return new DuckDbDriver(instance);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    if (this.closed) throw new Error('DuckDB driver is closed');
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const conn = this.idle.pop() ?? (await this.instance.connect());
    const onAbort = () => conn.interrupt();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reader = await conn.runAndReadAll(sql, params.length > 0 ? (params as never) : undefined);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (this.closed) conn.closeSync();
      else this.idle.push(conn);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.closeSync();
    this.instance.closeSync();
  }
}
