import { randomUUID } from 'node:crypto';
import https from 'node:https';
import { sleep } from './abortable-sleep.ts';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { type SnowflakeFailure, snowflakeFault } from './engine-faults.ts';
import { requestText } from './http-text.ts';
import { SlotQueue } from './slot-queue.ts';
import {
  jwtLifetimeSeconds,
  keyPairJwt,
  readPrivateKey,
  SnowflakeNoCredentialsError,
} from './snowflake-auth.ts';
import { inlineParams } from './snowflake-literals.ts';
import { rowOf, type SnowflakeColumn } from './snowflake-values.ts';

export interface SnowflakeSettings {
  /** The account identifier (`myorg-myaccount`, or a locator `xy12345.us-east-1`). */
  account: string;
  /** Another host than `<account>.snowflakecomputing.com` (private link), `name[:port]`. */
  host?: string;
  user: string;
  warehouse?: string;
  database?: string;
  schema?: string;
  role?: string;
  /** Key-pair authentication: a PEM private key (PKCS#8), its passphrase if encrypted. */
  privateKey?: string;
  privateKeyPassphrase?: string;
  /** OAuth authentication: an access token, sent as it is. */
  oauthToken?: string;
  /** A PEM certificate authority to trust besides the system's (private link on a private CA). */
  caCertificate?: string;
  /** Statements running at once per deployment; more wait for one to finish. */
  max?: number;
  /** How long a connection may take to open, and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
}

/** An HTTP answer other than a statement's (401, 403, 404, 429, 5xx): its status names what failed. */
export class SnowflakeHttpError extends Error {
  override readonly name = 'SnowflakeHttpError';
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`Snowflake answered HTTP ${status}`);
  }
}

/** A statement Snowflake refused or failed (HTTP 422, QueryFailureStatus): its code, SQLSTATE, message. */
export class SnowflakeStatementError extends Error {
  override readonly name = 'SnowflakeStatementError';
  readonly code: string;
  readonly sqlState: string;
  constructor(failure: SnowflakeFailure) {
    super(typeof failure.message === 'string' ? failure.message : 'Snowflake statement failed');
    this.code = String(failure.code ?? '');
    this.sqlState = String(failure.sqlState ?? '');
  }
}

/** The SQL API's answers that the driver reads: QueryStatus (202), ResultSet (200), QueryFailureStatus (422). */
interface Answer {
  status: number;
  body: {
    statementHandle?: string;
    code?: string;
    sqlState?: string;
    message?: string;
    resultSetMetaData?: { rowType?: SnowflakeColumn[]; partitionInfo?: unknown[] };
    data?: Array<Array<string | null>>;
  };
}

/** Statuses worth the same request again (the service busy or restarting), per the SQL API's retry advice. */
const retryStatuses = new Set([429, 500, 502, 503, 504]);
const retryDelaysMs = [100, 250, 500, 1000, 2000];
/** Polls start quick (most statements end within a second) and slow down to one a second. */
const pollDelaysMs = [20, 50, 100, 200, 500, 1000];
/**
 * The statement's own `timeout` (s): a backstop should the cancel on the data API's timeout be
 * lost, so that a warehouse does not run a forgotten statement for the account's default of two days.
 */
const statementTimeoutSeconds = 3600;
const handlePattern = /^[0-9A-Za-z-]+$/;

/**
 * Snowflake over its documented SQL API v2 (https://docs.snowflake.com/en/developer-guide/sql-api),
 * on node:https, as trino-driver.ts speaks Trino's REST protocol. Not `snowflake-sdk`: it pulls the
 * AWS, Azure and Google SDKs, opens a browser for SSO, and speaks Snowflake's internal session
 * protocol; the SQL API is one documented HTTPS resource, authenticated per request.
 *
 * A statement is POSTed to /api/v2/statements with a `requestId` (a resubmission with the same id
 * and `retry=true` never runs it twice), its `timeout`, and QUERY_TAG naming Tessera, the deployment
 * and the execution; a 202 is polled at /api/v2/statements/{handle} until the 200 with the result's
 * metadata and first partition; further partitions come with `?partition=N`. Aborting POSTs
 * /api/v2/statements/{handle}/cancel. The submit and the GETs are retried on 429 and 5xx; the cancel
 * is not. Authentication is a key-pair JWT (RS256, built with node:crypto, renewed before its hour
 * ends) or an OAuth token; neither is ever in an error, a log line or a response.
 */
export class SnowflakeDriver implements Driver {
  readonly dialect = 'snowflake' as const;
  private readonly agent: https.Agent;
  private readonly slots: SlotQueue;
  private readonly base: string;
  private readonly credential: () => { token: string; type: 'KEYPAIR_JWT' | 'OAUTH' };

  constructor(private readonly settings: SnowflakeSettings) {
    this.slots = new SlotQueue(settings.max ?? 10);
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: (settings.max ?? 10) + 2,
      ...(settings.caCertificate ? { ca: settings.caCertificate } : {}),
    });
    this.base = `https://${settings.host || `${settings.account}.snowflakecomputing.com`}`;
    this.credential = credentialOf(settings);
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
    let handle: string | undefined;
    const onAbort = () => {
      if (handle) this.cancel(handle);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Not aborted in flight: its answer holds the handle that cancels the statement it started.
      let answer = await this.submit(statement, options.queryId);
      handle = answer.body.statementHandle;
      if (answer.status === 202 && handle === undefined)
        throw new WarehouseUnavailableError('Snowflake sent no statement handle', 'failed');
      if (handle !== undefined && !handlePattern.test(handle))
        throw new WarehouseUnavailableError('Snowflake sent a malformed statement handle', 'failed');
      for (let poll = 0; answer.status === 202; poll++) {
        if (signal?.aborted) break;
        await sleep(pollDelaysMs[Math.min(poll, pollDelaysMs.length - 1)]!, signal);
        if (signal?.aborted) break;
        answer = await this.send('GET', `/api/v2/statements/${handle}`, undefined, signal);
      }
      if (signal?.aborted) {
        onAbort();
        throw new QueryCancelledError('Query cancelled');
      }
      if (answer.status === 422) throw new SnowflakeStatementError(answer.body);
      if (answer.status !== 200) throw new SnowflakeHttpError(answer.status, `HTTP_${answer.status}`);
      return await this.rows(answer, handle, signal);
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      if (error instanceof SnowflakeStatementError) throw engineFault(error, snowflakeFault(error));
      if (error instanceof WarehouseUnavailableError) throw error;
      const sorted = snowflakeFault(error);
      throw new WarehouseUnavailableError(error, sorted?.fault === 'engine' ? sorted.reason : 'unreachable');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.slots.release();
    }
  }

  /** Every partition's rows, converted by the result's rowType; partition 0 came with the answer. */
  private async rows(answer: Answer, handle: string | undefined, signal: AbortSignal | undefined) {
    const columns = answer.body.resultSetMetaData?.rowType;
    if (!columns) throw new WarehouseUnavailableError('Snowflake sent a result without rowType', 'failed');
    const partitions = answer.body.resultSetMetaData?.partitionInfo?.length ?? 1;
    const rows = (answer.body.data ?? []).map((values) => rowOf(columns, values));
    for (let partition = 1; partition < partitions; partition++) {
      const next = await this.send(
        'GET',
        `/api/v2/statements/${handle}?partition=${partition}`,
        undefined,
        signal,
      );
      if (next.status !== 200) throw new SnowflakeHttpError(next.status, `HTTP_${next.status}`);
      for (const values of next.body.data ?? []) rows.push(rowOf(columns, values));
    }
    return rows;
  }

  /**
   * The statement's submission. Its `requestId` makes a retry safe ("Resubmitting a request to
   * execute SQL statements": the same id with `retry=true` returns the first submission's statement).
   * Session parameters: QUERY_TAG, and TIMEZONE UTC, as the dialect expects of the session.
   */
  private submit(statement: string, queryId: string | undefined): Promise<Answer> {
    const s = this.settings;
    const tag: Record<string, unknown> = { application: 'tessera' };
    if (Number.isInteger(s.deploymentId)) tag.deployment = s.deploymentId;
    if (queryId !== undefined && /^[0-9a-f]+$/.test(queryId)) tag.query = queryId;
    const body = JSON.stringify({
      statement,
      timeout: statementTimeoutSeconds,
      ...(s.warehouse ? { warehouse: s.warehouse } : {}),
      ...(s.database ? { database: s.database } : {}),
      ...(s.schema ? { schema: s.schema } : {}),
      ...(s.role ? { role: s.role } : {}),
      parameters: { QUERY_TAG: JSON.stringify(tag), TIMEZONE: 'UTC' },
    });
    return this.send('POST', `/api/v2/statements?requestId=${randomUUID()}`, body, undefined);
  }

  /** Cancels the statement on the warehouse; its answer is not awaited (the query has ended for us). */
  private cancel(handle: string): void {
    this.request('POST', `/api/v2/statements/${handle}/cancel`, '{}', undefined).catch(() => undefined);
  }

  /** One request of the API, tried again while the service says it is busy (a submit with `retry=true`). */
  private async send(
    method: 'POST' | 'GET',
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const retry = attempt > 0 && method === 'POST' ? '&retry=true' : '';
      const { status, text } = await this.request(method, path + retry, body, signal);
      if (status === 200 || status === 202 || status === 422)
        return { status, body: JSON.parse(text) as Answer['body'] };
      if (retryStatuses.has(status) && attempt < retryDelaysMs.length && !signal?.aborted) {
        await sleep(retryDelaysMs[attempt]!, signal);
        continue;
      }
      const code =
        status === 401
          ? 'SNOWFLAKE_LOGIN_REFUSED'
          : status === 403
            ? 'SNOWFLAKE_FORBIDDEN'
            : `HTTP_${status}`;
      throw new SnowflakeHttpError(status, code);
    }
  }

  private request(
    method: string,
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; text: string }> {
    const { token, type } = this.credential();
    return requestText(
      'Snowflake',
      new URL(path, this.base),
      {
        method,
        agent: this.agent,
        headers: {
          Authorization: `Bearer ${token}`,
          'X-Snowflake-Authorization-Token-Type': type,
          Accept: 'application/json',
          // partitions after the first may come gzip-compressed
          'Accept-Encoding': 'gzip',
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

/**
 * The credential each request carries: a key-pair JWT, made again when less than five minutes of
 * its hour remain, or the OAuth token. The key is read once, when the driver opens.
 */
function credentialOf(settings: SnowflakeSettings): () => { token: string; type: 'KEYPAIR_JWT' | 'OAUTH' } {
  if (settings.privateKey) {
    const key = readPrivateKey(settings.privateKey, settings.privateKeyPassphrase);
    let current: { token: string; expires: number } | undefined;
    return () => {
      const now = Math.floor(Date.now() / 1000);
      if (!current || current.expires - now < 300)
        current = {
          token: keyPairJwt(settings.account, settings.user, key, now),
          expires: now + jwtLifetimeSeconds,
        };
      return { token: current.token, type: 'KEYPAIR_JWT' };
    };
  }
  if (settings.oauthToken) {
    const token = settings.oauthToken;
    return () => ({ token, type: 'OAUTH' });
  }
  throw new SnowflakeNoCredentialsError('No private key or OAuth token is saved');
}
