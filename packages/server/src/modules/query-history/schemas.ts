import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { Id } from '../deployments/schemas.ts';
import { nullable, strict } from '../workspace/common.ts';

/** How many runs a user's history keeps per deployment: the newest, the oldest dropped on write. */
export const historyLimit = 100;

/** The longest query text kept, as long as a report's `sqlQuery` (reports/schemas.ts). */
const maxSqlLength = 100_000;

export const QueryHistoryParams = Type.Object({ deploymentId: Id });

/** One run of the SQL editor, as its user records it: the text, and what the data API answered. */
export const RecordQueryBody = Type.Object(
  {
    sql: Type.String({
      minLength: 1,
      maxLength: maxSqlLength,
      description: 'The SQL-API query as it was run (`POST /v1/cubesql`)',
    }),
    rowCount: Type.Optional(
      nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Rows it answered' })),
    ),
    durationMs: Type.Optional(
      nullable(
        Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Milliseconds until its last row' }),
      ),
    ),
    error: Type.Optional(
      nullable(Type.String({ maxLength: 10_000, description: "The data API's error, when it failed" })),
    ),
  },
  strict,
);

export const QueryHistoryEntry = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  sql: Type.String(),
  rowCount: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const QueryHistoryListQuery = Type.Object({ ...CursorQuery });

export const QueryHistoryListResponse = Type.Object({
  items: Type.Array(QueryHistoryEntry, { description: 'Newest first' }),
  pageInfo: PageInfoSchema,
});
