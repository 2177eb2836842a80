import { Type } from 'typebox';
import { CursorQuery, maxPageSize } from '../../pagination/page.ts';
import { DeploymentParams, deploymentItemParams, Id } from '../deployments/schemas.ts';
import {
  FolderPathEntry,
  folderFilter,
  itemName,
  JsonObject,
  listWithCount,
  nullable,
  ResourceOwner,
  strict,
} from '../workspace/common.ts';

export const ReportParams = deploymentItemParams('reportId');

export const ColumnFormat = Type.Object(
  {
    type: Type.Enum(['currency', 'percent', 'number'] as const),
    decimalPlaces: Type.Optional(nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  },
  strict,
);
export const Preferences = Type.Object(
  { columnFormats: Type.Optional(nullable(Type.Record(Type.String({ maxLength: 255 }), ColumnFormat))) },
  strict,
);
export const FillMissingRows = Type.Object(
  {
    member: Type.String({ minLength: 1, maxLength: 255 }),
    excludedDimensions: Type.Optional(
      nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    ),
  },
  strict,
);

/** The reference: a 12-character `[0-9A-Za-z]` id, minted by the client for content kept as code. */
const publicIdString = Type.String({ pattern: '^[0-9A-Za-z]{12}$', minLength: 12, maxLength: 12 });

/** The upsert's key (issue 25 item 4). */
export const ReportPublicIdParams = Type.Object({ ...DeploymentParams.properties, publicId: publicIdString });

const reportFields = {
  name: Type.Optional(nullable(itemName)),
  title: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
  description: Type.Optional(nullable(Type.String({ maxLength: 10_000 }))),
  sqlQuery: Type.Optional(nullable(Type.String({ maxLength: 100_000, description: 'A SQL-API query' }))),
  jsonQuery: Type.Optional(
    nullable(
      Type.String({ maxLength: 100_000, description: 'A semantic (load) query as a JSON object string' }),
    ),
  ),
  spec: Type.Optional(
    nullable(
      Type.Union([JsonObject, Type.String({ maxLength: 200_000 })], {
        description: 'Vega-Lite v5 chart spec, as an object or a JSON string; it holds no data',
      }),
    ),
  ),
  preferences: Type.Optional(nullable(Preferences)),
  fillMissingRows: Type.Optional(nullable(FillMissingRows)),
  meta: Type.Optional(nullable(JsonObject)),
  folderId: Type.Optional(nullable(Id)),
  workbookId: Type.Optional(nullable(Id)),
  publicId: Type.Optional(nullable(publicIdString)),
};

export const CreateReportBody = Type.Object(reportFields, strict);
export const UpdateReportBody = Type.Object(reportFields, strict);

export const reportSorts = ['name', 'createdAt', 'updatedAt', 'lastViewedAt'] as const;

export const ReportsListQuery = Type.Object({
  workbookId: Type.Optional(Id),
  folderId: folderFilter('0: the workspace root'),
  search: Type.Optional(Type.String({ maxLength: 255 })),
  sortBy: Type.Optional(Type.Enum(reportSorts)),
  sortDirection: Type.Optional(Type.Enum(['ASC', 'DESC'] as const)),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: maxPageSize, description: 'Page size for page-number pagination' }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number (1-based) with `limit`' }),
  ),
  ...CursorQuery,
});

export const Report = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  publicId: Type.String(),
  type: Type.Literal('REPORT'),
  name: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  sqlQuery: Type.Union([Type.String(), Type.Null()]),
  jsonQuery: Type.Union([Type.String(), Type.Null()]),
  spec: Type.Union([JsonObject, Type.Null()]),
  kind: Type.String(),
  preferences: Type.Object({ columnFormats: Type.Union([JsonObject, Type.Null()]) }),
  fillMissingRows: Type.Union([JsonObject, Type.Null()]),
  meta: Type.Union([JsonObject, Type.Null()]),
  folderId: Type.Union([Type.Integer(), Type.Null()]),
  workbookId: Type.Union([Type.Integer(), Type.Null()]),
  folderPath: Type.Array(FolderPathEntry),
  version: Type.Integer(),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  user: Type.Union([ResourceOwner, Type.Null()]),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  lastViewedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: "The caller's own last view",
  }),
  canEdit: Type.Boolean(),
  canManage: Type.Boolean(),
});

export const ReportsListResponse = listWithCount(Report, 'Deprecated: visible reports matching the filters');
