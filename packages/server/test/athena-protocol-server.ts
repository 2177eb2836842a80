import { createHash, createHmac } from 'node:crypto';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A stand-in for Amazon Athena, which cannot run on this machine: a Node HTTP server in the test
 * process speaking the AWS JSON 1.1 protocol of Athena's API as documented (POST / with
 * `X-Amz-Target: AmazonAthena.<Operation>` and `application/x-amz-json-1.1`; errors as
 * `{"__type", "message"}` with the status AWS answers), with the SQL run on DuckDB.
 *
 * - every request must carry a SigV4 Authorization header: an access key id not in `keys` is
 *   UnrecognizedClientException (403), a signature the key's secret does not reproduce is
 *   InvalidSignatureException (403);
 * - StartQueryExecution queues the query (QUEUED), the first GetQueryExecution after it moves it to
 *   RUNNING and runs it on DuckDB (then SUCCEEDED or FAILED); the same ClientRequestToken starts
 *   no second query; an unknown workgroup, or none with no output location, is
 *   InvalidRequestException; `throttleOnce` answers one GetQueryExecution TooManyRequestsException;
 * - GetQueryResults pages `pageSize` rows, the first page's first row the column names, as Athena
 *   does, every value as text (`VarCharValue`, absent for NULL), with Athena's type names;
 * - StopQueryExecution cancels (the `cancelled` event); a statement naming
 *   `tessera_protocol_sleep` runs until then (the `running` event), one naming
 *   `tessera_protocol_exhausted` fails as "Query exhausted resources at this scale factor";
 * - DuckDB's parser, binder and catalog errors fail the query as a USER error (category 2), others
 *   as a SYSTEM error (category 1).
 */
export interface AthenaProtocolServer {
  url: string;
  /** Each query started: its text, token, context and the result pages read of it. */
  queries: Array<{
    id: string;
    sql: string;
    token: string | undefined;
    workgroup: string;
    catalog: string | undefined;
    database: string | undefined;
    outputLocation: string | undefined;
    pagesRead: number;
  }>;
  /** TooManyRequestsException answers given (`throttleOnce`). */
  readonly throttled: number;
  /** Every request: the operation and its access key id. */
  requests: Array<{ operation: string; accessKeyId: string | undefined }>;
  /** `running` (id) when a sleeping statement started, `cancelled` (id) on StopQueryExecution. */
  events: EventEmitter;
  /** Runs SQL on the backing DuckDB directly (the test's own setup). */
  duck: DuckDBConnection;
  close(): Promise<void>;
}

type State = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

interface Query {
  id: string;
  sql: string;
  state: State;
  submitted: number;
  columns?: Array<{ Name: string; Label: string; Type: string; Precision: number; Scale: number }>;
  rows?: Array<Array<string | null>>;
  error?: { ErrorCategory: number; ErrorType: number; Retryable: boolean; ErrorMessage: string };
  workgroup: string;
  context: { Catalog?: string; Database?: string };
}

const athenaTypes: Array<[RegExp, (m: RegExpMatchArray) => [string, number, number]]> = [
  [/^(BIGINT|HUGEINT|UBIGINT)$/, () => ['bigint', 19, 0]],
  [/^(INTEGER|UINTEGER|USMALLINT)$/, () => ['integer', 10, 0]],
  [/^SMALLINT$/, () => ['smallint', 5, 0]],
  [/^DOUBLE$/, () => ['double', 17, 0]],
  [/^FLOAT$/, () => ['real', 17, 0]],
  [/^DECIMAL\((\d+),(\d+)\)$/, (m) => ['decimal', Number(m[1]), Number(m[2])]],
  [/^VARCHAR$/, () => ['varchar', 2147483647, 0]],
  [/^BOOLEAN$/, () => ['boolean', 0, 0]],
  [/^TIMESTAMP$/, () => ['timestamp', 3, 0]],
  [/^DATE$/, () => ['date', 0, 0]],
];

function athenaType(duckType: string): [string, number, number] {
  for (const [pattern, name] of athenaTypes) {
    const m = duckType.match(pattern);
    if (m) return name(m);
  }
  return ['varchar', 2147483647, 0];
}

/** A DuckDB JSON value as Athena's text for its type (timestamps with milliseconds). */
function text(value: unknown, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (type === 'timestamp') {
    const [date, time = '00:00:00'] = String(value).split(' ');
    const [hms, fraction = ''] = time.split('.');
    return `${date} ${hms}.${fraction.padEnd(3, '0').slice(0, 3)}`;
  }
  return String(value);
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * The signature SigV4 computes for this request with `secret` (AWS's "Create a signed AWS API
 * request"): the canonical request of the signed headers, the string to sign, the derived key.
 */
function signature(
  req: http.IncomingMessage,
  body: Buffer,
  secret: string,
  scope: string,
  signedHeaders: string,
): string {
  const headers = signedHeaders
    .split(';')
    .map(
      (h) =>
        `${h}:${String(req.headers[h] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const url = new URL(req.url ?? '/', 'http://x');
  const canonical = [
    req.method,
    url.pathname,
    url.search.slice(1),
    headers,
    signedHeaders,
    (req.headers['x-amz-content-sha256'] as string | undefined) ?? sha256(body),
  ].join('\n');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const [date, region, service, terminal] = scope.split('/') as [string, string, string, string];
  let key = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, terminal]) key = hmac(key, part);
  return createHmac('sha256', key).update(toSign).digest('hex');
}

class AwsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startAthenaProtocolServer(options: {
  /** Access key id -> secret access key. */
  keys: Record<string, string>;
  /** Workgroup -> its own output location (null: none). */
  workgroups?: Record<string, string | null>;
  pageSize?: number;
  throttleOnce?: boolean;
}): Promise<AthenaProtocolServer> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  const byId = new Map<string, Query>();
  const byToken = new Map<string, string>();
  const queries: AthenaProtocolServer['queries'] = [];
  const requests: AthenaProtocolServer['requests'] = [];
  const events = new EventEmitter();
  const pageSize = options.pageSize ?? 1000;
  const workgroups = options.workgroups ?? { primary: 's3://tessera-results/' };
  let throttle = options.throttleOnce === true;
  let count = 0;
  let throttled = 0;

  const run = async (q: Query) => {
    if (/tessera_protocol_exhausted/.test(q.sql)) {
      q.state = 'FAILED';
      q.error = {
        ErrorCategory: 2,
        ErrorType: 1,
        Retryable: false,
        ErrorMessage: 'Query exhausted resources at this scale factor',
      };
      return;
    }
    if (/tessera_protocol_sleep/.test(q.sql)) {
      events.emit('running', q.id);
      return; // RUNNING until StopQueryExecution
    }
    try {
      const reader = await duck.runAndReadAll(q.sql);
      const types = reader.columnTypes().map((t) => athenaType(t.toString()));
      if ((q.state as State) === 'CANCELLED') return;
      q.columns = reader.columnNames().map((name, i) => ({
        Name: name,
        Label: name,
        Type: types[i]![0],
        Precision: types[i]![1],
        Scale: types[i]![2],
      }));
      q.rows = reader.getRowsJson().map((r) => (r as unknown[]).map((v, i) => text(v, types[i]![0])));
      q.state = 'SUCCEEDED';
    } catch (error) {
      const message = String((error as Error).message).split('\n')[0]!;
      const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1];
      const user = kind !== undefined && ['Parser', 'Binder', 'Catalog', 'Conversion'].includes(kind);
      q.state = 'FAILED';
      q.error = user
        ? { ErrorCategory: 2, ErrorType: 1006, Retryable: false, ErrorMessage: message }
        : { ErrorCategory: 1, ErrorType: 200, Retryable: false, ErrorMessage: message };
    }
  };

  const execution = (q: Query) => ({
    QueryExecutionId: q.id,
    Query: q.sql,
    StatementType: 'DML',
    QueryExecutionContext: q.context,
    WorkGroup: q.workgroup,
    Status: {
      State: q.state,
      SubmissionDateTime: q.submitted / 1000,
      ...(q.error ? { StateChangeReason: q.error.ErrorMessage, AthenaError: q.error } : {}),
    },
    EngineVersion: { SelectedEngineVersion: 'AUTO', EffectiveEngineVersion: 'Athena engine version 3' },
  });

  const operations: Record<string, (input: Record<string, unknown>) => Promise<unknown> | unknown> = {
    StartQueryExecution(input) {
      const token = input.ClientRequestToken as string | undefined;
      if (token && byToken.has(token)) return { QueryExecutionId: byToken.get(token) };
      const workgroup = (input.WorkGroup as string | undefined) ?? 'primary';
      if (!(workgroup in workgroups))
        throw new AwsError(400, 'InvalidRequestException', `WorkGroup ${workgroup} is not found.`);
      const output = (input.ResultConfiguration as { OutputLocation?: string } | undefined)?.OutputLocation;
      if (!output && !workgroups[workgroup])
        throw new AwsError(
          400,
          'InvalidRequestException',
          'No output location provided. An output location is required either through the Workgroup result configuration setting or as an API input.',
        );
      const id = `6f1c7a52-0000-4000-8000-${String(++count).padStart(12, '0')}`;
      const context = (input.QueryExecutionContext ?? {}) as Query['context'];
      const q: Query = {
        id,
        sql: String(input.QueryString),
        state: 'QUEUED',
        submitted: Date.now(),
        workgroup,
        context,
      };
      byId.set(id, q);
      if (token) byToken.set(token, id);
      queries.push({
        id,
        sql: q.sql,
        token,
        workgroup,
        catalog: context.Catalog,
        database: context.Database,
        outputLocation: output,
        pagesRead: 0,
      });
      return { QueryExecutionId: id };
    },
    async GetQueryExecution(input) {
      const q = find(input);
      if (throttle) {
        throttle = false;
        throttled++;
        throw new AwsError(400, 'TooManyRequestsException', 'Rate exceeded');
      }
      if (q.state === 'QUEUED') {
        q.state = 'RUNNING';
        void run(q);
      }
      return { QueryExecution: execution(q) };
    },
    GetQueryResults(input) {
      const q = find(input);
      if (q.state !== 'SUCCEEDED')
        throw new AwsError(
          400,
          'InvalidRequestException',
          `Query has not yet finished. Current state: ${q.state}`,
        );
      const all = [q.columns!.map((c) => c.Name), ...q.rows!];
      const from = input.NextToken ? Number(input.NextToken) : 0;
      const size = Math.min(Number(input.MaxResults ?? 1000), pageSize);
      const to = from + size;
      const stats = queries.find((s) => s.id === q.id)!;
      stats.pagesRead++;
      return {
        ResultSet: {
          Rows: all.slice(from, to).map((row) => ({
            Data: row.map((v) => (v === null ? {} : { VarCharValue: v })),
          })),
          ResultSetMetadata: {
            ColumnInfo: q.columns!.map((c) => ({
              CatalogName: 'hive',
              SchemaName: '',
              TableName: '',
              Nullable: 'UNKNOWN',
              CaseSensitive: c.Type === 'varchar',
              ...c,
            })),
          },
        },
        ...(to < all.length ? { NextToken: String(to) } : {}),
        UpdateCount: 0,
      };
    },
    StopQueryExecution(input) {
      const q = find(input);
      if (q.state === 'QUEUED' || q.state === 'RUNNING') {
        q.state = 'CANCELLED';
        events.emit('cancelled', q.id);
      }
      return {};
    },
  };

  const find = (input: Record<string, unknown>): Query => {
    const q = byId.get(String(input.QueryExecutionId));
    if (!q)
      throw new AwsError(
        400,
        'InvalidRequestException',
        `QueryExecution ${input.QueryExecutionId} was not found`,
      );
    return q;
  };

  /** Checks the SigV4 Authorization header against the keys; throws the error AWS answers. */
  const authenticate = (req: http.IncomingMessage, body: Buffer): string => {
    const auth = req.headers.authorization ?? '';
    const m =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(
        auth,
      );
    if (!m) throw new AwsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const [, keyId, scope, signedHeaders, given] = m as unknown as [string, string, string, string, string];
    const secret = options.keys[keyId];
    if (secret === undefined)
      throw new AwsError(
        403,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      );
    if (signature(req, body, secret, scope, signedHeaders) !== given)
      throw new AwsError(
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      );
    return keyId;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const target = String(req.headers['x-amz-target'] ?? '');
        const operation = target.replace(/^AmazonAthena\./, '');
        const send = (status: number, payload: unknown) => {
          res.writeHead(status, {
            'Content-Type': 'application/x-amz-json-1.1',
            'x-amzn-RequestId': `req-${requests.length}`,
          });
          res.end(JSON.stringify(payload));
        };
        let keyId: string | undefined;
        try {
          keyId = /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
          requests.push({ operation, accessKeyId: keyId });
          if (req.method !== 'POST' || !target.startsWith('AmazonAthena.'))
            throw new AwsError(400, 'UnknownOperationException', `Unknown operation ${target}`);
          authenticate(req, body);
          const handler = operations[operation];
          if (!handler)
            throw new AwsError(400, 'UnknownOperationException', `Unknown operation ${operation}`);
          send(200, await handler(JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>));
        } catch (error) {
          if (error instanceof AwsError) send(error.status, { __type: error.type, message: error.message });
          else send(500, { __type: 'InternalServerException', message: String((error as Error).message) });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    get throttled() {
      return throttled;
    },
    requests,
    events,
    duck,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      duck.closeSync();
      instance.closeSync();
    },
  };
}
