import type { FetchOptions, FetchResponse } from 'openapi-fetch';
import type { paths } from './generated/schema.ts';

/** The HTTP methods the management API uses. */
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** Every path of the document that has an operation for `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

/** The operation object of `M P` as openapi-typescript generated it. */
export type OperationOf<P extends PathsWith<M>, M extends Method> = paths[P][M];

/** What a call of `M P` takes: `params` (path, query), `body`, `signal`, `headers`, ... */
export type RequestOptionsOf<P extends PathsWith<M>, M extends Method> = FetchOptions<OperationOf<P, M>>;

type ResponseOf<P extends PathsWith<M>, M extends Method> = FetchResponse<
  OperationOf<P, M> & Record<string | number, unknown>,
  object,
  `${string}/${string}`
>;

/** The success body of `M P` (the 2xx content the document declares). */
export type SuccessBody<P extends PathsWith<M>, M extends Method> = NonNullable<ResponseOf<P, M>['data']>;

/**
 * The error body of `M P`: the union of the error responses the document declares for it, each a
 * problem+json whose `code` is that operation's enum of codes (DESIGN.md "Errors").
 */
export type ErrorBody<P extends PathsWith<M>, M extends Method> = NonNullable<ResponseOf<P, M>['error']>;

/** The `code` values an error of `M P` can carry. */
export type ErrorCode<P extends PathsWith<M>, M extends Method> =
  ErrorBody<P, M> extends infer E ? (E extends { code: infer C } ? C : never) : never;

/** A list response (spec 2.4): `items` and `pageInfo`, paged with `first` and `after`. */
export interface Page<Item> {
  items: Item[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

/** The GET paths that answer a page and take the `after` cursor. */
export type PagedPath = {
  [P in PathsWith<'get'>]: SuccessBody<P, 'get'> extends Page<unknown>
    ? TakesAfter<QueryOf<OperationOf<P, 'get'>>, P>
    : never;
}[PathsWith<'get'>];

type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
// `[Q] extends [never]` first: an operation without query parameters declares `query?: never`.
type TakesAfter<Q, P> = [Q] extends [never] ? never : 'after' extends keyof Q ? P : never;

/** The item type of a paged path. */
export type PageItem<P extends PagedPath> = SuccessBody<P, 'get'> extends Page<infer Item> ? Item : never;
