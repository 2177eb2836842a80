import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Session } from 'chdb';

/**
 * ClickHouse's HTTP interface (https://clickhouse.com/docs/interfaces/http) served by a Node HTTP
 * server in the test process, each statement run by a real ClickHouse: a chdb session (embedded
 * ClickHouse 26.7; Debian's clickhouse-server is from 2018). What the server does itself:
 *
 * - GET /ping answers `Ok.`; GET or POST / runs the `query` parameter followed by the body;
 * - the login comes as X-ClickHouse-User/X-ClickHouse-Key, Basic auth, or `user`/`password`
 *   parameters, checked against `users` (Code 516 AUTHENTICATION_FAILED, HTTP 403, otherwise);
 * - `database` must exist (Code 81 UNKNOWN_DATABASE, HTTP 404), and is the statement's current one;
 * - every other parameter but `query_id`, `default_format` and `param_*` is a setting, applied to
 *   this statement only (SET before it, SET ... = DEFAULT after);
 * - the result comes in the statement's FORMAT clause, else `default_format`, else TabSeparated,
 *   with X-ClickHouse-Query-Id, X-ClickHouse-Format and X-ClickHouse-Timezone headers;
 * - an error is `Code: N. DB::Exception: <message>. (NAME) (version ...)` with the
 *   X-ClickHouse-Exception-Code header and the HTTP status ClickHouse gives that error;
 * - `KILL QUERY WHERE query_id = '...'` ends a running statement with Code 394
 *   QUERY_WAS_CANCELLED (the `killed` event); a client closing the connection of a running
 *   statement sent with cancel_http_readonly_queries_on_client_close=1 ends it too (`closed`);
 * - a statement naming `tessera_protocol_sleep` runs until one of those (the `running` event), one
 *   naming `tessera_protocol_out_of_memory` fails with Code 241 MEMORY_LIMIT_EXCEEDED.
 *
 * Statements reach chdb one at a time (the settings of one must not leak into another).
 */
export interface ClickhouseProtocolServer {
  url: string;
  port: number;
  /** Each statement received: its id, text, parameters and request headers (lower-case names). */
  statements: Array<{
    queryId: string;
    sql: string;
    params: URLSearchParams;
    headers: http.IncomingHttpHeaders;
  }>;
  /** `running` (query id) when a sleeping statement starts, `killed` and `closed` (query id) when it ends. */
  events: EventEmitter;
  /** Runs SQL on the backing chdb session directly (the test's own setup). */
  run(sql: string): Promise<void>;
  /** Copies every table of a DuckDB file into `database`, with ClickHouse types, Nullable columns. */
  loadDuckDbFile(file: string, database: string): Promise<void>;
  close(): Promise<void>;
}

const VERSION = '26.7.2.1';

/** HTTP status per ClickHouse error, as its HTTPHandler maps them (others: 500). */
const statusOf = (name: string): number => {
  if (name === 'REQUIRED_PASSWORD') return 401;
  if (/^(UNKNOWN_USER|WRONG_PASSWORD|AUTHENTICATION_FAILED|IP_ADDRESS_NOT_ALLOWED|ACCESS_DENIED)$/.test(name))
    return 403;
  if (/^(UNKNOWN_(TABLE|FUNCTION|IDENTIFIER|TYPE|DATABASE|SETTING|AGGREGATE_FUNCTION|FORMAT))$/.test(name))
    return 404;
  if (/^(SYNTAX_ERROR|CANNOT_PARSE_\w+|TYPE_MISMATCH|INCORRECT_DATA|TOO_DEEP_AST|TOO_BIG_AST)$/.test(name))
    return 400;
  return 500;
};

class ClickhouseException extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** chdb's `Query failed: Code: 47. DB::Exception: ... (UNKNOWN_IDENTIFIER)` as its parts. */
function exceptionOf(error: unknown): ClickhouseException {
  const text = String((error as Error)?.message ?? error).replace(/^Query failed: /, '');
  const m = /Code: (\d+)\. DB::Exception: (.*?)\.? \(([A-Z0-9_]+)\)/s.exec(text);
  return m
    ? new ClickhouseException(Number(m[1]), m[3]!, m[2]!)
    : new ClickhouseException(1001, 'STD_EXCEPTION', text);
}

const duckToClickhouse: Array<[RegExp, string]> = [
  [/^(BIGINT|HUGEINT)$/, 'Int64'],
  [/^(INTEGER)$/, 'Int32'],
  [/^(SMALLINT)$/, 'Int16'],
  [/^(UBIGINT)$/, 'UInt64'],
  [/^DOUBLE$/, 'Float64'],
  [/^FLOAT$/, 'Float32'],
  [/^BOOLEAN$/, 'Bool'],
  [/^TIMESTAMP$/, "DateTime64(6, 'UTC')"],
  [/^DATE$/, 'Date32'],
];
function clickhouseType(duck: string): string {
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duck);
  if (decimal) return `Decimal(${decimal[1]}, ${decimal[2]})`;
  return duckToClickhouse.find(([p]) => p.test(duck))?.[1] ?? 'String';
}

const reserved = new Set([
  'query',
  'query_id',
  'database',
  'default_format',
  'user',
  'password',
  'session_id',
]);

export async function startClickhouseProtocolServer(options: {
  users: Record<string, string>;
}): Promise<ClickhouseProtocolServer> {
  const { Session } = await import('chdb');
  const session: Session = new Session();
  const statements: ClickhouseProtocolServer['statements'] = [];
  const events = new EventEmitter();
  const sleeping = new Map<string, (error: ClickhouseException) => void>();
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };

  const login = (req: http.IncomingMessage, params: URLSearchParams): [string, string] => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const [name, ...rest] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      return [name!, rest.join(':')];
    }
    const user = req.headers['x-clickhouse-user'] ?? params.get('user') ?? 'default';
    const key = req.headers['x-clickhouse-key'] ?? params.get('password') ?? '';
    return [String(user), String(key)];
  };

  const execute = async (sql: string, params: URLSearchParams, queryId: string, format: string) => {
    if (/tessera_protocol_out_of_memory/.test(sql))
      throw new ClickhouseException(
        241,
        'MEMORY_LIMIT_EXCEEDED',
        'Query memory limit exceeded: would use 9.31 GiB, maximum: 9.31 GiB',
      );
    const kill = /^\s*KILL\s+QUERY\s+WHERE\s+query_id\s*=\s*'([^']*)'(\s+(ASYNC|SYNC))?\s*$/i.exec(sql);
    if (kill) {
      const end = sleeping.get(kill[1]!);
      end?.(new ClickhouseException(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled'));
      if (end) events.emit('killed', kill[1]);
      return end ? `waiting\t${kill[1]}\tdefault\t${sql}\n` : '';
    }
    if (/tessera_protocol_sleep/.test(sql)) {
      events.emit('running', queryId);
      return new Promise<string>((_, reject) => sleeping.set(queryId, reject));
    }
    const settings = [...params.entries()].filter(([k]) => !reserved.has(k) && !k.startsWith('param_'));
    return serial(async () => {
      const database = params.get('database') ?? 'default';
      const quote = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      try {
        session.query(`USE \`${database.replace(/`/g, '')}\``);
        for (const [k, v] of settings) session.query(`SET ${k.replace(/\W/g, '')} = ${quote(v)}`);
        return (await session.queryAsync(sql, { format })).text();
      } finally {
        for (const [k] of settings) session.query(`SET ${k.replace(/\W/g, '')} = DEFAULT`);
        session.query('USE default');
      }
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const params = url.searchParams;
        if (req.method === 'GET' && url.pathname === '/ping') {
          res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' });
          res.end('Ok.\n');
          return;
        }
        const queryId = params.get('query_id') ?? crypto.randomUUID();
        const fail = (e: ClickhouseException) => {
          if (res.headersSent || res.destroyed) return;
          res.writeHead(statusOf(e.type), {
            'Content-Type': 'text/plain; charset=UTF-8',
            'X-ClickHouse-Exception-Code': String(e.code),
            'X-ClickHouse-Query-Id': queryId,
          });
          res.end(
            `Code: ${e.code}. DB::Exception: ${e.message}. (${e.type}) (version ${VERSION} (official build))\n`,
          );
        };
        const body = Buffer.concat(chunks).toString('utf8');
        const sql = [params.get('query'), req.method === 'POST' ? body : null].filter((p) => p).join('\n');
        statements.push({ queryId, sql, params, headers: req.headers });
        const [user, key] = login(req, params);
        if (options.users[user] === undefined || options.users[user] !== key) {
          fail(
            new ClickhouseException(
              516,
              'AUTHENTICATION_FAILED',
              `${user}: Authentication failed: password is incorrect, or there is no user with such name`,
            ),
          );
          return;
        }
        const format =
          /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(sql)?.[1] ?? params.get('default_format') ?? 'TabSeparated';
        res.on('close', () => {
          if (res.writableFinished || params.get('cancel_http_readonly_queries_on_client_close') !== '1')
            return;
          const end = sleeping.get(queryId);
          if (!end) return;
          end(new ClickhouseException(394, 'QUERY_WAS_CANCELLED', 'Query was cancelled'));
          events.emit('closed', queryId);
        });
        try {
          const text = await execute(sql, params, queryId, format);
          res.writeHead(200, {
            'Content-Type': format.startsWith('JSON')
              ? 'application/json; charset=UTF-8'
              : 'text/plain; charset=UTF-8',
            'X-ClickHouse-Query-Id': queryId,
            'X-ClickHouse-Format': format,
            'X-ClickHouse-Timezone': 'UTC',
            'X-ClickHouse-Server-Display-Name': 'tessera-protocol-server',
          });
          res.end(text);
        } catch (error) {
          fail(error instanceof ClickhouseException ? error : exceptionOf(error));
        } finally {
          sleeping.delete(queryId);
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    statements,
    events,
    run: (sql) => serial(async () => void session.query(sql)),
    async loadDuckDbFile(file, database) {
      const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
      const duck = await instance.connect();
      try {
        const tables = await duck.runAndReadAll(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE'",
        );
        await serial(async () => void session.query(`CREATE DATABASE IF NOT EXISTS ${database}`));
        for (const [table] of tables.getRows() as string[][]) {
          const reader = await duck.runAndReadAll(`SELECT * FROM main."${table}"`);
          const columns = reader
            .columnNames()
            .map((name, i) => `"${name}" Nullable(${clickhouseType(reader.columnTypes()[i]!.toString())})`);
          const rows = reader.getRowObjectsJson().map((r) => JSON.stringify(r));
          await serial(async () => {
            session.query(`CREATE TABLE ${database}."${table}" (${columns.join(', ')}) ENGINE = Memory`);
            if (rows.length > 0)
              session.query(`INSERT INTO ${database}."${table}" FORMAT JSONEachRow ${rows.join('\n')}`);
          });
        }
      } finally {
        duck.closeSync();
        instance.closeSync();
      }
    },
    async close() {
      for (const end of sleeping.values())
        end(new ClickhouseException(394, 'QUERY_WAS_CANCELLED', 'Server closing'));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      session.close();
    },
  };
}
