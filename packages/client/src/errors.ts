/**
 * The errors the client throws. Plain calls return errors as values (`{ data, error, response }`,
 * as openapi-fetch does); the helpers that must throw (pagination, React hooks, data API, chat)
 * throw these, each carrying the typed body the server sent.
 */

const API_ERROR = Symbol.for('@tessera/client.ApiError');

/**
 * A management API answer outside 2xx. `body` is the problem+json (RFC 9457) the document declares
 * for the operation, so `error.body.code` is that operation's union of codes.
 */
export class ApiError<Body = unknown> extends Error {
  readonly [API_ERROR] = true;
  readonly status: number;
  readonly body: Body;
  readonly response: Response;

  constructor(response: Response, body: Body) {
    super(ApiError.describe(response, body));
    this.name = 'ApiError';
    this.status = response.status;
    this.body = body;
    this.response = response;
  }

  /** The problem's `code`, when the body has one. */
  get code(): Body extends { code: infer C } ? C : undefined {
    const body = this.body as { code?: unknown } | undefined;
    return (typeof body === 'object' && body !== null ? body.code : undefined) as never;
  }

  private static describe(response: Response, body: unknown): string {
    const problem = body as { detail?: unknown; code?: unknown } | undefined;
    const detail = typeof problem?.detail === 'string' ? problem.detail : response.statusText;
    const code = typeof problem?.code === 'string' ? ` (${problem.code})` : '';
    return `${response.status} ${detail}${code}`;
  }
}

/**
 * Whether `value` is an ApiError, also across two copies of the package (a CommonJS and an ESM
 * one in the same process), where `instanceof` says no.
 */
export function isApiError<Body = unknown>(value: unknown): value is ApiError<Body> {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[API_ERROR] === true
  );
}

/** The body of a call, or an ApiError carrying the error body. */
export function unwrap<Data, Err>(result: { data?: Data; error?: Err; response: Response }): Data {
  if (result.error !== undefined || !result.response.ok)
    throw new ApiError(result.response, result.error as Err);
  return result.data as Data;
}

/** A data API failure: Cube's `{ error, type? }` body (`type: "UserError"` for a bad query). */
export class DataApiError extends Error {
  readonly status: number;
  /** `UserError` when the query itself is wrong. */
  readonly type: string | undefined;
  /** True when the error arrived as a line of a stream that had already started (cubesql). */
  readonly midStream: boolean;

  constructor(status: number, body: { error?: unknown; type?: unknown }, midStream = false) {
    super(typeof body.error === 'string' ? body.error : `data API answered ${status}`);
    this.name = 'DataApiError';
    this.status = status;
    this.type = typeof body.type === 'string' ? body.type : undefined;
    this.midStream = midStream;
  }
}

/** A chat stream failure: an answer outside 2xx, or an `{ "error": ... }` line (spec 4.6, 7). */
export class ChatStreamError extends Error {
  readonly status: number;
  readonly midStream: boolean;

  constructor(message: string, status: number, midStream: boolean) {
    super(message);
    this.name = 'ChatStreamError';
    this.status = status;
    this.midStream = midStream;
  }
}
