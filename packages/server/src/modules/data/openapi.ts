import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { MetaNestedFolder, MetaQuerystring, MetaResponse, metaNestedFolderName } from './meta-schemas.ts';
import type { DataOperation } from './operations.ts';
import {
  BranchHeader,
  ContinueWaitBody,
  DataParams,
  DryRunResponse,
  ErrorBody,
  LoadMultiResponse,
  LoadResult,
  QueryBody,
  QueryQuerystring,
  SqlApiBody,
  SqlApiLine,
  SqlApiQuerystring,
  SqlResponse,
  UserErrorBody,
} from './schemas.ts';

/** Data-API shapes the document holds as components (a shape that refers to itself). */
export const dataSchemas = { [metaNestedFolderName]: MetaNestedFolder };

/** The OpenAPI security scheme of the data API: the bare JWT (spec section 5), not `Bearer`. */
export const DATA_API_SECURITY = 'dataApiToken';
export const dataApiSecurityScheme = {
  type: 'apiKey',
  in: 'header',
  name: 'Authorization',
  description:
    'The data-API JWT, sent with no prefix: `Authorization: <token>` (HS256, signed with the deployment API secret; its payload is the security context). Get one from `POST /api/v1/deployments/{deploymentId}/token`. Missing, malformed, expired or wrongly signed: 403 `{error}`.',
} as const;

const error = (description: string, schema: TSchema = ErrorBody) => ({ ...schema, description });
const errors = {
  400: Type.Union([UserErrorBody, ErrorBody], {
    description:
      'A query the caller got wrong (`{type: "UserError", error}`: invalid request, unknown or hidden member, bad operator, model compile errors), or an unreadable body (`{error}`)',
  }),
  403: error(
    "No token, or one that is malformed, expired, wrongly signed, or an `x-tessera-branch` header naming another branch than the token's",
  ),
  404: error('Unknown deployment, or a deployment whose base path is not /cubejs-api'),
  413: error('Request body larger than the server accepts'),
  500: error('Internal error; no details'),
  503: error(
    "The deployment's warehouse cannot be reached or opened (host unknown or down, login refused, database or DuckDB file missing); no details",
  ),
  504: error('The query ran past TESSERA_QUERY_TIMEOUT_MS and was cancelled'),
};

interface OperationDoc {
  summary: string;
  description: string;
  get?: TSchema;
  post?: TSchema;
  ok: TSchema | { description: string; content: Record<string, { schema: TSchema }> };
}

const loadOk = Type.Union([LoadMultiResponse, LoadResult, ContinueWaitBody], {
  description:
    'With `queryType=multi`: `{queryType, results[], pivotQuery, slowQuery}`; without it, the one result. Or, while the query is still running, `{"error": "Continue wait"}`: repeat the request',
});

const docs: Record<DataOperation, OperationDoc> = {
  load: {
    summary: 'Run a query (Cube JSON query format)',
    description:
      'Runs the query under the token\'s security context: access policies filter rows and hide members. A query still running after the continue-wait interval answers 200 `{"error": "Continue wait"}`; repeating the request joins the same execution. GET takes `?query=<JSON>`; POST a JSON body (@cubejs-client/core switches to POST for long URLs).',
    get: QueryQuerystring,
    post: QueryBody,
    ok: loadOk,
  },
  meta: {
    summary: 'The data model as this token may see it',
    description:
      'Cubes and views with the members the security context may see (hidden and non-public members left out). `?extended` adds member SQL and cube joins.',
    get: MetaQuerystring,
    ok: { ...MetaResponse, description: 'Cubes and views' },
  },
  sql: {
    summary: 'The SQL a query compiles to for this token',
    description: 'The SQL and parameters, with the access policies applied; nothing runs.',
    get: QueryQuerystring,
    post: QueryBody,
    ok: { ...SqlResponse, description: 'One entry, or one per query for compare and blending queries' },
  },
  'dry-run': {
    summary: 'Validate and normalise a query without running it',
    description: 'The normalised queries, their order and the pivot query; nothing runs.',
    get: QueryQuerystring,
    post: QueryBody,
    ok: { ...DryRunResponse, description: 'The normalised queries' },
  },
  cubesql: {
    summary: 'Run SQL-API text (PostgreSQL-flavoured SQL over cubes and views)',
    description:
      'Each cube or view is a table and `MEASURE(x)` aggregates a measure; the inner selects over cubes are compiled under the token\'s security context, as /v1/load. The answer is newline-delimited JSON: a `schema` line (with `lastRefreshTime`), then `data` lines of up to 1,000 rows of text values; a failure after the stream started is a final `{"error"}` line. SQL that cannot be answered is a 400 before anything is streamed. There is no continue-wait: the response waits for the query.',
    get: SqlApiQuerystring,
    post: SqlApiBody,
    ok: {
      description: 'Newline-delimited JSON, one object per line',
      content: { 'application/x-ndjson': { schema: SqlApiLine } },
    },
  },
};

/** The route schema of one documented data-API operation and method. */
export function operationSchema(operation: DataOperation, method: 'GET' | 'POST') {
  const doc = docs[operation];
  const input = method === 'GET' ? { querystring: doc.get } : { body: doc.post };
  return {
    tags: ['Data API'],
    operationId: `data${method === 'GET' ? 'Get' : 'Post'}${operation
      .split('-')
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('')}`,
    summary: doc.summary,
    description: `${doc.description}\n\nErrors are Cube's \`{error}\` shape, never problem+json.`,
    security: [{ [DATA_API_SECURITY]: [] }],
    params: DataParams,
    headers: BranchHeader,
    ...input,
    response: { 200: doc.ok, ...errors },
  };
}

/** Which methods each operation is documented with (Cube: meta is GET only). */
export function operationMethods(operation: DataOperation): ('GET' | 'POST')[] {
  const doc = docs[operation];
  return [...(doc.get ? (['GET'] as const) : []), ...(doc.post ? (['POST'] as const) : [])];
}
