import { EventEmitter } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A stand-in for a Trino coordinator, which cannot run on this machine: a Node HTTP(S) server in
 * the test process speaking Trino's client REST protocol as documented
 * (https://trino.io/docs/current/develop/client-protocol.html), with the SQL run on DuckDB.
 *
 * - POST /v1/statement answers a QUEUED page with a `nextUri`; the first GET of it moves the query
 *   to RUNNING and (once per query, `busyOnce`) answers 503, which the protocol says to retry;
 * - results come in pages of `pageSize` rows, `columns` with Trino type names on each page that
 *   has data, values in Trino's JSON encoding (bigint as numbers, decimals and timestamps as text);
 * - DELETE of a `nextUri` cancels the query (the `cancelled` event);
 * - errors are Trino's error objects: DuckDB's parser, binder and catalog errors as USER_ERROR,
 *   others as INTERNAL_ERROR; a statement naming `tessera_protocol_out_of_memory` fails with
 *   INSUFFICIENT_RESOURCES; one naming `tessera_protocol_sleep` runs until it is cancelled;
 * - X-Trino-User is required, `users` checks Basic credentials (401 otherwise), and a statement
 *   reading a table under another X-Trino-Catalog than `catalog` fails with CATALOG_NOT_FOUND;
 * - Presto's X-Presto-* headers are read where Trino's are absent (Presto's client protocol is
 *   Trino's with that prefix), so the same server stands in for a Presto coordinator.
 */
export interface TrinoProtocolServer {
  url: string;
  port: number;
  /**
   * Each statement received: its text, request headers (lower-case names), the pages with rows
   * it was served and the 503s answered to it.
   */
  statements: Array<{
    id: string;
    sql: string;
    headers: http.IncomingHttpHeaders;
    dataPages: number;
    busyAnswers: number;
  }>;
  /** `running` (id) when a sleeping statement started, `cancelled` (id) on a DELETE. */
  events: EventEmitter;
  /** Runs SQL on the backing DuckDB directly (the test's own setup). */
  duck: DuckDBConnection;
  close(): Promise<void>;
}

interface Query {
  id: string;
  slug: string;
  result: Promise<Result>;
  cancelled: boolean;
  busyAnswered: boolean;
}

type Result =
  | { columns: Array<{ name: string; type: string }>; rows: unknown[][] }
  | { error: { message: string; errorCode: number; errorName: string; errorType: string } };

const trinoTypes: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^(BIGINT|HUGEINT|UBIGINT)$/, () => 'bigint'],
  [/^(INTEGER|UINTEGER|USMALLINT)$/, () => 'integer'],
  [/^SMALLINT$/, () => 'smallint'],
  [/^DOUBLE$/, () => 'double'],
  [/^FLOAT$/, () => 'real'],
  [/^DECIMAL\((\d+),(\d+)\)$/, (m) => `decimal(${m[1]},${m[2]})`],
  [/^VARCHAR$/, () => 'varchar'],
  [/^BOOLEAN$/, () => 'boolean'],
  [/^TIMESTAMP$/, () => 'timestamp(6)'],
  [/^DATE$/, () => 'date'],
];

function trinoType(duckType: string): string {
  for (const [pattern, name] of trinoTypes) {
    const m = duckType.match(pattern);
    if (m) return name(m);
  }
  return 'varchar';
}

/** A DuckDB JSON value in Trino's JSON encoding for its type. */
function encode(value: unknown, type: string): unknown {
  if (value === null) return null;
  if (type === 'bigint' || type === 'integer' || type === 'smallint') return Number(value);
  if (type === 'timestamp(6)') {
    const [date, time = '00:00:00'] = String(value).split(' ');
    const [hms, fraction = ''] = time.split('.');
    return `${date} ${hms}.${fraction.padEnd(6, '0')}`;
  }
  return value;
}

function userError(message: string, errorName = 'GENERIC_USER_ERROR') {
  return { error: { message, errorCode: 1, errorName, errorType: 'USER_ERROR' } };
}

export async function startTrinoProtocolServer(options: {
  catalog: string;
  users?: Record<string, string>;
  tls?: { key: string; cert: string };
  pageSize?: number;
  busyOnce?: boolean;
}): Promise<TrinoProtocolServer> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  const queries = new Map<string, Query>();
  const statements: TrinoProtocolServer['statements'] = [];
  const events = new EventEmitter();
  const pageSize = options.pageSize ?? 5;
  let count = 0;
  let base = '';

  const run = async (sql: string, catalog: string | undefined, id: string): Promise<Result> => {
    if (/tessera_protocol_out_of_memory/.test(sql))
      return {
        error: {
          message: 'Query exceeded distributed user memory limit of 1GB',
          errorCode: 131079,
          errorName: 'EXCEEDED_USER_MEMORY_LIMIT',
          errorType: 'INSUFFICIENT_RESOURCES',
        },
      };
    if (/\bFROM\b/i.test(sql) && catalog !== options.catalog)
      return userError(`line 1:1: Catalog '${catalog}' not found`, 'CATALOG_NOT_FOUND');
    if (/tessera_protocol_sleep/.test(sql)) {
      events.emit('running', id);
      return new Promise(() => undefined); // until the DELETE
    }
    try {
      const reader = await duck.runAndReadAll(sql);
      const types = reader.columnTypes().map((t) => trinoType(t.toString()));
      const columns = reader.columnNames().map((name, i) => ({ name, type: types[i]! }));
      const rows = reader.getRowsJson().map((r) => (r as unknown[]).map((v, i) => encode(v, types[i]!)));
      return { columns, rows };
    } catch (error) {
      const message = String((error as Error).message).split('\n')[0]!;
      const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1];
      if (kind && ['Parser', 'Binder', 'Catalog', 'Conversion', 'Invalid Input'].includes(kind))
        return userError(message, kind === 'Parser' ? 'SYNTAX_ERROR' : 'GENERIC_USER_ERROR');
      return {
        error: {
          message,
          errorCode: 65536,
          errorName: 'GENERIC_INTERNAL_ERROR',
          errorType: 'INTERNAL_ERROR',
        },
      };
    }
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const uri = (q: Query, token: number) => `${base}/v1/statement/executing/${q.id}/${q.slug}/${token}`;

  const page = async (q: Query, token: number) => {
    // a long poll, as the coordinator's: at most 200 ms before answering "still running"
    const result = await Promise.race([
      q.result,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 200)),
    ]);
    // still running: the client asks again for the same rows (the next token would skip them)
    if (!result) return { id: q.id, nextUri: uri(q, token), stats: { state: 'RUNNING' } };
    if ('error' in result) return { id: q.id, error: result.error, stats: { state: 'FAILED' } };
    const rows = result.rows.slice(token * pageSize, (token + 1) * pageSize);
    const more = (token + 1) * pageSize < result.rows.length;
    return {
      id: q.id,
      columns: result.columns,
      ...(rows.length > 0 ? { data: rows } : {}),
      ...(more ? { nextUri: uri(q, token + 1) } : {}),
      stats: { state: more ? 'RUNNING' : 'FINISHED' },
    };
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const user = req.headers['x-trino-user'] ?? req.headers['x-presto-user'];
        if (typeof user !== 'string' || user === '') {
          res.writeHead(400, { 'Content-Type': 'text/plain' });
          res.end('User must be set');
          return;
        }
        if (options.users) {
          const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          const [name, ...rest] = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':') : [];
          if (!name || options.users[name] !== rest.join(':') || name !== user) {
            res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Trino"', 'Content-Type': 'text/plain' });
            res.end('Unauthorized');
            return;
          }
        }
        const path = new URL(req.url ?? '/', base).pathname;
        if (req.method === 'POST' && path === '/v1/statement') {
          const sql = Buffer.concat(chunks).toString('utf8');
          const id = `20261128_000000_${String(++count).padStart(5, '0')}_tessr`;
          statements.push({ id, sql, headers: req.headers, dataPages: 0, busyAnswers: 0 });
          const catalog = (req.headers['x-trino-catalog'] ?? req.headers['x-presto-catalog']) as
            | string
            | undefined;
          let start!: () => void;
          const started = new Promise<void>((resolve) => {
            start = resolve;
          });
          const q: Query = {
            id,
            slug: `y${count}`,
            result: started.then(() => run(sql, catalog, id)),
            cancelled: false,
            busyAnswered: !options.busyOnce,
          };
          (q as Query & { start: () => void }).start = start;
          queries.set(id, q);
          json(res, 200, {
            id,
            infoUri: `${base}/ui/query.html?${id}`,
            nextUri: `${base}/v1/statement/queued/${id}/${q.slug}/1`,
            stats: { state: 'QUEUED', queued: true, scheduled: false },
            warnings: [],
          });
          return;
        }
        const m = /^\/v1\/statement\/(queued|executing)\/([^/]+)\/([^/]+)\/(\d+)$/.exec(path);
        const q = m ? queries.get(m[2]!) : undefined;
        if (!m || !q || q.slug !== m[3]) {
          res.writeHead(404);
          res.end();
          return;
        }
        if (req.method === 'DELETE') {
          q.cancelled = true;
          events.emit('cancelled', q.id);
          res.writeHead(204);
          res.end();
          return;
        }
        if (q.cancelled) {
          json(res, 410, { message: 'Query cancelled' });
          return;
        }
        if (m[1] === 'queued') {
          (q as Query & { start: () => void }).start();
          json(res, 200, { id: q.id, nextUri: uri(q, 0), stats: { state: 'RUNNING' } });
          return;
        }
        const statement = statements.find((st) => st.id === q.id)!;
        if (!q.busyAnswered) {
          q.busyAnswered = true;
          statement.busyAnswers++;
          res.writeHead(503);
          res.end('Service Unavailable');
          return;
        }
        const body = await page(q, Number(m[4]));
        if ('data' in body) statement.dataPages++;
        json(res, 200, body);
      })();
    });
  };

  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    url: base,
    port,
    statements,
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
