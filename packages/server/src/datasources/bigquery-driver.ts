import { randomUUID } from 'node:crypto';
import https from 'node:https';
import { sleep } from './abortable-sleep.ts';
import { jwtLifetimeSeconds, readServiceAccountKey, selfSignedJwt } from './bigquery-auth.ts';
import { BigQueryApiError, bigqueryFault, retryableReasons } from './bigquery-faults.ts';
import { type BigQueryCell, type BigQueryField, queryParameters, rowOf } from './bigquery-values.ts';
import {
  type Driver,
  engineFault,
  QueryCancelledError,
  type QueryOptions,
  statementTag,
  WarehouseUnavailableError,
} from './driver.ts';
import { requestText } from './http-text.ts';
import { SlotQueue } from './slot-queue.ts';

export interface BigQuerySettings {
  /** The project jobs run in (and are billed to). */
  projectId: string;
  /** Where the dataset is (`US`, `EU`, `europe-west3`); jobs run there. */
  location?: string;
  /** The dataset unqualified table names are read from. */
  dataset?: string;
  /** The service account key JSON, as Google Cloud writes it. */
  credentials?: string;
  /** Another endpoint than https://bigquery.googleapis.com (Private Service Connect), always HTTPS. */
  apiEndpoint?: string;
  /** A PEM certificate authority to trust besides the system's. */
  caCertificate?: string;
  /** A job that would bill more bytes fails instead of running (QueryRequest.maximumBytesBilled). */
  maximumBytesBilled?: number;
  /** Jobs running at once per deployment; more wait for one to finish. */
  max?: number;
  /** How long a connection may take to open, and an answer to come (ms). */
  connectionTimeoutMs?: number;
  deploymentId?: number | null;
}

/** A QueryResponse (jobs.query) or GetQueryResultsResponse (jobs.getQueryResults), as far as read. */
interface QueryAnswer {
  jobReference?: { projectId?: string; jobId?: string; location?: string };
  jobComplete?: boolean;
  schema?: { fields?: BigQueryField[] };
  rows?: Array<{ f?: BigQueryCell[] }>;
  pageToken?: string;
  errors?: Array<{ reason?: string; message?: string }>;
}

export const defaultApiEndpoint = 'https://bigquery.googleapis.com';
/** How long one jobs.query or getQueryResults call may wait on BigQuery for the job to end (ms). */
const waitMs = 2000;
const retryStatuses = new Set([429, 500, 502, 503, 504]);
const retryDelaysMs = [100, 250, 500, 1000, 2000];
/** Between polls that came back at once (BigQuery answered before its `timeoutMs`). */
const pollDelaysMs = [20, 50, 100, 200, 500, 1000];
/**
 * The job's own timeout (QueryRequest.jobTimeoutMs): a backstop should the cancel on the data
 * API's timeout be lost, so that BigQuery does not bill a forgotten job for its six-hour maximum.
 */
const jobTimeoutMs = 3_600_000;
const jobIdPattern = /^[A-Za-z0-9_-]{1,1024}$/;
/** Label values: lowercase letters, digits, `_` and `-`, at most 63 (BigQuery's "Labels" requirements). */
const labelValue = (v: string) =>
  v
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 63);

/**
 * Google BigQuery over its documented REST API v2 (https://cloud.google.com/bigquery/docs/reference/rest),
 * on node:https, as the Snowflake and Trino drivers speak theirs. Not `@google-cloud/bigquery`:
 * its requests go through @google-cloud/common, teeny-request and google-auth-library, which
 * trade a service-account key for an OAuth token at Google's token endpoint (a second host to
 * reach and to stand in for in tests), and whose HTTPS agent takes a private CA only through
 * process-wide settings; the REST API is three calls, and a self-signed JWT (bigquery-auth.ts)
 * is Google's documented login without a token endpoint.
 *
 * A statement is POSTed to jobs.query (`/projects/{p}/queries`) with a `requestId` (a resubmission
 * with the same id returns the first submission's job rather than running another), GoogleSQL
 * (`useLegacySql` false), named parameters `@pN`, the default dataset, the location, labels
 * naming Tessera, the deployment and the execution, `maximumBytesBilled` when set, and a short
 * `timeoutMs`; while `jobComplete` is false, jobs.getQueryResults is polled; further pages come
 * with `pageToken`. Aborting calls jobs.cancel. The submit (same requestId) and the GETs are
 * retried on 429, 5xx and the rateLimitExceeded/backendError reasons; the cancel is not.
 */
export class BigQueryDriver implements Driver {
  readonly dialect = 'bigquery' as const;
  private readonly agent: https.Agent;
  private readonly slots: SlotQueue;
  private readonly base: string;
  private readonly token: () => string;

  constructor(private readonly settings: BigQuerySettings) {
    this.slots = new SlotQueue(settings.max ?? 10);
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: (settings.max ?? 10) + 2,
      ...(settings.caCertificate ? { ca: settings.caCertificate } : {}),
    });
    this.base = (settings.apiEndpoint || defaultApiEndpoint).replace(/\/+$/, '');
    this.token = tokenOf(settings);
  }

  async query(
    sql: string,
    params: readonly unknown[],
    options: QueryOptions = {},
  ): Promise<Record<string, unknown>[]> {
    const { signal } = options;
    if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
    const statement = statementTag(this.settings.deploymentId, options.queryId) + sql;
    const parameters = queryParameters(params);
    await this.slots.acquire(signal);
    let job: { jobId: string; location?: string } | undefined;
    let cancelSent = false;
    // on the abort event once the job is known, else as soon as its reference comes; once
    const onAbort = () => {
      if (!job || cancelSent) return;
      cancelSent = true;
      this.cancel(job);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Not aborted in flight: its answer names the job that a cancel stops.
      let answer = await this.submit(statement, parameters, options.queryId);
      const ref = answer.jobReference;
      if (!ref?.jobId || !jobIdPattern.test(ref.jobId))
        throw new WarehouseUnavailableError('BigQuery sent no usable job reference', 'failed');
      job = { jobId: ref.jobId, ...(ref.location ? { location: ref.location } : {}) };
      for (let poll = 0; !answer.jobComplete; poll++) {
        if (signal?.aborted) break;
        const started = Date.now();
        answer = await this.results(job, undefined, signal);
        // BigQuery waits up to timeoutMs itself; an answer at once is followed by a short pause
        if (!answer.jobComplete && Date.now() - started < waitMs / 2)
          await sleep(pollDelaysMs[Math.min(poll, pollDelaysMs.length - 1)]!, signal);
      }
      if (signal?.aborted) {
        onAbort();
        throw new QueryCancelledError('Query cancelled');
      }
      return await this.rows(answer, job, signal);
    } catch (error) {
      if (signal?.aborted) throw new QueryCancelledError('Query cancelled');
      if (error instanceof WarehouseUnavailableError) throw error;
      const sorted = bigqueryFault(error);
      if (sorted) throw engineFault(error, sorted);
      throw new WarehouseUnavailableError(error, 'failed');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.slots.release();
    }
  }

  /** Every page's rows, converted by the result's schema; the first page came with the answer. */
  private async rows(first: QueryAnswer, job: { jobId: string; location?: string }, signal?: AbortSignal) {
    // a DDL or DML statement's job (a pre-aggregation's CREATE TABLE ... AS) has no result schema
    const fields = first.schema?.fields;
    if (!fields) return [];
    const rows = (first.rows ?? []).map((r) => rowOf(fields, r.f ?? []));
    let pageToken = first.pageToken;
    while (pageToken) {
      const page = await this.results(job, pageToken, signal);
      for (const r of page.rows ?? []) rows.push(rowOf(fields, r.f ?? []));
      pageToken = page.pageToken;
    }
    return rows;
  }

  /**
   * jobs.query. Its `requestId` makes a retry safe (QueryRequest.requestId: "to ensure idempotent
   * behavior for queries"); labels tag the job for BigQuery's job history and billing export.
   */
  private submit(
    query: string,
    parameters: ReturnType<typeof queryParameters>,
    queryId: string | undefined,
  ): Promise<QueryAnswer> {
    const s = this.settings;
    const labels: Record<string, string> = { application: 'tessera' };
    if (Number.isInteger(s.deploymentId)) labels.deployment = labelValue(String(s.deploymentId));
    if (queryId !== undefined && /^[0-9a-f]+$/.test(queryId)) labels.query = labelValue(queryId);
    const body = JSON.stringify({
      query,
      useLegacySql: false,
      parameterMode: 'NAMED',
      queryParameters: parameters,
      requestId: randomUUID(),
      timeoutMs: waitMs,
      jobTimeoutMs: String(jobTimeoutMs),
      labels,
      ...(s.location ? { location: s.location } : {}),
      ...(s.dataset ? { defaultDataset: { projectId: s.projectId, datasetId: s.dataset } } : {}),
      ...(s.maximumBytesBilled ? { maximumBytesBilled: String(s.maximumBytesBilled) } : {}),
    });
    return this.send(
      'POST',
      `/bigquery/v2/projects/${encodeURIComponent(s.projectId)}/queries`,
      body,
      undefined,
    );
  }

  /** jobs.getQueryResults: the job's state, waiting up to `timeoutMs` on BigQuery, or a further page. */
  private results(
    job: { jobId: string; location?: string },
    pageToken: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<QueryAnswer> {
    const query = new URLSearchParams({ timeoutMs: String(waitMs) });
    if (job.location) query.set('location', job.location);
    if (pageToken) query.set('pageToken', pageToken);
    const path = `/bigquery/v2/projects/${encodeURIComponent(this.settings.projectId)}/queries/${job.jobId}?${query}`;
    return this.send('GET', path, undefined, signal);
  }

  /** jobs.cancel; its answer is not awaited (the query has ended for us), and it is not retried. */
  private cancel(job: { jobId: string; location?: string }): void {
    const query = job.location ? `?location=${encodeURIComponent(job.location)}` : '';
    const path = `/bigquery/v2/projects/${encodeURIComponent(this.settings.projectId)}/jobs/${job.jobId}/cancel${query}`;
    this.request('POST', path, '', undefined).catch(() => undefined);
  }

  /** One call of the API, tried again while BigQuery says it is busy or failed on its side. */
  private async send(
    method: 'POST' | 'GET',
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<QueryAnswer> {
    for (let attempt = 0; ; attempt++) {
      const { status, text } = await this.request(method, path, body, signal);
      if (status === 200) return JSON.parse(text) as QueryAnswer;
      const error = apiError(status, text);
      const retryable = retryStatuses.has(status) || retryableReasons.has(error.reason);
      if (retryable && attempt < retryDelaysMs.length && !signal?.aborted) {
        await sleep(retryDelaysMs[attempt]!, signal);
        continue;
      }
      throw error;
    }
  }

  private request(
    method: string,
    path: string,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; text: string }> {
    const token = this.token();
    return requestText(
      'BigQuery',
      new URL(this.base + path),
      {
        method,
        agent: this.agent,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
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

/** An error answer as BigQuery's JSON error body says it (`error.errors[0].reason`, `error.message`). */
function apiError(status: number, text: string): BigQueryApiError {
  let parsed: { error?: { message?: unknown; errors?: Array<{ reason?: unknown; message?: unknown }> } } = {};
  try {
    parsed = JSON.parse(text);
  } catch {}
  const first = parsed.error?.errors?.[0];
  const reason = typeof first?.reason === 'string' ? first.reason : status === 401 ? 'unauthorized' : '';
  const message =
    typeof parsed.error?.message === 'string'
      ? parsed.error.message
      : typeof first?.message === 'string'
        ? first.message
        : `BigQuery answered HTTP ${status}`;
  return new BigQueryApiError(status, reason, message);
}

/**
 * The bearer each request carries: a self-signed JWT, made again when less than five minutes of
 * its hour remain. The key is read once, when the driver opens.
 */
function tokenOf(settings: BigQuerySettings): () => string {
  if (!settings.credentials)
    throw Object.assign(new Error('No service account key is saved'), { code: 'BIGQUERY_NO_CREDENTIALS' });
  const account = readServiceAccountKey(settings.credentials);
  let current: { token: string; expires: number } | undefined;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (!current || current.expires - now < 300)
      current = { token: selfSignedJwt(account, now), expires: now + jwtLifetimeSeconds };
    return current.token;
  };
}
