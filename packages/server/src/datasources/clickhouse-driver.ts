import { randomBytes } from 'node:crypto';
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { CLICKHOUSE_SETTINGS } from '@tessera/semantic';
import { inlineParams } from './clickhouse-literals.ts';
import { type Driver, engineFault, QueryCancelledError, type QueryOptions, statementTag } from './driver.ts';
import { clickhouseFault } from './engine-faults.ts';

export interface ClickhouseSettings {
  host: string;
  port?: number;
  /** HTTPS (ClickHouse's 8443); Cloud services take nothing else. */
  ssl?: boolean;
  database: string;
  user?: string;
  password?: string;
  /** Statements running at once per deployment (HTTP connections); more wait for one. */
  max?: number;
  /** How long a connection may take to open and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
}

export const clickhouseDefaultPort = (ssl: unknown) => (ssl === true ? 8443 : 8123);

/**
 * ClickHouse over its HTTP interface with the official `@clickhouse/client`, one client per
 * deployment: its keep-alive agent holds at most `max` sockets, so further queries wait for one
 * (issue 24 item 3). Every statement carries the dialect's settings (CLICKHOUSE_SETTINGS), a
 * `query_id` and a `log_comment` naming Tessera and the deployment (system.processes and
 * system.query_log show both), and asks the server to cancel it when the connection closes.
 * Aborting the signal closes the request and sends `KILL QUERY` for its id, since a server behind
 * a proxy may not see the close. The client's own logging is off: its error lines carry the
 * request's URL and settings, never needed in Tessera's log.
 */
export class ClickhouseDriver implements Driver {
  readonly dialect = 'clickhouse' as const;
  private readonly client: ClickHouseClient;

  constructor(private readonly settings: ClickhouseSettings) {
    const s = settings;
    this.client = createClient({
      url: `${s.ssl ? 'https' : 'http'}://${s.host}:${s.port ?? clickhouseDefaultPort(s.ssl)}`,
      username: s.user || 'default',
      password: s.password ?? '',
      database: s.database,
      application: 'tessera',
      max_open_connections: s.max ?? 10,
      request_timeout: s.connectionTimeoutMs ?? 300_000,
      compression: { request: false, response: false },
      log: { level: ClickHouseLogLevel.OFF },
      clickhouse_settings: {
        ...CLICKHOUSE_SETTINGS,
        cancel_http_readonly_queries_on_client_close: 1,
        // UInt64 counts as text, like PostgreSQL's bigint through the result formatter
        output_format_json_quote_64bit_integers: 1,
      },
    });
  }

  /** `tessera-d<deployment>-<execution>-<random>`: unique while running, as ClickHouse requires. */
  private queryId(execution: string | undefined): string {
    const deployment = Number.isInteger(this.settings.deploymentId) ? this.settings.deploymentId : 'test';
    const run = execution !== undefined && /^[0-9a-f]+$/.test(execution) ? `-${execution}` : '';
    return `tessera-d${deployment}${run}-${randomBytes(4).toString('hex')}`;
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const tag = statementTag(this.settings.deploymentId, options.queryId);
    const text = tag + inlineParams(sql, params);
    const query_id = this.queryId(options.queryId);
    const onAbort = () => {
      this.client
        .command({ query: `KILL QUERY WHERE query_id = '${query_id}' ASYNC` })
        .catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await this.client.query({
        query: text,
        format: 'JSON',
        query_id,
        abort_signal: signal,
        // the tag's words without the comment marks, for system.query_log's log_comment column
        clickhouse_settings: { log_comment: tag.replace(/^\/\* | \*\/ $/g, '') },
      });
      const body = await result.json<Record<string, unknown>>();
      return body.data;
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      const sorted = clickhouseFault(error);
      if (sorted) throw engineFault(error, sorted);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
