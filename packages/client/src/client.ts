import createFetchClient, { type Client as FetchClient } from 'openapi-fetch';
import type { paths } from './generated/schema.ts';
import { paginate } from './paginate.ts';
import type { RetryOptions } from './retry.ts';
import { createTransport, type TokenSource } from './transport.ts';
import type { PagedPath, PageItem, RequestOptionsOf } from './types.ts';

export interface ClientOptions {
  /** Where the server is, e.g. `https://analytics.example.com` (paths start with `/api/...`). */
  baseUrl: string;
  /**
   * An API key or an OAuth access token, sent as `Authorization: Bearer <token>` (spec section
   * 5), or a function returning a fresh one, sync or async, called before every attempt.
   */
  token?: TokenSource;
  /** `include` for the web app's cookie session (no token needed then). */
  credentials?: 'include' | 'same-origin' | 'omit';
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Retries of 429 and 503 (retry.ts); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Defaults to the global `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * The typed client: openapi-fetch's `GET`, `POST`, `PUT`, `DELETE`, `PATCH` over every path of the
 * document (`{ data, error, response }`, with `error` the operation's problem+json), plus
 * `paginate` over the cursor-paged lists.
 */
export interface Client extends FetchClient<paths> {
  /**
   * Every item of a paged list (spec 2.4), page after page: follows `pageInfo.endCursor` as
   * `after` until `pageInfo.hasNextPage` is false. `params.query.first` sets the page size. A
   * failed page throws an ApiError.
   */
  paginate<P extends PagedPath>(path: P, init: RequestOptionsOf<P, 'get'>): AsyncGenerator<PageItem<P>, void>;
}

/** A client for one server and one credential. */
export function createClient(options: ClientOptions): Client {
  const fetchClient = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: options.headers,
    credentials: options.credentials,
    fetch: createTransport({
      fetch: options.fetch,
      token: options.token,
      scheme: (token) => `Bearer ${token}`,
      retry: options.retry,
    }),
  });
  return Object.assign(fetchClient, {
    paginate: <P extends PagedPath>(path: P, init: RequestOptionsOf<P, 'get'>) =>
      paginate<P>(fetchClient, path, init),
  });
}
