import type { RequestOptionsOf, SuccessBody } from '../types.ts';

/**
 * The data API's shapes (Cube's REST API, spec section 1), taken from the OpenAPI document's
 * operations under the default base path `/data/{deploymentId}/cubejs-api/v1/...`.
 */
type DataPath<Operation extends string> = `/data/{deploymentId}/cubejs-api/v1/${Operation}`;

type LoadBody = NonNullable<RequestOptionsOf<DataPath<'load'>, 'post'>['body']>;
type LoadAnswer = SuccessBody<DataPath<'load'>, 'post'>;
type SqlApiLine = SuccessBody<DataPath<'cubesql'>, 'post'>;

/** Cube's JSON query format. */
export type CubeQuery = Exclude<LoadBody['query'], string | unknown[]>;

/** One query result (the whole `/v1/load` answer unless `queryType=multi`). */
export type LoadResult = Exclude<LoadAnswer, { results: unknown } | { error: 'Continue wait' }>;

/** The `/v1/load` answer with `queryType=multi`. */
export type LoadMultiResult = Extract<LoadAnswer, { results: unknown }>;

/** `/v1/meta`: the cubes and views this token may see. */
export type MetaResult = SuccessBody<DataPath<'meta'>, 'get'>;

/** A column of a `/v1/cubesql` answer. */
export type SqlColumn = Extract<SqlApiLine, { schema: unknown }>['schema'][number];

/** What `cubesql` yields: the columns first, then one event per row (values as text). */
export type CubeSqlEvent =
  | { type: 'schema'; schema: SqlColumn[]; lastRefreshTime?: string }
  | { type: 'row'; row: Extract<SqlApiLine, { data: unknown }>['data'][number] };
