import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * A stand-in for a Databricks SQL warehouse, which cannot run on this machine: an HTTPS server in
 * the test process speaking the Statement Execution API 2.0 as documented
 * (docs.databricks.com/api/workspace/statementexecution), with the SQL run on DuckDB.
 *
 * - Every request carries `Authorization: Bearer <token>`, one of `tokens` or one the OAuth
 *   endpoint issued; otherwise 403 "Invalid access token.". POST /oidc/v1/token (client
 *   credentials, the client's id and secret as HTTP Basic, one of `oauthClients`) issues a token.
 * - POST /api/2.0/sql/statements starts the statement on warehouse `warehouse_id` (one of
 *   `warehouses`; otherwise 404 RESOURCE_DOES_NOT_EXIST) and answers when it ends or, at the
 *   latest, after its `wait_timeout` (capped at `maxWaitMs`: the call blocks *up to* that time),
 *   PENDING or RUNNING then. After `holdNext(n)`, the next statement reports PENDING, then RUNNING
 *   for `n` polls, before its result. After `busyNext()`, the next POST answers 429 without
 *   starting anything (the API's rate limit).
 * - GET /api/2.0/sql/statements/{id}: its status, and when SUCCEEDED the manifest (columns with
 *   Databricks' type names, chunks of `chunkSize` rows) and chunk 0; the chunks after it at
 *   GET .../result/chunks/{n}, each linked from the one before by `next_chunk_internal_link`.
 *   Values are JSON_ARRAY text: numbers written out, booleans `true`/`false`, dates
 *   `YYYY-MM-DD`, timestamps ISO 8601 in UTC with a `Z`.
 * - POST /api/2.0/sql/statements/{id}/cancel cancels it (the `cancelled` event); its state is
 *   CANCELED. A statement naming `tessera_protocol_sleep` runs until cancelled.
 * - Failures are FAILED statements whose message starts with a Databricks error class and ends
 *   with its SQLSTATE, also in `status.sql_state`: DuckDB's parser errors as PARSE_SYNTAX_ERROR
 *   (42601), binder errors as UNRESOLVED_COLUMN (42703), catalog errors as TABLE_OR_VIEW_NOT_FOUND
 *   (42P01), a statement naming `tessera_protocol_internal` or any other error as INTERNAL_ERROR
 *   (XX000). A `catalog` other than `catalog` fails as NO_SUCH_CATALOG_EXCEPTION, a `schema`
 *   DuckDB does not have as SCHEMA_NOT_FOUND (42704).
 * - The SQL is read as Databricks reads it and handed to DuckDB: backtick identifiers as double
 *   quoted, string literals' backslash escapes resolved; current_catalog(), current_schema() and
 *   current_timezone() answer the session's (`timezone`, default Etc/UTC); from_utc_timestamp is a
 *   DuckDB macro with the function's documented meaning (the UTC timestamp's wall clock in the zone).
 */
export interface DatabricksProtocolServer {
  /** `127.0.0.1:<port>`, the data source's `host`. */
  host: string;
  statements: Array<{
    id: string;
    sql: string;
    body: Record<string, unknown>;
    headers: http.IncomingHttpHeaders;
    /** Every state the statement was reported in, in order. */
    states: string[];
    chunksServed: number[];
  }>;
  /** Every request's Authorization header (so that a test can look for a secret in none of them). */
  authorizations: string[];
  /** `running` (id) when a sleeping statement started, `cancelled` (id) on a cancel. */
  events: EventEmitter;
  holdNext(polls: number): void;
  busyNext(): void;
  /** Answers 429s to this many POSTs of statements. */
  busyAnswers: number;
  duck: DuckDBConnection;
  close(): Promise<void>;
}

type Column = {
  name: string;
  position: number;
  type_name: string;
  type_text: string;
  type_precision?: number;
  type_scale?: number;
};
type Result =
  | { columns: Column[]; rows: Array<Array<string | null>> }
  | { failure: { message: string; sqlState: string } };

function databricksType(duckType: string): Omit<Column, 'name' | 'position'> {
  const plain = (name: string, text = name) => ({ type_name: name, type_text: text });
  if (duckType === 'BIGINT') return plain('LONG', 'BIGINT');
  if (duckType === 'INTEGER') return plain('INT');
  if (duckType === 'SMALLINT') return plain('SHORT', 'SMALLINT');
  if (duckType === 'TINYINT') return plain('BYTE', 'TINYINT');
  if (/^(HUGEINT|UBIGINT)$/.test(duckType))
    return { type_name: 'DECIMAL', type_text: 'DECIMAL(38,0)', type_precision: 38, type_scale: 0 };
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(duckType);
  if (decimal)
    return {
      type_name: 'DECIMAL',
      type_text: `DECIMAL(${decimal[1]},${decimal[2]})`,
      type_precision: Number(decimal[1]),
      type_scale: Number(decimal[2]),
    };
  if (duckType === 'DOUBLE') return plain('DOUBLE');
  if (duckType === 'FLOAT') return plain('FLOAT');
  if (duckType === 'BOOLEAN') return plain('BOOLEAN');
  if (duckType === 'DATE') return plain('DATE');
  if (duckType === 'TIMESTAMP' || duckType === 'TIMESTAMP WITH TIME ZONE') return plain('TIMESTAMP');
  return plain('STRING');
}

/** `2024-01-02 03:04:05.123456` (UTC) as the API writes a timestamp: `2024-01-02T03:04:05.123Z`. */
function isoTimestamp(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(text)!;
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

function encode(value: unknown, type: string): string | null {
  if (value === null) return null;
  switch (type) {
    case 'BOOLEAN':
      return value ? 'true' : 'false';
    case 'DOUBLE':
    case 'FLOAT':
      return value === Infinity ? 'Infinity' : value === -Infinity ? '-Infinity' : String(value);
    case 'TIMESTAMP':
      return isoTimestamp(String(value));
    default:
      return String(value);
  }
}

/**
 * Databricks SQL text as DuckDB reads it: `` `x` `` as `"x"`, and a string literal's backslash
 * escapes resolved ("STRING type": `\'` a quote, `\\` a backslash, `\<other>` that char) into a
 * standard literal.
 */
export function duckdbText(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === '`') {
      const end = sql.indexOf('`', i + 1);
      out += `"${sql.slice(i + 1, end).replace(/"/g, '""')}"`;
      i = end;
    } else if (c === "'") {
      let text = '';
      let j = i + 1;
      for (; j < sql.length && sql[j] !== "'"; j++) {
        if (sql[j] === '\\') {
          const next = sql[++j]!;
          text +=
            { n: '\n', t: '\t', r: '\r', '0': '\0' }[next] ??
            (next === '%' || next === '_' ? `\\${next}` : next);
        } else text += sql[j];
      }
      out += `'${text.replace(/'/g, "''")}'`;
      i = j;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const j = end < 0 ? sql.length : end;
      out += sql.slice(i, j);
      i = j - 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const j = sql.indexOf('*/', i + 2) + 2;
      out += sql.slice(i, j);
      i = j - 1;
    } else out += c;
  }
  return out;
}

const quoted = (v: string) => `'${v.replace(/'/g, "''")}'`;

export async function startDatabricksProtocolServer(options: {
  tokens: string[];
  oauthClients?: Array<{ id: string; secret: string }>;
  tls: { key: string; cert: string };
  warehouses: string[];
  catalog: string;
  timezone?: string;
  chunkSize?: number;
  maxWaitMs?: number;
}): Promise<DatabricksProtocolServer> {
  const instance = await DuckDBInstance.create(':memory:');
  const duck = await instance.connect();
  await duck.run(
    "CREATE MACRO from_utc_timestamp(ts, tz) AS CAST(timezone(tz, timezone('UTC', CAST(ts AS TIMESTAMP))) AS TIMESTAMP)",
  );
  const accepted = new Set(options.tokens);
  const statements: DatabricksProtocolServer['statements'] = [];
  const authorizations: string[] = [];
  const events = new EventEmitter();
  const chunkSize = options.chunkSize ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 200;
  type Entry = {
    result: Promise<Result>;
    done?: Result;
    cancelled: boolean;
    hold: number;
    statement: DatabricksProtocolServer['statements'][number];
  };
  const byId = new Map<string, Entry>();
  let holdNext = 0;

  const failure = (errorClass: string, message: string, sqlState: string): Result => ({
    failure: { message: `[${errorClass}] ${message} SQLSTATE: ${sqlState}`, sqlState },
  });

  const run = async (sql: string, body: Record<string, unknown>, id: string): Promise<Result> => {
    const catalog = typeof body.catalog === 'string' ? body.catalog : options.catalog;
    if (catalog !== options.catalog)
      return failure(
        'NO_SUCH_CATALOG_EXCEPTION',
        `Catalog '${catalog}' was not found. Please verify the catalog name and then retry the query or command again.`,
        '42704',
      );
    const schema = typeof body.schema === 'string' ? body.schema : 'default';
    const schemas = await duck.runAndReadAll(
      `SELECT 1 FROM information_schema.schemata WHERE schema_name = ${quoted(schema)}`,
    );
    if (schemas.getRows().length === 0)
      return failure(
        'SCHEMA_NOT_FOUND',
        `The schema \`${catalog}\`.\`${schema}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
        '42704',
      );
    const text = duckdbText(sql)
      .replace(/current_catalog\(\)/gi, quoted(catalog))
      .replace(/current_schema\(\)/gi, quoted(schema))
      .replace(/current_timezone\(\)/gi, quoted(options.timezone ?? 'Etc/UTC'));
    if (/tessera_protocol_sleep/.test(text)) {
      events.emit('running', id);
      return new Promise(() => undefined); // until the cancel
    }
    if (/tessera_protocol_internal/.test(text))
      return failure('INTERNAL_ERROR', 'The warehouse failed to run the statement.', 'XX000');
    try {
      await duck.run(`SET schema = ${quoted(schema)}`);
      const reader = await duck.runAndReadAll(text);
      const types = reader.columnTypes().map((t) => databricksType(t.toString()));
      const columns = reader.columnNames().map((name, i) => ({ name, position: i, ...types[i]! }));
      const rows = reader
        .getRowsJson()
        .map((r) => (r as unknown[]).map((v, i) => encode(v, types[i]!.type_name)));
      return { columns, rows };
    } catch (error) {
      const message = String((error as Error).message).split('\n')[0]!;
      const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1];
      if (kind === 'Parser') return failure('PARSE_SYNTAX_ERROR', message, '42601');
      if (kind === 'Binder') return failure('UNRESOLVED_COLUMN.WITH_SUGGESTION', message, '42703');
      if (kind === 'Catalog') return failure('TABLE_OR_VIEW_NOT_FOUND', message, '42P01');
      return failure('INTERNAL_ERROR', message, 'XX000');
    }
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const chunksOf = (rows: Array<Array<string | null>>) => {
    const chunks: Array<Array<Array<string | null>>> = [];
    for (let i = 0; i < rows.length; i += chunkSize) chunks.push(rows.slice(i, i + chunkSize));
    if (chunks.length === 0) chunks.push([]);
    return chunks;
  };
  const chunkData = (id: string, rows: Array<Array<string | null>>, n: number) => {
    const chunks = chunksOf(rows);
    const offset = n * chunkSize;
    return {
      chunk_index: n,
      row_offset: offset,
      row_count: chunks[n]!.length,
      data_array: chunks[n],
      ...(n + 1 < chunks.length
        ? {
            next_chunk_index: n + 1,
            next_chunk_internal_link: `/api/2.0/sql/statements/${id}/result/chunks/${n + 1}?row_offset=${offset + chunkSize}`,
          }
        : {}),
    };
  };

  /** The StatementResponse of a statement now: PENDING/RUNNING, SUCCEEDED with chunk 0, FAILED, CANCELED. */
  const response = (id: string, entry: Entry) => {
    const report = (state: string, extra: Record<string, unknown> = {}) => {
      entry.statement.states.push(state);
      return { statement_id: id, status: { state, ...extra } };
    };
    if (entry.cancelled) return report('CANCELED');
    if (entry.hold > 0) {
      const first = entry.statement.states.length === 0;
      if (!first) entry.hold--;
      return report(first ? 'PENDING' : 'RUNNING');
    }
    const result = entry.done;
    if (!result) return report('RUNNING');
    if ('failure' in result)
      return report('FAILED', {
        sql_state: result.failure.sqlState,
        error: { error_code: 'BAD_REQUEST', message: result.failure.message },
      });
    entry.statement.chunksServed.push(0);
    const chunks = chunksOf(result.rows);
    return {
      ...report('SUCCEEDED'),
      manifest: {
        format: 'JSON_ARRAY',
        schema: { column_count: result.columns.length, columns: result.columns },
        total_chunk_count: chunks.length,
        chunks: chunks.map((c, i) => ({ chunk_index: i, row_offset: i * chunkSize, row_count: c.length })),
        total_row_count: result.rows.length,
        truncated: false,
      },
      result: chunkData(id, result.rows, 0),
    };
  };

  const authenticated = (req: http.IncomingMessage): boolean => {
    authorizations.push(req.headers.authorization ?? '');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return token !== undefined && accepted.has(token);
  };

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'https://databricks.invalid');
        const text = Buffer.concat(chunks).toString('utf8');
        if (req.method === 'POST' && url.pathname === '/oidc/v1/token') {
          authorizations.push(req.headers.authorization ?? '');
          const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          const [id, secret] = Buffer.from(basic ?? '', 'base64')
            .toString('utf8')
            .split(':')
            .map(decodeURIComponent);
          const form = new URLSearchParams(text);
          const known = (options.oauthClients ?? []).some((c) => c.id === id && c.secret === secret);
          if (!known || form.get('grant_type') !== 'client_credentials' || form.get('scope') !== 'all-apis') {
            json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
            return;
          }
          const token = `dapi-oauth-${randomUUID()}`;
          accepted.add(token);
          json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'all-apis' });
          return;
        }
        if (!authenticated(req)) {
          json(res, 403, { error_code: 403, message: 'Invalid access token.' });
          return;
        }
        if (req.method === 'POST' && url.pathname === '/api/2.0/sql/statements') {
          if (server.busyAnswers > 0) {
            server.busyAnswers--;
            json(res, 429, { error_code: 'TOO_MANY_REQUESTS', message: 'Too many requests.' });
            return;
          }
          const body = JSON.parse(text) as Record<string, unknown>;
          if (!options.warehouses.includes(String(body.warehouse_id))) {
            json(res, 404, {
              error_code: 'RESOURCE_DOES_NOT_EXIST',
              message: `SQL warehouse ${String(body.warehouse_id)} does not exist.`,
            });
            return;
          }
          const id = `01ef${randomUUID().slice(4)}`;
          const statement = {
            id,
            sql: String(body.statement),
            body,
            headers: req.headers,
            states: [] as string[],
            chunksServed: [] as number[],
          };
          statements.push(statement);
          const entry: Entry = {
            result: run(statement.sql, body, id),
            cancelled: false,
            hold: holdNext,
            statement,
          };
          holdNext = 0;
          entry.result.then((r) => {
            entry.done = r;
          });
          byId.set(id, entry);
          const wait = Math.min(
            Number(/^(\d+)s$/.exec(String(body.wait_timeout ?? '10s'))?.[1] ?? 10) * 1000,
            maxWaitMs,
          );
          if (entry.hold === 0) await Promise.race([entry.result, new Promise((r) => setTimeout(r, wait))]);
          json(res, 200, response(id, entry));
          return;
        }
        const m = /^\/api\/2\.0\/sql\/statements\/([^/]+)(?:\/(cancel)|\/result\/chunks\/(\d+))?$/.exec(
          url.pathname,
        );
        const entry = m ? byId.get(m[1]!) : undefined;
        if (!m || !entry) {
          json(res, 404, {
            error_code: 'RESOURCE_DOES_NOT_EXIST',
            message: `Statement ${m?.[1]} not found.`,
          });
          return;
        }
        const id = m[1]!;
        if (m[2] === 'cancel' && req.method === 'POST') {
          entry.cancelled = true;
          events.emit('cancelled', id);
          json(res, 200, {});
          return;
        }
        if (m[3] !== undefined && req.method === 'GET') {
          const n = Number(m[3]);
          const result = entry.done;
          if (!result || 'failure' in result || n >= chunksOf(result.rows).length) {
            json(res, 400, {
              error_code: 'INVALID_PARAMETER_VALUE',
              message: `Chunk ${n} is not available.`,
            });
            return;
          }
          entry.statement.chunksServed.push(n);
          json(res, 200, chunkData(id, result.rows, n));
          return;
        }
        if (!entry.done && entry.hold === 0)
          await Promise.race([entry.result, new Promise((r) => setTimeout(r, 50))]);
        json(res, 200, response(id, entry));
      })();
    });
  };

  const httpsServer = https.createServer(options.tls, handler);
  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  const port = (httpsServer.address() as AddressInfo).port;
  const server: DatabricksProtocolServer = {
    host: `127.0.0.1:${port}`,
    statements,
    authorizations,
    events,
    holdNext: (polls) => {
      holdNext = polls;
    },
    busyNext: () => {
      server.busyAnswers++;
    },
    busyAnswers: 0,
    duck,
    async close() {
      httpsServer.closeAllConnections();
      await new Promise<void>((resolve) => httpsServer.close(() => resolve()));
      duck.closeSync();
      instance.closeSync();
    },
  };
  return server;
}
