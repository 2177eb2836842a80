import http from 'node:http';
import https from 'node:https';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { type TrinoError, trinoFault } from './engine-faults.ts';
import { requestText } from './http-text.ts';
import { SlotQueue } from './slot-queue.ts';
import { inlineParams } from './trino-literals.ts';

export interface TrinoSettings {
  host: string;
  port?: number;
  /** HTTPS; a password is only ever sent over it. */
  ssl?: boolean;
  user: string;
  password?: string;
  catalog: string;
  schema?: string;
  /** A PEM certificate authority to trust besides the system's (a cluster on a private CA). */
  caCertificate?: string;
  /** Statements running at once per deployment; more wait for one to finish. */
  max?: number;
  /** How long a connection may take to open, and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
  /**
   * Presto (prestodb) speaks the same protocol with X-Presto-* headers where Trino has X-Trino-*
   * (Presto's "Presto Client REST API"); its queries compile to the Presto dialect. Absent: Trino.
   */
  flavour?: 'trino' | 'presto';
}

/** An HTTP answer other than a statement's results: its status names what failed (401, 404, 5xx). */
export class TrinoHttpError extends Error {
  override readonly name = 'TrinoHttpError';
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`Trino answered HTTP ${status}`);
  }
}

/** A statement's error object (Trino's QueryError), with its `errorType` and `errorName`. */
export class TrinoQueryError extends Error {
  override readonly name = 'TrinoQueryError';
  readonly errorType: string;
  readonly errorName: string;
  constructor(error: TrinoError) {
    super(typeof error.message === 'string' ? error.message : 'Trino query failed');
    this.errorType = String(error.errorType ?? '');
    this.errorName = String(error.errorName ?? '');
  }
}

/** One page of Trino's client protocol (QueryResults): the next page's URI until the last. */
interface QueryResults {
  id: string;
  nextUri?: string;
  columns?: Array<{ name: string; type: string }>;
  data?: unknown[][];
  error?: TrinoError;
  stats?: { state?: string };
}

/** A busy coordinator answers 502/503/504: the protocol asks to try again 50-100 ms later. */
const busyStatuses = new Set([502, 503, 504]);
const busyRetries = 10;
const busyDelayMs = 100;

/**
 * Trino's client REST protocol (https://trino.io/docs/current/develop/client-protocol.html), over
 * node:https rather than `trino-client`: the statement is POSTed to /v1/statement, each `nextUri`
 * is followed until the last page, `columns` and `data` come on whichever pages carry them, and a
 * DELETE of the current `nextUri` cancels on the coordinator. node:https takes a private CA and a
 * bounded keep-alive agent; `trino-client`'s errors are axios errors, whose `config` carries the
 * Authorization header, and a log line of one would show the password.
 */
export class TrinoDriver implements Driver {
  readonly dialect: 'trino' | 'presto';
  private readonly agent: http.Agent;
  private readonly slots: SlotQueue;

  constructor(private readonly settings: TrinoSettings) {
    this.dialect = settings.flavour ?? 'trino';
    this.slots = new SlotQueue(settings.max ?? 10);
    const options = { keepAlive: true, maxSockets: (settings.max ?? 10) + 2 };
    this.agent = settings.ssl
      ? new https.Agent({ ...options, ...(settings.caCertificate ? { ca: settings.caCertificate } : {}) })
      : new http.Agent(options);
    this.slots = new SlotQueue(settings.max ?? 10);
  }

  private get base(): string {
    const s = this.settings;
    return `${s.ssl ? 'https' : 'http'}://${s.host}:${s.port ?? (s.ssl ? 443 : 8080)}`;
  }

  /**
   * Session and tag headers (Trino's X-Trino-*, Presto's X-Presto-*): the source and client tags
   * name Tessera and the deployment in the coordinator's query list and its resource-group
   * selectors; client info names the execution. Times read as UTC, as the dialect expects of the
   * session. Presto takes OFFSET only with its `offset_clause_enabled` session property.
   */
  private headers(queryId: string | undefined): Record<string, string> {
    const s = this.settings;
    const x = s.flavour === 'presto' ? 'X-Presto' : 'X-Trino';
    const deployment = Number.isInteger(s.deploymentId) ? `deployment-${s.deploymentId}` : null;
    const headers: Record<string, string> = {
      [`${x}-User`]: s.user,
      [`${x}-Catalog`]: s.catalog,
      [`${x}-Source`]: 'tessera',
      [`${x}-Client-Tags`]: ['tessera', ...(deployment ? [deployment] : [])].join(','),
      [`${x}-Time-Zone`]: 'UTC',
    };
    if (s.flavour === 'presto') headers[`${x}-Session`] = 'offset_clause_enabled=true';
    if (s.schema) headers[`${x}-Schema`] = s.schema;
    if (queryId !== undefined && /^[0-9a-f]+$/.test(queryId))
      headers[`${x}-Client-Info`] = `query=${queryId}`;
    // Basic authentication (RFC 7617), which Trino takes over HTTPS only; the kind refuses a
    // password without `ssl`, and this never sends one in the clear.
    if (s.password !== undefined && s.password !== '' && s.ssl)
      headers.Authorization = `Basic ${Buffer.from(`${s.user}:${s.password}`).toString('base64')}`;
    return headers;
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const text = statementTag(this.settings.deploymentId, options.queryId) + inlineParams(sql, params);
    await this.slots.acquire(signal);
    let next: string | undefined;
    const onAbort = () => {
      // DELETE of the current nextUri cancels the statement on the coordinator (client protocol)
      if (next) this.send('DELETE', next, options.queryId).catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Not aborted in flight: its answer holds the nextUri that cancels the statement it queued.
      let page = await this.send('POST', `${this.base}/v1/statement`, options.queryId, text);
      let columns: Array<{ name: string; type?: string }> | undefined;
      const rows: Record<string, unknown>[] = [];
      for (;;) {
        next = page.nextUri;
        if (signal?.aborted) {
          onAbort();
          throw new QueryCancelledError('Query cancelled');
        }
        if (page.error) throw new TrinoQueryError(page.error);
        columns ??= page.columns;
        if (page.data) {
          if (!columns) throw new WarehouseUnavailableError('Trino sent data before its columns', 'failed');
          for (const values of page.data) rows.push(rowOf(columns, values));
        }
        if (!next) return rows;
        page = await this.send('GET', next, options.queryId, undefined, signal);
      }
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      if (error instanceof TrinoQueryError) throw engineFault(error, trinoFault(error));
      if (error instanceof WarehouseUnavailableError) throw error;
      const sorted = trinoFault(error);
      throw new WarehouseUnavailableError(error, sorted?.fault === 'engine' ? sorted.reason : 'unreachable');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.slots.release();
    }
  }

  /** One request of the protocol, tried again while the coordinator says it is busy. */
  private async send(
    method: 'POST' | 'GET' | 'DELETE',
    uri: string,
    queryId: string | undefined,
    body?: string,
    signal?: AbortSignal,
  ): Promise<QueryResults> {
    for (let attempt = 0; ; attempt++) {
      const { status, text } = await this.request(method, uri, queryId, body, signal);
      if (method === 'DELETE') return { id: '' };
      if (status === 200) return JSON.parse(text) as QueryResults;
      if (busyStatuses.has(status) && attempt < busyRetries) {
        await new Promise((resolve) => setTimeout(resolve, busyDelayMs));
        continue;
      }
      throw new TrinoHttpError(status, status === 401 ? 'TRINO_LOGIN_REFUSED' : `HTTP_${status}`);
    }
  }

  private request(
    method: string,
    uri: string,
    queryId: string | undefined,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; text: string }> {
    const url = new URL(uri);
    // a nextUri on another host than the coordinator's is not followed with its credentials
    if (url.host !== new URL(this.base).host)
      return Promise.reject(new WarehouseUnavailableError('Trino sent a nextUri on another host', 'failed'));
    return requestText(
      'Trino',
      url,
      {
        method,
        agent: this.agent,
        headers: {
          ...this.headers(queryId),
          ...(body !== undefined ? { 'Content-Type': 'text/plain; charset=utf-8' } : {}),
        },
        timeout: this.settings.connectionTimeoutMs ?? 30_000,
        signal,
      },
      body,
    );
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/**
 * A row by column name. Trino's JSON sends bigint and double as numbers (a double's NaN and
 * infinities as strings), decimals, dates and timestamps as text, which the result formatter reads.
 */
function rowOf(columns: Array<{ name: string; type?: string }>, values: unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((c, i) => {
    const v = values[i];
    row[c.name] = (c.type === 'double' || c.type === 'real') && typeof v === 'string' ? Number(v) : v;
  });
  return row;
}
