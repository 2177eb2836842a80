import { createHash, createPublicKey, verify } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A stand-in for Snowflake, which cannot run on this machine: an HTTPS server in the test process
 * speaking the SQL API v2 as documented (https://docs.snowflake.com/en/developer-guide/sql-api),
 * with the SQL run on DuckDB.
 *
 * - Every request carries `Authorization: Bearer`: with `X-Snowflake-Authorization-Token-Type:
 *   KEYPAIR_JWT`, an RS256 JWT whose signature `publicKey` verifies, `iss`
 *   `<ACCOUNT>.<USER>.SHA256:<fingerprint of publicKey>`, `sub` `<ACCOUNT>.<USER>`, unexpired;
 *   with `OAUTH`, one of `oauthTokens`. Otherwise 401 with Snowflake's error body.
 * - POST /api/v2/statements starts the statement and answers 202 (QueryStatus); a POST with a
 *   `requestId` already seen (and `retry=true`) answers for that statement without running it
 *   again. After `busyNext()`, the next POST starts its statement but answers 503, as a front
 *   end losing the answer would.
 * - GET /api/v2/statements/{handle}: 202 while running (always once), then 200 with
 *   `resultSetMetaData` (rowType with Snowflake's type names, partitionInfo in partitions of
 *   `partitionSize` rows) and partition 0; `?partition=N` answers `data` only, gzip-compressed.
 *   Values are text as the API sends them: fixed and real as numbers written out, booleans as
 *   `true`/`false`, dates as days since the epoch, timestamps as epoch seconds with nine decimals.
 * - POST /api/v2/statements/{handle}/cancel cancels (the `cancelled` event).
 * - Errors are 422 QueryFailureStatus bodies: DuckDB's parser, binder and catalog errors as SQL
 *   compilation errors (SQLSTATE 42000, 42S02), others as Snowflake's internal error (XX000).
 *   A statement naming `tessera_protocol_sleep` runs until cancelled.
 * - Session: the body's `warehouse` must be one of `warehouses` and `database` be `database`, or a
 *   statement reading a table fails as Snowflake's do (57P03 no warehouse, 02000 no database);
 *   CURRENT_WAREHOUSE(), CURRENT_DATABASE() and CURRENT_SCHEMA() answer the session's, null where
 *   it names none that exists. TIMESTAMP_NTZ is DuckDB's TIMESTAMP (a spelling, CREATE TYPE).
 */
export interface SnowflakeProtocolServer {
  url: string;
  /** `127.0.0.1:<port>`, the data source's `host`. */
  host: string;
  /** Each statement started: its handle, request id, body, headers, the 202s and partitions served. */
  statements: Array<{
    handle: string;
    requestId: string | null;
    sql: string;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
    submits: number;
    retried: boolean;
    busyAnswers: number;
    pendingAnswers: number;
    partitionsServed: number[];
  }>;
  /** Every request's Authorization header (so that a test can look for a key in none of them). */
  authorizations: string[];
  /** `running` (handle) when a sleeping statement started, `cancelled` (handle) on a cancel. */
  events: EventEmitter;
  /** The next statement's POST answers 503 after starting it. */
  busyNext(): void;
  duck: DuckDBConnection;
  close(): Promise<void>;
}

type Column = {
  name: string;
  type: string;
  scale: number | null;
  precision: number | null;
  nullable: boolean;
};
type Result =
  | { columns: Column[]; rows: Array<Array<string | null>> }
  | { failure: { code: string; sqlState: string; message: string } };

function snowflakeType(duckType: string): { type: string; scale: number | null; precision: number | null } {
  if (/^(BIGINT|HUGEINT|UBIGINT|INTEGER|UINTEGER|SMALLINT|USMALLINT|TINYINT)$/.test(duckType))
    return { type: 'fixed', scale: 0, precision: 38 };
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duckType);
  if (decimal) return { type: 'fixed', scale: Number(decimal[2]), precision: Number(decimal[1]) };
  if (/^(DOUBLE|FLOAT)$/.test(duckType)) return { type: 'real', scale: null, precision: null };
  if (duckType === 'BOOLEAN') return { type: 'boolean', scale: null, precision: null };
  if (duckType === 'DATE') return { type: 'date', scale: null, precision: null };
  if (duckType === 'TIMESTAMP') return { type: 'timestamp_ntz', scale: 9, precision: 0 };
  if (duckType === 'TIMESTAMP WITH TIME ZONE') return { type: 'timestamp_ltz', scale: 9, precision: 0 };
  return { type: 'text', scale: null, precision: null };
}

/** `2024-01-02 03:04:05.123456` (read as UTC) as epoch seconds with nine decimals. */
function epochSeconds(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(text)!;
  const whole = Math.floor(Date.parse(`${m[1]}T${m[2]}Z`) / 1000);
  return `${whole}.${(m[3] ?? '').padEnd(9, '0')}`;
}

/** A DuckDB JSON value as the SQL API's text for its Snowflake type. */
function encode(value: unknown, type: string): string | null {
  if (value === null) return null;
  switch (type) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'real':
      return value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
    case 'date':
      return String(Date.parse(`${value}T00:00:00Z`) / 86_400_000);
    case 'timestamp_ntz':
      return epochSeconds(String(value));
    case 'timestamp_ltz':
      return `${Date.parse(String(value).replace(' ', 'T').replace(/\+00$/, 'Z')) / 1000}.000000000`;
    default:
      return String(value);
  }
}

const literal = (v: string | null | undefined) => (v ? `'${v.replace(/'/g, "''")}'` : 'NULL');

function base64urlJson(part: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

export async function startSnowflakeProtocolServer(options: {
  account: string;
  user: string;
  /** The user's RSA_PUBLIC_KEY, PEM. */
  publicKey: string;
  oauthTokens?: string[];
  tls: { key: string; cert: string };
  warehouses: string[];
  database: string;
  partitionSize?: number;
}): Promise<SnowflakeProtocolServer> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  await duck.run('CREATE TYPE TIMESTAMP_NTZ AS TIMESTAMP');
  const publicKey = createPublicKey(options.publicKey);
  const fingerprint = `SHA256:${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
  const subject = `${options.account.split('.')[0]!.toUpperCase()}.${options.user.toUpperCase()}`;
  const statements: SnowflakeProtocolServer['statements'] = [];
  const authorizations: string[] = [];
  const byHandle = new Map<string, { result: Promise<Result>; done?: Result; cancelled: boolean }>();
  const byRequestId = new Map<string, string>();
  const events = new EventEmitter();
  const partitionSize = options.partitionSize ?? 5;
  let busyAnswered = true;
  let count = 0;

  const failure = (code: string, sqlState: string, message: string): Result => ({
    failure: { code, sqlState, message },
  });

  const run = async (sql: string, body: Record<string, unknown>, handle: string): Promise<Result> => {
    const warehouse = options.warehouses.includes(String(body.warehouse)) ? String(body.warehouse) : null;
    const database = body.database === options.database ? options.database : null;
    const schema = database && typeof body.schema === 'string' ? body.schema : null;
    const text = sql
      .replace(/CURRENT_WAREHOUSE\(\)/gi, literal(warehouse))
      .replace(/CURRENT_DATABASE\(\)/gi, literal(database))
      .replace(/CURRENT_SCHEMA\(\)/gi, literal(schema));
    if (/\bFROM\b/i.test(text)) {
      if (!warehouse)
        return failure(
          '000606',
          '57P03',
          "No active warehouse selected in the current session.  Select an active warehouse with the 'use warehouse' command.",
        );
      if (!database)
        return failure(
          '002003',
          '02000',
          `SQL compilation error:\nDatabase '${body.database}' does not exist or not authorized.`,
        );
    }
    if (/tessera_protocol_sleep/.test(text)) {
      events.emit('running', handle);
      return new Promise(() => undefined); // until the cancel
    }
    try {
      const reader = await duck.runAndReadAll(text);
      const types = reader.columnTypes().map((t) => snowflakeType(t.toString()));
      const columns = reader.columnNames().map((name, i) => ({ name, ...types[i]!, nullable: true }));
      const rows = reader.getRowsJson().map((r) => (r as unknown[]).map((v, i) => encode(v, types[i]!.type)));
      return { columns, rows };
    } catch (error) {
      const message = String((error as Error).message).split('\n')[0]!;
      const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1];
      if (kind === 'Parser') return failure('001003', '42000', `SQL compilation error:\n${message}`);
      if (kind === 'Catalog') return failure('002003', '42S02', `SQL compilation error:\n${message}`);
      if (kind === 'Binder') return failure('000904', '42000', `SQL compilation error:\n${message}`);
      return failure('000603', 'XX000', `SQL execution internal error:\n${message}`);
    }
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, gzip = false) => {
    const data = Buffer.from(JSON.stringify(body));
    res.writeHead(status, {
      'Content-Type': 'application/json',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
    res.end(gzip ? gzipSync(data) : data);
  };
  const pending = (handle: string) => ({
    code: '333334',
    message:
      'Asynchronous execution in progress. Use provided query id to perform query monitoring and management.',
    statementHandle: handle,
    statementStatusUrl: `/api/v2/statements/${handle}`,
  });

  /** The login as Snowflake checks it; the reason only for the test's own reading. */
  const authenticated = (req: http.IncomingMessage): boolean => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    authorizations.push(req.headers.authorization ?? '');
    if (!token) return false;
    const type = req.headers['x-snowflake-authorization-token-type'];
    if (type === 'OAUTH') return (options.oauthTokens ?? []).includes(token);
    if (type !== 'KEYPAIR_JWT') return false;
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return false;
    if (base64urlJson(header)?.alg !== 'RS256') return false;
    const ok = verify(
      'RSA-SHA256',
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
    const claims = base64urlJson(payload);
    const now = Date.now() / 1000;
    return (
      ok &&
      claims?.iss === `${subject}.${fingerprint}` &&
      claims.sub === subject &&
      typeof claims.exp === 'number' &&
      claims.exp > now &&
      claims.exp - now <= 3600 &&
      typeof claims.iat === 'number' &&
      claims.iat <= now + 60
    );
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (!authenticated(req)) {
          json(res, 401, { code: '390144', message: 'JWT token is invalid.' });
          return;
        }
        const url = new URL(req.url ?? '/', 'https://snowflake.invalid');
        if (req.method === 'POST' && url.pathname === '/api/v2/statements') {
          const requestId = url.searchParams.get('requestId');
          const seen = requestId ? byRequestId.get(requestId) : undefined;
          if (seen) {
            const statement = statements.find((s) => s.handle === seen)!;
            statement.submits++;
            statement.retried ||= url.searchParams.get('retry') === 'true';
            json(res, 202, pending(seen));
            return;
          }
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          const handle = `01b2c3d4-0000-${String(++count).padStart(4, '0')}-0000-00000000abcd`;
          const sql = String(body.statement);
          const statement = {
            handle,
            requestId,
            sql,
            body,
            headers: req.headers,
            submits: 1,
            retried: false,
            busyAnswers: 0,
            pendingAnswers: 0,
            partitionsServed: [] as number[],
          };
          statements.push(statement);
          if (requestId) byRequestId.set(requestId, handle);
          const entry: { result: Promise<Result>; done?: Result; cancelled: boolean } = {
            result: run(sql, body, handle),
            cancelled: false,
          };
          entry.result.then((r) => {
            entry.done = r;
          });
          byHandle.set(handle, entry);
          if (!busyAnswered) {
            busyAnswered = true;
            statement.busyAnswers++;
            res.writeHead(503, { 'Content-Type': 'text/plain' });
            res.end('Service Unavailable');
            return;
          }
          statement.pendingAnswers++;
          json(res, 202, pending(handle));
          return;
        }
        const m = /^\/api\/v2\/statements\/([^/]+)(\/cancel)?$/.exec(url.pathname);
        const entry = m ? byHandle.get(m[1]!) : undefined;
        if (!m || !entry) {
          json(res, 404, { code: '000709', message: `Statement ${m?.[1]} not found` });
          return;
        }
        const handle = m[1]!;
        const statement = statements.find((s) => s.handle === handle)!;
        if (m[2] && req.method === 'POST') {
          entry.cancelled = true;
          events.emit('cancelled', handle);
          json(res, 200, {
            code: '000604',
            sqlState: '57014',
            message: 'SQL execution canceled',
            statementHandle: handle,
          });
          return;
        }
        if (entry.cancelled) {
          json(res, 422, {
            code: '000604',
            sqlState: '57014',
            message: 'SQL execution canceled',
            statementHandle: handle,
          });
          return;
        }
        // a status poll: 202 until the statement ends, and at least once
        if (!entry.done || statement.pendingAnswers < 2) {
          await Promise.race([entry.result, new Promise((r) => setTimeout(r, 50))]);
          if (!entry.done || statement.pendingAnswers < 2) {
            statement.pendingAnswers++;
            json(res, 202, pending(handle));
            return;
          }
        }
        const result = entry.done;
        if ('failure' in result) {
          json(res, 422, {
            ...result.failure,
            statementHandle: handle,
            statementStatusUrl: `/api/v2/statements/${handle}`,
          });
          return;
        }
        const partitions: Array<Array<Array<string | null>>> = [];
        for (let i = 0; i < result.rows.length; i += partitionSize)
          partitions.push(result.rows.slice(i, i + partitionSize));
        if (partitions.length === 0) partitions.push([]);
        const partition = Number(url.searchParams.get('partition') ?? 0);
        if (!(partition >= 0 && partition < partitions.length)) {
          json(res, 422, {
            code: '000709',
            sqlState: '22023',
            message: `Partition ${partition} out of range`,
          });
          return;
        }
        statement.partitionsServed.push(partition);
        if (partition > 0) {
          json(res, 200, { data: partitions[partition] }, true);
          return;
        }
        json(res, 200, {
          resultSetMetaData: {
            numRows: result.rows.length,
            format: 'jsonv2',
            rowType: result.columns,
            partitionInfo: partitions.map((p) => ({
              rowCount: p.length,
              uncompressedSize: JSON.stringify(p).length,
            })),
          },
          data: partitions[0],
          code: '090001',
          statementStatusUrl: `/api/v2/statements/${handle}`,
          sqlState: '00000',
          statementHandle: handle,
          message: 'Statement executed successfully.',
          createdOn: Date.now(),
        });
      })();
    });
  };

  const server = https.createServer(options.tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    statements,
    authorizations,
    events,
    busyNext: () => {
      busyAnswered = false;
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
