import { DataApiError } from '../errors.ts';
import { readLines } from '../ndjson.ts';
import type { RetryOptions } from '../retry.ts';
import { createTransport, type TokenSource } from '../transport.ts';
import type { CubeQuery, CubeSqlEvent, LoadMultiResult, LoadResult, MetaResult } from './types.ts';

export interface DataApiOptions {
  /** The server, e.g. `https://analytics.example.com`. */
  baseUrl: string;
  deploymentId: number | string;
  /**
   * A data-API token (`POST /api/v1/deployments/{id}/token`), sent bare in `Authorization`
   * (spec section 5), or a function returning a fresh one.
   */
  token: TokenSource;
  /** The deployment's base path; default `/cubejs-api`. */
  basePath?: string;
  /** Retries of 429 and 503. The data API only reads, so its POSTs are retried too. */
  retry?: RetryOptions | false;
  fetch?: (request: Request) => Promise<Response>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface DataApi {
  /** Runs a Cube query, repeating it while the server answers "Continue wait". */
  load(query: CubeQuery | CubeQuery[], options?: CallOptions): Promise<LoadResult>;
  load(
    query: CubeQuery | CubeQuery[],
    options: CallOptions & { queryType: 'multi' },
  ): Promise<LoadMultiResult>;
  /** The cubes and views this token may see; `extended` adds member SQL and joins. */
  meta(options?: CallOptions & { extended?: boolean }): Promise<MetaResult>;
  /**
   * Runs SQL-API text and reads the NDJSON answer as it arrives: the `schema` first, then each row.
   * An `{"error"}` line after the stream started throws a DataApiError with `midStream`.
   */
  cubesql(sql: string, options?: CallOptions & { timezone?: string }): AsyncGenerator<CubeSqlEvent, void>;
}

/** Cube's long polling: a query still running after the server's interval answers this, with 200. */
const CONTINUE_WAIT = 'Continue wait';

async function errorBody(response: Response): Promise<{ error?: unknown; type?: unknown }> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return { error: text || response.statusText };
  }
}

/** Helpers for the data API of one deployment: `/data/{deploymentId}{basePath}/v1/...`. */
export function createDataApi(options: DataApiOptions): DataApi {
  const send = createTransport({
    fetch: options.fetch,
    token: options.token,
    scheme: (token) => token,
    retry: options.retry === false ? false : { methods: 'all', ...options.retry },
  });
  const root = `${options.baseUrl.replace(/\/+$/, '')}/data/${encodeURIComponent(String(options.deploymentId))}${options.basePath ?? '/cubejs-api'}/v1`;

  async function call(operation: string, init: RequestInit): Promise<Response> {
    const headers: Record<string, string> =
      init.body === undefined ? {} : { 'Content-Type': 'application/json' };
    const response = await send(new Request(`${root}/${operation}`, { ...init, headers }));
    if (!response.ok) throw new DataApiError(response.status, await errorBody(response));
    return response;
  }

  async function load(
    query: CubeQuery | CubeQuery[],
    callOptions: CallOptions & { queryType?: 'multi' } = {},
  ) {
    const body = JSON.stringify({
      query,
      ...(callOptions.queryType ? { queryType: callOptions.queryType } : {}),
    });
    for (;;) {
      const response = await call('load', { method: 'POST', body, signal: callOptions.signal });
      const result = (await response.json()) as { error?: unknown; type?: unknown } | null;
      // The same request again joins the same execution on the server (Cube's protocol).
      if (result?.error === CONTINUE_WAIT) continue;
      if (typeof result?.error === 'string') throw new DataApiError(response.status, result!);
      return result;
    }
  }

  async function meta(callOptions: CallOptions & { extended?: boolean } = {}): Promise<MetaResult> {
    const operation = callOptions.extended ? 'meta?extended=true' : 'meta';
    const response = await call(operation, { method: 'GET', signal: callOptions.signal });
    return (await response.json()) as MetaResult;
  }

  async function* cubesql(
    sql: string,
    callOptions: CallOptions & { timezone?: string } = {},
  ): AsyncGenerator<CubeSqlEvent, void> {
    const body = JSON.stringify({
      query: sql,
      ...(callOptions.timezone ? { timezone: callOptions.timezone } : {}),
    });
    const response = await call('cubesql', { method: 'POST', body, signal: callOptions.signal });
    if (response.body) yield* cubeSqlEvents(readLines(response.body));
  }

  return { load: load as DataApi['load'], meta, cubesql };
}

/**
 * The events of a `/v1/cubesql` answer from its NDJSON lines: a `schema` line, then `data` lines
 * of up to 1,000 rows each, yielded row by row; an `{"error"}` line (a failure after the stream
 * started) throws a DataApiError with `midStream` set.
 */
export async function* cubeSqlEvents(
  lines: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<CubeSqlEvent, void> {
  for await (const line of lines) {
    const message = JSON.parse(line);
    if (typeof message.error === 'string') throw new DataApiError(200, message, true);
    if (Array.isArray(message.schema)) {
      yield { type: 'schema', schema: message.schema, lastRefreshTime: message.lastRefreshTime };
    } else if (Array.isArray(message.data)) {
      for (const row of message.data) yield { type: 'row', row };
    }
  }
}
