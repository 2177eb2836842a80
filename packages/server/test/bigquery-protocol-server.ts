import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A stand-in for Google BigQuery, which cannot run on this machine: an HTTPS server in the test
 * process speaking the REST API v2 as documented (https://cloud.google.com/bigquery/docs/reference/rest:
 * jobs.query, jobs.getQueryResults, jobs.cancel; errors as `{"error": {code, message, errors:
 * [{reason, message}], status}}`), with the SQL run on DuckDB.
 *
 * - Every request carries `Authorization: Bearer` and a self-signed JWT (RS256) whose `kid` is a
 *   key of `accounts`, verified by that key's public key, `iss` = `sub` = the account's email,
 *   `aud` https://bigquery.googleapis.com/, unexpired and within the hour; else 401 as Google's
 *   front end answers it (reason authError, status UNAUTHENTICATED).
 * - An account without `jobUser` may not create jobs: 403 accessDenied. A project other than
 *   `projectId` is 404 notFound; a default dataset other than `dataset` is 404 notFound when the
 *   statement reads a table (FROM).
 * - POST /bigquery/v2/projects/{p}/queries starts the job and answers `jobComplete: false`; a
 *   POST with a `requestId` already seen answers for that job without starting another. After
 *   `busyNext()`, the next POST starts its job but answers 503 backendError (or 403
 *   rateLimitExceeded), as a front end losing the answer would.
 * - GET /bigquery/v2/projects/{p}/queries/{jobId}: `jobComplete: false` at least once, then the
 *   schema (BigQuery's type names), the first page of `pageSize` rows and a `pageToken` while
 *   more remain; `?pageToken=` answers that page. Values are text, as the API sends them:
 *   TIMESTAMPs as epoch seconds in a float's scientific notation (`1.7040672E9`).
 * - POST /bigquery/v2/projects/{p}/jobs/{jobId}/cancel cancels (the `cancelled` event).
 * - A failed job answers 400: DuckDB's parser errors as invalidQuery ("Syntax error: ..."),
 *   catalog errors as notFound (404), others as invalidQuery. A statement naming
 *   `tessera_protocol_sleep` runs until cancelled (the `running` event); one naming
 *   `tessera_protocol_exhausted` fails as resourcesExceeded; one naming `tessera_protocol_nap`
 *   runs 300 ms before DuckDB answers it.
 * - GoogleSQL run on DuckDB: backtick identifiers become double-quoted, `@pN` the named
 *   parameter's value as a literal of its type, a date part after a comma (`DATETIME_TRUNC(x,
 *   MONTH)`) a string; DATETIME, DATETIME_TRUNC, DATETIME_DIFF and DATETIME_ADD are DuckDB macros
 *   of the same meaning (DuckDB's own INT64, STRING, DATETIME and `INTERVAL n DAY` are BigQuery's).
 */
export interface BigQueryProtocolServer {
  url: string;
  /** Each job started: its id, request id, body, headers, and what was answered of it. */
  jobs: Array<{
    jobId: string;
    requestId: string | null;
    sql: string;
    body: Record<string, unknown>;
    submits: number;
    busyAnswers: number;
    pendingAnswers: number;
    pagesServed: number[];
  }>;
  /** Every request's Authorization header (so that a test can look for a key in none of them). */
  authorizations: string[];
  /** `running` (jobId) when a sleeping statement started, `cancelled` (jobId) on a cancel. */
  events: EventEmitter;
  /** The most jobs unfinished at once since the last `resetPeak()`. */
  peakRunning(): number;
  resetPeak(): void;
  /** The next POST starts its job but answers 503 backendError, or 403 rateLimitExceeded. */
  busyNext(reason?: 'backendError' | 'rateLimitExceeded'): void;
  duck: DuckDBConnection;
  close(): Promise<void>;
}

type Field = { name: string; type: string; mode: 'NULLABLE' };
type Failure = { status: number; reason: string; message: string };
type Result = { fields: Field[]; rows: Array<Array<string | null>> } | { failure: Failure };

function bigQueryType(duckType: string): string {
  if (/^(BIGINT|HUGEINT|UBIGINT|INTEGER|UINTEGER|SMALLINT|USMALLINT|TINYINT|UTINYINT)$/.test(duckType))
    return 'INTEGER';
  if (/^DECIMAL/.test(duckType)) return 'NUMERIC';
  if (/^(DOUBLE|FLOAT)$/.test(duckType)) return 'FLOAT';
  if (duckType === 'BOOLEAN') return 'BOOLEAN';
  if (duckType === 'DATE') return 'DATE';
  if (/^TIMESTAMP/.test(duckType)) return 'TIMESTAMP';
  return 'STRING';
}

/**
 * `2024-01-02 03:04:05.123456` (read as UTC) as BigQuery writes a TIMESTAMP in JSON: epoch seconds
 * in scientific notation, its digits exact (`1.704164645123456E9`).
 */
function epochSeconds(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(text)!;
  const whole = BigInt(Math.floor(Date.parse(`${m[1]}T${m[2]}Z`) / 1000));
  const micros = whole * 1_000_000n + BigInt((m[3] ?? '').padEnd(6, '0').slice(0, 6));
  const negative = micros < 0n;
  const digits = (negative ? -micros : micros).toString().padStart(7, '0');
  const intDigits = digits.length - 6; // digits before the decimal point
  const all = digits.replace(/^0+(?=\d)/, '');
  const exponent = intDigits - 1 - (digits.length - all.length);
  const mantissa = `${all[0]}.${all.slice(1).replace(/0+$/, '') || '0'}`;
  return `${negative ? '-' : ''}${mantissa}E${exponent}`;
}

function encode(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'BOOLEAN') return value ? 'true' : 'false';
  if (type === 'TIMESTAMP') return epochSeconds(String(value).replace(/\+00(:00)?$/, ''));
  return String(value);
}

const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

/** A named parameter's value as a DuckDB literal of its BigQuery type. */
function parameterLiteral(p: { parameterType?: { type?: string }; parameterValue?: { value?: string } }) {
  const value = p.parameterValue?.value;
  if (value === undefined || value === null) return 'NULL';
  switch (p.parameterType?.type) {
    case 'INT64':
    case 'FLOAT64':
    case 'NUMERIC':
      if (!/^-?[0-9.eE+-]+$/.test(value)) throw new Error('bad number parameter');
      return value;
    case 'BOOL':
      return value === 'true' ? 'TRUE' : 'FALSE';
    case 'TIMESTAMP':
      return `TIMESTAMP ${quote(value)}`;
    default:
      return quote(value);
  }
}

/**
 * GoogleSQL lexically turned into DuckDB's: backticks to double quotes, `@name` to the
 * parameter's literal; string literals (with BigQuery's backslash escapes) kept as they are.
 */
function toDuckDb(sql: string, parameters: Map<string, string>): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'") {
      let j = i + 1;
      while (j < sql.length && sql[j] !== "'") j += sql[j] === '\\' ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j;
    } else if (c === '`') {
      let name = '';
      let j = i + 1;
      for (; j < sql.length && sql[j] !== '`'; j++) {
        if (sql[j] === '\\') j++;
        name += sql[j];
      }
      out += `"${name.replace(/"/g, '""')}"`;
      i = j;
    } else if (c === '@') {
      const m = /^@(\w+)/.exec(sql.slice(i))!;
      const value = parameters.get(m[1]!);
      if (value === undefined)
        throw Object.assign(new Error(`Query parameter '${m[1]}' not found`), { param: true });
      out += value;
      i += m[0].length - 1;
    } else out += c;
  }
  return out.replace(
    /,\s*(MICROSECOND|MILLISECOND|SECOND|MINUTE|HOUR|DAY|ISOWEEK|WEEK|MONTH|QUARTER|YEAR)\s*\)/g,
    ", '$1')",
  );
}

function base64urlJson(part: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

export async function startBigQueryProtocolServer(options: {
  projectId: string;
  dataset: string;
  location?: string;
  /** Service accounts BigQuery knows, by private_key_id; `jobUser` may create jobs in the project. */
  accounts: Array<{ keyId: string; email: string; publicKey: string; jobUser: boolean }>;
  tls: { key: string; cert: string };
  pageSize?: number;
}): Promise<BigQueryProtocolServer> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  await duck.run('CREATE TYPE FLOAT64 AS DOUBLE');
  await duck.run(
    "CREATE MACRO DATETIME(x) AS CAST(x AS TIMESTAMP), (x, tz) AS timezone(tz, timezone('UTC', CAST(x AS TIMESTAMP)))",
  );
  await duck.run(
    "CREATE MACRO DATETIME_TRUNC(x, part) AS date_trunc(CASE part WHEN 'ISOWEEK' THEN 'week' ELSE lower(part) END, x)",
  );
  await duck.run('CREATE MACRO DATETIME_DIFF(a, b, part) AS date_diff(lower(part), b, a)');
  await duck.run('CREATE MACRO DATETIME_ADD(x, i) AS x + i');
  const keys = new Map<string, { email: string; key: KeyObject; jobUser: boolean }>(
    options.accounts.map((a) => [
      a.keyId,
      { email: a.email, key: createPublicKey(a.publicKey), jobUser: a.jobUser },
    ]),
  );
  const location = options.location ?? 'US';
  const jobs: BigQueryProtocolServer['jobs'] = [];
  const authorizations: string[] = [];
  const byJob = new Map<string, { result: Promise<Result>; done?: Result; cancelled: boolean }>();
  const byRequestId = new Map<string, string>();
  const events = new EventEmitter();
  const pageSize = options.pageSize ?? 5;
  let busyAnswered = true;
  let busyReason: 'backendError' | 'rateLimitExceeded' = 'backendError';
  let count = 0;
  let running = 0;
  let peak = 0;

  const failure = (status: number, reason: string, message: string): Result => ({
    failure: { status, reason, message },
  });

  const run = async (sql: string, body: Record<string, unknown>, jobId: string): Promise<Result> => {
    const dataset = (body.defaultDataset as { datasetId?: string } | undefined)?.datasetId;
    if (/\bFROM\b/i.test(sql)) {
      if (dataset === undefined && /\bFROM\s+INFORMATION_SCHEMA\b/i.test(sql))
        return failure(
          400,
          'invalid',
          'Table name "INFORMATION_SCHEMA.TABLES" missing dataset while no default dataset is set in the request.',
        );
      if (dataset !== undefined && dataset !== options.dataset)
        return failure(
          404,
          'notFound',
          `Not found: Dataset ${options.projectId}:${dataset} was not found in location ${location}`,
        );
    }
    if (/tessera_protocol_sleep/.test(sql)) {
      events.emit('running', jobId);
      return new Promise(() => undefined); // until the cancel
    }
    if (/tessera_protocol_nap/.test(sql)) await new Promise((r) => setTimeout(r, 300));
    if (/tessera_protocol_exhausted/.test(sql))
      return failure(
        400,
        'resourcesExceeded',
        'Resources exceeded during query execution: The query could not be executed in the allotted memory.',
      );
    let text: string;
    try {
      const parameters = new Map<string, string>();
      for (const p of (body.queryParameters ?? []) as Array<Record<string, unknown>>)
        parameters.set(String(p.name), parameterLiteral(p));
      text = toDuckDb(sql, parameters);
    } catch (error) {
      return failure(400, 'invalidQuery', (error as Error).message);
    }
    try {
      const reader = await duck.runAndReadAll(text);
      const types = reader.columnTypes().map((t) => bigQueryType(t.toString()));
      const fields = reader
        .columnNames()
        .map((name, i) => ({ name, type: types[i]!, mode: 'NULLABLE' as const }));
      const rows = reader.getRowsJson().map((r) => (r as unknown[]).map((v, i) => encode(v, types[i]!)));
      return { fields, rows };
    } catch (error) {
      const message = String((error as Error).message).split('\n')[0]!;
      const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1];
      if (kind === 'Parser') return failure(400, 'invalidQuery', `Syntax error: ${message}`);
      if (kind === 'Catalog') return failure(404, 'notFound', `Not found: ${message}`);
      return failure(400, 'invalidQuery', message);
    }
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const error = (res: http.ServerResponse, f: Failure) =>
    json(res, f.status, {
      error: {
        code: f.status,
        message: f.message,
        errors: [{ message: f.message, domain: 'global', reason: f.reason }],
        status:
          f.status === 404
            ? 'NOT_FOUND'
            : f.status === 403
              ? 'PERMISSION_DENIED'
              : f.status >= 500
                ? 'UNAVAILABLE'
                : 'INVALID_ARGUMENT',
      },
    });
  const reference = (jobId: string) => ({ projectId: options.projectId, jobId, location });

  /** The caller as Google's front end verifies a self-signed JWT; null: 401. */
  const caller = (req: http.IncomingMessage) => {
    authorizations.push(req.headers.authorization ?? '');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [header, payload, signature] = token?.split('.') ?? [];
    if (!header || !payload || !signature) return null;
    const h = base64urlJson(header);
    const account = typeof h?.kid === 'string' ? keys.get(h.kid) : undefined;
    if (h?.alg !== 'RS256' || !account) return null;
    const ok = verify(
      'RSA-SHA256',
      Buffer.from(`${header}.${payload}`),
      account.key,
      Buffer.from(signature, 'base64url'),
    );
    const claims = base64urlJson(payload);
    const now = Date.now() / 1000;
    const valid =
      ok &&
      claims?.iss === account.email &&
      claims.sub === account.email &&
      claims.aud === 'https://bigquery.googleapis.com/' &&
      typeof claims.exp === 'number' &&
      claims.exp > now &&
      typeof claims.iat === 'number' &&
      claims.exp - claims.iat <= 3600 &&
      claims.iat <= now + 60;
    return valid ? account : null;
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const account = caller(req);
        if (!account) {
          json(res, 401, {
            error: {
              code: 401,
              message:
                'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
              errors: [{ message: 'Invalid Credentials', domain: 'global', reason: 'authError' }],
              status: 'UNAUTHENTICATED',
            },
          });
          return;
        }
        const url = new URL(req.url ?? '/', 'https://bigquery.invalid');
        const m = /^\/bigquery\/v2\/projects\/([^/]+)\/(queries|jobs)(?:\/([^/]+))?(\/cancel)?$/.exec(
          url.pathname,
        );
        if (!m) {
          json(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
          return;
        }
        const project = decodeURIComponent(m[1]!);
        if (project !== options.projectId) {
          error(res, { status: 404, reason: 'notFound', message: `Not found: Project ${project}` });
          return;
        }
        if (!account.jobUser) {
          error(res, {
            status: 403,
            reason: 'accessDenied',
            message: `Access Denied: Project ${project}: User does not have bigquery.jobs.create permission in project ${project}.`,
          });
          return;
        }
        if (req.method === 'POST' && m[2] === 'queries' && !m[3]) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          const requestId = typeof body.requestId === 'string' ? body.requestId : null;
          const seen = requestId ? byRequestId.get(requestId) : undefined;
          if (seen) {
            jobs.find((j) => j.jobId === seen)!.submits++;
            json(res, 200, {
              kind: 'bigquery#queryResponse',
              jobReference: reference(seen),
              jobComplete: false,
            });
            return;
          }
          const jobId = `job_tessera${String(++count).padStart(4, '0')}`;
          const sql = String(body.query);
          const job = {
            jobId,
            requestId,
            sql,
            body,
            submits: 1,
            busyAnswers: 0,
            pendingAnswers: 0,
            pagesServed: [] as number[],
          };
          jobs.push(job);
          if (requestId) byRequestId.set(requestId, jobId);
          const entry: { result: Promise<Result>; done?: Result; cancelled: boolean } = {
            result: run(sql, body, jobId),
            cancelled: false,
          };
          running++;
          peak = Math.max(peak, running);
          entry.result.then((r) => {
            entry.done = r;
            if (!entry.cancelled) running--;
          });
          byJob.set(jobId, entry);
          if (!busyAnswered) {
            busyAnswered = true;
            job.busyAnswers++;
            error(
              res,
              busyReason === 'backendError'
                ? {
                    status: 503,
                    reason: 'backendError',
                    message: 'Error encountered during execution. Retrying may solve the problem.',
                  }
                : {
                    status: 403,
                    reason: 'rateLimitExceeded',
                    message:
                      'Exceeded rate limits: too many api requests per user per method for this user_method.',
                  },
            );
            return;
          }
          job.pendingAnswers++;
          json(res, 200, {
            kind: 'bigquery#queryResponse',
            jobReference: reference(jobId),
            jobComplete: false,
          });
          return;
        }
        const jobId = m[3];
        const entry = jobId ? byJob.get(jobId) : undefined;
        const job = jobs.find((j) => j.jobId === jobId);
        if (!jobId || !entry || !job) {
          error(res, {
            status: 404,
            reason: 'notFound',
            message: `Not found: Job ${project}:${location}.${jobId}`,
          });
          return;
        }
        if (req.method === 'POST' && m[2] === 'jobs' && m[4]) {
          // a cancelled job ends (a sleeping one would run forever here)
          if (!entry.done && !entry.cancelled) running--;
          entry.cancelled = true;
          events.emit('cancelled', jobId);
          json(res, 200, {
            kind: 'bigquery#jobCancelResponse',
            job: { jobReference: reference(jobId), status: { state: 'DONE' } },
          });
          return;
        }
        if (!(req.method === 'GET' && m[2] === 'queries')) {
          json(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
          return;
        }
        if (entry.cancelled) {
          error(res, {
            status: 400,
            reason: 'stopped',
            message: 'Job execution was cancelled: User requested cancellation',
          });
          return;
        }
        // a poll: jobComplete false until the job ends, and at least once after the submit's
        if (!entry.done || job.pendingAnswers < 2) {
          const wait = Math.min(Number(url.searchParams.get('timeoutMs') ?? 10_000), 50);
          await Promise.race([entry.result, new Promise((r) => setTimeout(r, wait))]);
          if (!entry.done || job.pendingAnswers < 2) {
            job.pendingAnswers++;
            json(res, 200, {
              kind: 'bigquery#getQueryResultsResponse',
              jobReference: reference(jobId),
              jobComplete: false,
            });
            return;
          }
        }
        const result = entry.done;
        if ('failure' in result) {
          error(res, result.failure);
          return;
        }
        const token = url.searchParams.get('pageToken');
        const page = token ? Number(/^page-(\d+)$/.exec(token)?.[1] ?? Number.NaN) : 0;
        const pages = Math.max(1, Math.ceil(result.rows.length / pageSize));
        if (!(page >= 0 && page < pages)) {
          error(res, { status: 400, reason: 'invalid', message: `Invalid page token ${token}` });
          return;
        }
        job.pagesServed.push(page);
        json(res, 200, {
          kind: 'bigquery#getQueryResultsResponse',
          jobReference: reference(jobId),
          jobComplete: true,
          schema: { fields: result.fields },
          totalRows: String(result.rows.length),
          rows: result.rows
            .slice(page * pageSize, (page + 1) * pageSize)
            .map((r) => ({ f: r.map((v) => ({ v })) })),
          ...(page + 1 < pages ? { pageToken: `page-${page + 1}` } : {}),
          cacheHit: false,
        });
      })();
    });
  };

  const server = https.createServer(options.tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    jobs,
    authorizations,
    events,
    busyNext: (reason = 'backendError') => {
      busyAnswered = false;
      busyReason = reason;
    },
    peakRunning: () => peak,
    resetPeak: () => {
      peak = running;
    },
    duck,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      duck.closeSync();
      instance.closeSync();
    },
  };
}
