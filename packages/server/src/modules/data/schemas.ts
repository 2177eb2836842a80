import { FILTER_OPERATORS } from '@tessera/semantic';
import { Type } from 'typebox';

/**
 * The data API's shapes for the OpenAPI document, field for field as Cube's REST API
 * (reference: data-api.yaml `V1LoadRequest`, `V1LoadResponse`, `V1Error`, and
 * `/v1/cubesql`). Validation stays as tolerant as Cube's gateway: unknown fields pass (clients
 * send `cache`, `onlyViews`, `throwContinueWait`, ...), and member names, operators, granularities
 * and limits are checked by the semantic layer, whose messages name the member or value.
 */

const open = { additionalProperties: true } as const;
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

// --- requests --------------------------------------------------------------------------------

const Members = (what: string) =>
  Type.Array(Type.String(), { description: `${what}, as \`cube.member\` (or \`view.member\`)` });

const TimeDimension = Type.Object(
  {
    dimension: Type.String({ description: 'A time dimension, `cube.member`' }),
    granularity: Type.Optional(
      nullable(
        Type.String({
          description: 'second, minute, hour, day, week, month, quarter, year, or a custom granularity',
        }),
      ),
    ),
    dateRange: Type.Optional(
      nullable(
        Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1, maxItems: 2 })], {
          description: "`[from, to]` (`YYYY-MM-DD` or with time), or relative text such as 'last 7 days'",
        }),
      ),
    ),
    compareDateRange: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'Date ranges to compare: one result per range (`compareDateRangeQuery`)',
      }),
    ),
  },
  open,
);

const Filter = Type.Object(
  {
    member: Type.Optional(Type.String({ description: 'A measure or dimension' })),
    dimension: Type.Optional(Type.String({ description: 'Older spelling of `member`' })),
    operator: Type.Optional(Type.String({ description: `One of: ${FILTER_OPERATORS.join(', ')}` })),
    values: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
    ),
    and: Type.Optional(Type.Array(Type.Object({}, open), { description: 'Filters that must all hold' })),
    or: Type.Optional(Type.Array(Type.Object({}, open), { description: 'Filters of which one must hold' })),
  },
  {
    ...open,
    description:
      'A member filter `{member, operator, values}`, or a logical filter `{and: [...]}` / `{or: [...]}`',
  },
);

export const CubeQuerySchema = Type.Object(
  {
    measures: Type.Optional(Members('Measures')),
    dimensions: Type.Optional(Members('Dimensions')),
    segments: Type.Optional(Members('Segments')),
    timeDimensions: Type.Optional(Type.Array(TimeDimension)),
    filters: Type.Optional(Type.Array(Filter)),
    order: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.String()), Type.Array(Type.Array(Type.String()))], {
        description: '`{member: "asc" | "desc"}`, or `[[member, "asc" | "desc"], ...]`',
      }),
    ),
    limit: Type.Optional(
      nullable(Type.Integer({ description: 'Rows to return; default 10000, at most 50000' })),
    ),
    rowLimit: Type.Optional(nullable(Type.Integer({ description: 'Older spelling of `limit`' }))),
    offset: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    total: Type.Optional(Type.Boolean({ description: 'Also count the rows without limit and offset' })),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone of the query; default UTC' })),
    ungrouped: Type.Optional(Type.Boolean()),
    renewQuery: Type.Optional(Type.Boolean({ description: 'Bypass the result cache' })),
    responseFormat: Type.Optional(
      Type.Union([Type.Literal('default'), Type.Literal('compact'), Type.Literal('columnar')], {
        description: '`data` as rows of objects (default), `{members, dataset}` or `{members, columns}`',
      }),
    ),
  },
  { ...open, description: "Cube's query format" },
);

const QueryField = Type.Union(
  [
    CubeQuerySchema,
    Type.Array(CubeQuerySchema, { minItems: 1, description: 'Several queries: data blending' }),
    Type.String({ description: 'The query as JSON text' }),
  ],
  { description: 'A query, or several (data blending)' },
);
const QueryTypeField = Type.String({
  description:
    '`multi`: answer `{queryType, results[], pivotQuery}` (what @cubejs-client/core sends); needed for compare-date-range and blending queries',
});
const CacheField = Type.String({
  description:
    "Cube's cache strategy (stale-if-slow, stale-while-revalidate, must-revalidate, no-cache); accepted and ignored: results are cached per refresh key, and `renewQuery` bypasses the cache",
});

export const QueryBody = Type.Object(
  { query: QueryField, queryType: Type.Optional(QueryTypeField), cache: Type.Optional(CacheField) },
  open,
);
export const QueryQuerystring = Type.Object(
  {
    query: Type.String({ description: 'The query (or an array of queries) as JSON' }),
    queryType: Type.Optional(QueryTypeField),
    cache: Type.Optional(CacheField),
  },
  open,
);
export const SqlApiBody = Type.Object(
  {
    query: Type.String({
      description: 'PostgreSQL-flavoured SQL; each cube or view is a table, MEASURE(x) aggregates',
    }),
    timezone: Type.Optional(Type.String({ description: 'IANA time zone, e.g. America/Los_Angeles' })),
    cache: Type.Optional(CacheField),
  },
  open,
);
export const SqlApiQuerystring = Type.Object(
  { query: Type.String({ description: 'The SQL' }), timezone: Type.Optional(Type.String()) },
  open,
);

export const DataParams = Type.Object({
  deploymentId: Type.String({ description: 'Deployment id; an unknown one answers 404 `{error}`' }),
});
export const BranchHeader = Type.Object(
  {
    'x-tessera-branch': Type.Optional(
      Type.String({
        description:
          "Never selects a branch: the token's signed `tessera.branch` claim does (POST /api/v1/deployments/{id}/token with `branch`). A value other than the token's branch (main for a production token) is refused with 403",
      }),
    ),
  },
  open,
);

// --- responses -------------------------------------------------------------------------------

export const ErrorBody = Type.Object({ error: Type.String() }, { description: "Cube's error shape" });
export const UserErrorBody = Type.Object(
  { type: Type.Literal('UserError'), error: Type.String() },
  { description: 'A query the caller got wrong: unknown or hidden member, bad operator, bad JSON, ...' },
);
export const ContinueWaitBody = Type.Object(
  { error: Type.Literal('Continue wait') },
  {
    description:
      'Status 200: the query is still running after the continue-wait interval (TESSERA_CONTINUE_WAIT_MS, default 5 s). Send the same request again: it joins the same execution (Cube long polling)',
  },
);

const MemberAnnotation = Type.Object(
  {
    title: Type.String(),
    shortTitle: Type.String(),
    type: Type.String(),
    description: Type.Optional(Type.String()),
    format: Type.Optional(Type.Unknown()),
    meta: Type.Optional(Type.Unknown()),
  },
  open,
);
const Annotation = Type.Object(
  {
    measures: Type.Record(Type.String(), MemberAnnotation),
    dimensions: Type.Record(Type.String(), MemberAnnotation),
    segments: Type.Record(Type.String(), MemberAnnotation),
    timeDimensions: Type.Record(Type.String(), MemberAnnotation),
  },
  { description: 'Titles, types and formats of the members in `data`' },
);
const Cell = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const Data = Type.Union([
  Type.Array(Type.Record(Type.String(), Cell), {
    description: 'Rows keyed by member (`cube.member`, `cube.time.granularity`); numbers as strings',
  }),
  Type.Object(
    { members: Type.Array(Type.String()), dataset: Type.Array(Type.Array(Cell)) },
    { description: 'responseFormat compact' },
  ),
  Type.Object(
    { members: Type.Array(Type.String()), columns: Type.Array(Type.Array(Cell)) },
    { description: 'responseFormat columnar' },
  ),
]);
const QueryType = Type.Union([
  Type.Literal('regularQuery'),
  Type.Literal('compareDateRangeQuery'),
  Type.Literal('blendingQuery'),
]);

export const LoadResult = Type.Object(
  {
    query: Type.Object({ queryType: QueryType }, { ...open, description: 'The normalised query' }),
    data: Data,
    annotation: Annotation,
    lastRefreshTime: Type.String({ format: 'date-time', description: 'When the engine answered' }),
    refreshKeyValues: Type.Array(Type.Unknown()),
    usedPreAggregations: Type.Object({}, open),
    transformedQuery: Type.Null(),
    dataSource: Type.String(),
    dbType: Type.String({
      description:
        "The deployment's SQL dialect: duckdb, postgres, mysql, trino, presto, redshift, clickhouse, snowflake, athena or databricks",
    }),
    extDbType: Type.String(),
    external: Type.Boolean(),
    slowQuery: Type.Boolean(),
    total: Type.Optional(nullable(Type.Integer({ description: 'Rows without limit/offset, when `total`' }))),
  },
  { description: 'One query result (also the whole body without `queryType=multi`)' },
);
export const LoadMultiResponse = Type.Object(
  {
    queryType: QueryType,
    results: Type.Array(LoadResult),
    pivotQuery: Type.Object({}, open),
    slowQuery: Type.Boolean(),
  },
  { description: 'With `queryType=multi`' },
);

const SqlEntry = Type.Object({
  sql: Type.Object(
    {
      sql: Type.Tuple([Type.String(), Type.Array(Type.Unknown())], { description: '[SQL text, parameters]' }),
      aliasNameToMember: Type.Record(Type.String(), Type.String()),
      order: Type.Unknown(),
      cacheKeyQueries: Type.Array(Type.Unknown()),
      dataSource: Type.String(),
      external: Type.Boolean(),
      preAggregations: Type.Array(Type.Unknown()),
      rollupMatchResults: Type.Array(Type.Unknown()),
    },
    open,
  ),
});
export const SqlResponse = Type.Union([
  SqlEntry,
  Type.Array(SqlEntry, { description: 'Compare or blending' }),
]);

export const DryRunResponse = Type.Object({
  queryType: QueryType,
  normalizedQueries: Type.Array(Type.Object({}, open)),
  queryOrder: Type.Array(Type.Record(Type.String(), Type.String())),
  transformedQueries: Type.Array(Type.Null()),
  pivotQuery: Type.Object({}, open),
});

export const SqlApiLine = Type.Union(
  [
    Type.Object(
      {
        schema: Type.Array(Type.Object({ name: Type.String(), column_type: Type.String() })),
        lastRefreshTime: Type.String({ format: 'date-time' }),
      },
      { description: 'First line: the columns' },
    ),
    Type.Object(
      { data: Type.Array(Type.Array(nullable(Type.String()))) },
      { description: 'Then up to 1,000 rows per line, values as text' },
    ),
    Type.Object(
      { error: Type.String() },
      { description: 'A failure after the stream started: the last line' },
    ),
  ],
  { description: 'One line of the newline-delimited JSON answer' },
);
