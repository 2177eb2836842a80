import { delayBeforeRetry, type RetryOptions, sleep } from './retry.ts';

/** A credential, or a function returning a fresh one (sync or async), asked again on every attempt. */
export type TokenSource = string | (() => string | null | undefined | Promise<string | null | undefined>);

export interface TransportOptions {
  /** Defaults to the global `fetch` (Node 20+ and browsers). */
  fetch?: (request: Request) => Promise<Response>;
  token?: TokenSource;
  /** How the token is written into `Authorization` (spec section 5: `Bearer`, `Api-Key` or bare). */
  scheme: (token: string) => string;
  /** `false` turns retries off. */
  retry?: RetryOptions | false;
}

/** Per-call retry options: `client.POST(path, { ..., retry: { methods: 'all' } })`. */
export interface CallRetryOption {
  retry?: RetryOptions | false;
}

async function resolveToken(token: TokenSource | undefined): Promise<string | null | undefined> {
  return typeof token === 'function' ? token() : token;
}

async function authorize(request: Request, options: TransportOptions): Promise<Request> {
  const token = await resolveToken(options.token);
  if (!token) return request;
  const headers = new Headers(request.headers);
  headers.set('Authorization', options.scheme(token));
  return new Request(request, { headers });
}

/**
 * A `fetch` that authorizes each attempt and retries 429 and 503 answers (retry.ts). The request's
 * signal also ends a backoff wait. openapi-fetch copies unknown call options onto the Request,
 * which is how a per-call `retry` reaches this function.
 */
export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  return async (request) => {
    const perCall = (request as Request & CallRetryOption).retry;
    const retry =
      perCall === undefined || perCall === false
        ? (perCall ?? options.retry)
        : { ...(options.retry || {}), ...perCall };
    for (let attempt = 1; ; attempt++) {
      const response = await send(await authorize(request.clone(), options));
      const delayMs =
        retry === false ? undefined : delayBeforeRetry(retry ?? {}, request.method, attempt, response);
      if (delayMs === undefined) return response;
      await response.body?.cancel();
      if (retry) retry.onRetry?.({ attempt, delayMs, response, request });
      await sleep(delayMs, request.signal);
    }
  };
}
