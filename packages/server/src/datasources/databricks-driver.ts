import https from 'node:https';
import { sleep } from './abortable-sleep.ts';
import { bearerOf, type DatabricksCredentials } from './databricks-auth.ts';
import { inlineParams } from './databricks-literals.ts';
import { type DatabricksColumn, rowOf } from './databricks-values.ts';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { databricksFault } from './engine-faults.ts';
import { requestText } from './http-text.ts';
import { SlotQueue } from './slot-queue.ts';

export interface DatabricksSettings extends DatabricksCredentials {
  /** The workspace host, `name` or `name:port` (`dbc-a1b2c3d4-e5f6.cloud.databricks.com`). */
  host: string;
  /** The SQL warehouse statements run on. */
  warehouseId: string;
  /** Default catalog and schema for unqualified table names (the API's `catalog`, `schema`). */
  catalog?: string;
  schema?: string;
  /** A PEM certificate authority to trust besides the system's (a private link on a private CA). */
  caCertificate?: string;
  /** Statements running at once per deployment; more wait for one to finish. */
  max?: number;
  /** How long a connection may take to open, and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
}

/** An HTTP answer other than a statement's: its status and the API's `error_code` name what failed. */
export class DatabricksHttpError extends Error {
  override readonly name = 'DatabricksHttpError';
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly apiMessage: string,
  ) {
    super(`Databricks answered HTTP ${status}${errorCode ? ` ${errorCode}` : ''}`);
  }
}

/** A statement that ended FAILED (or CANCELED, CLOSED): its `status.error` and `status.sql_state`. */
export class DatabricksStatementError extends Error {
  override readonly name = 'DatabricksStatementError';
  constructor(
    message: string,
    readonly errorCode: string,
    readonly sqlState: string,
    readonly state: string,
  ) {
    super(message);
  }
}

/** The parts of a StatementResponse (and of a chunk, ResultData) the driver reads. */
interface ResultData {
  chunk_index?: number;
  data_array?: Array<Array<string | null>>;
  next_chunk_index?: number;
  next_chunk_internal_link?: string;
}
interface StatementResponse {
  statement_id?: string;
  status?: {
    state?: string;
    sql_state?: string;
    error?: { error_code?: string; message?: string };
  };
  manifest?: { schema?: { columns?: DatabricksColumn[] }; truncated?: boolean };
  result?: ResultData;
}

/** Statuses worth the same GET again (the service busy or restarting); a submit only on 429. */
const retryStatuses = new Set([429, 500, 502, 503, 504]);
const retryDelaysMs = [100, 250, 500, 1000, 2000];
/** Polls start quick (most statements end within a second) and slow down to one a second. */
const pollDelaysMs = [20, 50, 100, 200, 500, 1000];
/** How long the submit blocks for the result, the API's least non-zero wait ("5s" to "50s"). */
const waitTimeout = '5s';
const statementIdPattern = /^[0-9A-Za-z-]+$/;
const runningStates = new Set(['PENDING', 'RUNNING']);
/**
 * Whether current_timezone() names UTC, however the warehouse spells it: `UTC`, `Etc/UTC`, `Z`,
 * `+00:00`, or any tz database name whose offset is zero in both January and July (`GMT`, `Zulu`).
 */
export function isUtcZone(zone: string): boolean {
  if (/^(UTC|Z|[+-]00:?00)$/i.test(zone)) return true;
  try {
    const offset = (month: number) =>
      new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        .formatToParts(Date.UTC(2024, month, 15))
        .find((p) => p.type === 'timeZoneName')?.value;
    const zero = (v: string | undefined) => v === 'GMT' || v === 'GMT+00:00';
    return zero(offset(0)) && zero(offset(6));
  } catch {
    return false; // a zone this process does not know: not taken for UTC
  }
}

/** `promise`, or a cancellation as soon as `signal` aborts (the promise goes on for others). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new QueryCancelledError('Query cancelled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new QueryCancelledError('Query cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Databricks SQL over its documented Statement Execution API 2.0 (REST, "Execute SQL statements
 * on warehouses", docs.databricks.com/api/workspace/statementexecution), on node:https, as
 * snowflake-driver.ts speaks Snowflake's SQL API. Not `@databricks/sql`: it speaks HiveServer2's
 * Thrift protocol, which a test could only answer with a Thrift server of its own; the statement
 * API is plain JSON over HTTPS, authenticated per request.
 *
 * A statement is POSTed to /api/2.0/sql/statements with the warehouse, catalog and schema, a
 * `wait_timeout` of 5 s with `on_wait_timeout` CONTINUE (a short statement answers in that one
 * round trip), disposition INLINE and format JSON_ARRAY; its text starts with the same comment as
 * the other engines', naming Tessera, the deployment and the execution in the query history. A PENDING or RUNNING answer is polled at
 * /api/2.0/sql/statements/{id}; the result's first chunk comes with SUCCEEDED, and the others by
 * each chunk's `next_chunk_internal_link`. Aborting POSTs /api/2.0/sql/statements/{id}/cancel.
 * The submit has no idempotency key, so it is retried only on 429 (refused before it ran); GETs
 * on 429 and 5xx; the cancel not at all. Authentication: a personal access token, or an OAuth
 * service principal's token (databricks-auth.ts).
 */
export class DatabricksDriver implements Driver {
  readonly dialect = 'databricks' as const;
  private readonly agent: https.Agent;
  private readonly slots: SlotQueue;
  private readonly base: string;
  private readonly bearer: () => Promise<string>;
  /** The session time zone's check, made by the first query and shared by those arriving meanwhile. */
  private utc: Promise<void> | undefined;

  constructor(private readonly settings: DatabricksSettings) {
    this.slots = new SlotQueue(settings.max ?? 10);
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: (settings.max ?? 10) + 2,
      ...(settings.caCertificate ? { ca: settings.caCertificate } : {}),
    });
    this.base = `https://${settings.host}`;
    this.bearer = bearerOf(settings, this.base, this.agent, settings.connectionTimeoutMs ?? 30_000);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const statement = statementTag(this.settings.deploymentId, options.queryId) + inlineParams(sql, params);
    await this.slots.acquire(signal);
    try {
      this.utc ??= this.sessionInUtc().catch((error) => {
        this.utc = undefined; // asked again by the next query, once the warehouse's setting is fixed
        throw error;
      });
      await untilAborted(this.utc, signal);
      return await this.execute(statement, signal);
    } finally {
      this.slots.release();
    }
  }

  /**
   * The warehouse's session time zone, asked once per driver: the dialect reads TIMESTAMPs as UTC
   * (dialect/databricks.ts), and a warehouse whose TIMEZONE parameter says otherwise would group
   * and filter in the wrong hours, so its queries are refused (503, `setup`) rather than answered.
   */
  private async sessionInUtc(): Promise<void> {
    const tag = statementTag(this.settings.deploymentId, undefined);
    const [row] = await this.execute(`${tag}SELECT current_timezone() AS \`timezone\``, undefined);
    const zone = String(row?.timezone ?? '');
    if (!isUtcZone(zone))
      throw new WarehouseUnavailableError(
        Object.assign(new Error('The session time zone is not UTC'), { code: 'DATABRICKS_NOT_UTC', zone }),
        'setup',
        `its SQL warehouse runs statements in the time zone ${zone}, and Tessera reads timestamps as UTC: set the SQL configuration parameter TIMEZONE to UTC`,
      );
  }

  /** One statement from submission to its last chunk, cancelled on the warehouse when `signal` aborts. */
  private async execute(
    statement: string,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>[]> {
    let id: string | undefined;
    const onAbort = () => {
      if (id) this.cancel(id);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Not aborted in flight: its answer holds the id that cancels the statement it started.
      let answer = await this.submit(statement);
      id = answer.statement_id;
      if (id === undefined || !statementIdPattern.test(id))
        throw new WarehouseUnavailableError('Databricks sent no usable statement id', 'failed');
      for (let poll = 0; runningStates.has(answer.status?.state ?? ''); poll++) {
        if (signal?.aborted) break;
        await sleep(pollDelaysMs[Math.min(poll, pollDelaysMs.length - 1)]!, signal);
        if (signal?.aborted) break;
        answer = await this.send('GET', `/api/2.0/sql/statements/${id}`, undefined, signal);
      }
      if (signal?.aborted) {
        onAbort();
        throw new QueryCancelledError('Query cancelled');
      }
      const state = answer.status?.state ?? '';
      if (state !== 'SUCCEEDED')
        throw new DatabricksStatementError(
          answer.status?.error?.message ?? `Databricks statement ${state.toLowerCase() || 'failed'}`,
          answer.status?.error?.error_code ?? '',
          answer.status?.sql_state ?? '',
          state,
        );
      return await this.rows(answer, signal);
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      if (error instanceof DatabricksStatementError) {
        const sorted = databricksFault(error);
        if (sorted) throw engineFault(error, sorted);
      }
      if (error instanceof WarehouseUnavailableError) throw error;
      const sorted = databricksFault(error);
      throw new WarehouseUnavailableError(error, sorted?.fault === 'engine' ? sorted.reason : 'unreachable');
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Every chunk's rows, converted by the manifest's column types; chunk 0 came with the answer. */
  private async rows(answer: StatementResponse, signal: AbortSignal | undefined) {
    const columns = answer.manifest?.schema?.columns;
    if (!columns) throw new WarehouseUnavailableError('Databricks sent a result without a schema', 'failed');
    const rows: Record<string, unknown>[] = [];
    let chunk: ResultData | undefined = answer.result;
    for (let n = 0; chunk; n++) {
      for (const values of chunk.data_array ?? []) rows.push(rowOf(columns, values));
      const link = chunk.next_chunk_internal_link;
      // the link is a path of this workspace's API, never another host
      if (!link) break;
      if (!link.startsWith('/api/2.0/sql/statements/'))
        throw new WarehouseUnavailableError('Databricks sent a chunk link outside its API', 'failed');
      chunk = (await this.send('GET', link, undefined, signal)) as ResultData;
      if (n > 100_000) throw new WarehouseUnavailableError('Databricks sent endless chunks', 'failed');
    }
    return rows;
  }

  /**
   * The statement's submission, with only the fields the Statement Execution API 2.0 documents: its
   * query tags are a session's (SET QUERY_TAGS), and this API has no session, so Tessera and the
   * deployment are named by the statement's leading comment, shown in the query history.
   */
  private submit(statement: string): Promise<StatementResponse> {
    const s = this.settings;
    const body = JSON.stringify({
      statement,
      warehouse_id: s.warehouseId,
      ...(s.catalog ? { catalog: s.catalog } : {}),
      ...(s.schema ? { schema: s.schema } : {}),
      wait_timeout: waitTimeout,
      on_wait_timeout: 'CONTINUE',
      disposition: 'INLINE',
      format: 'JSON_ARRAY',
    });
    return this.send('POST', '/api/2.0/sql/statements', body, undefined);
  }

  /** Cancels the statement on the warehouse; its answer is not awaited (the query has ended for us). */
  private cancel(id: string): void {
    this.request('POST', `/api/2.0/sql/statements/${id}/cancel`, '{}', undefined).catch(() => undefined);
  }

  /** One request of the API, tried again while the service says it is busy (see the class comment). */
  private async send(
    method: 'POST' | 'GET',
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<StatementResponse> {
    for (let attempt = 0; ; attempt++) {
      const { status, text } = await this.request(method, path, body, signal);
      if (status === 200) return JSON.parse(text) as StatementResponse;
      const retryable = method === 'GET' ? retryStatuses.has(status) : status === 429;
      if (retryable && attempt < retryDelaysMs.length && !signal?.aborted) {
        await sleep(retryDelaysMs[attempt]!, signal);
        continue;
      }
      let error: { error_code?: unknown; message?: unknown } = {};
      try {
        error = JSON.parse(text);
      } catch {}
      // error_code is a name (`RESOURCE_DOES_NOT_EXIST`), or the status as a number where the
      // front end refused the token (`{"error_code": 403, "message": "Invalid access token."}`)
      throw new DatabricksHttpError(
        status,
        typeof error.error_code === 'string' || typeof error.error_code === 'number'
          ? String(error.error_code)
          : '',
        typeof error.message === 'string' ? error.message : '',
      );
    }
  }

  private async request(
    method: string,
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ) {
    const token = await this.bearer();
    return requestText(
      'Databricks',
      new URL(path, this.base),
      {
        method,
        agent: this.agent,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          'User-Agent': 'Tessera',
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
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
