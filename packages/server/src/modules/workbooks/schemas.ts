import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { DashboardConfig, DashboardConfigDraftInput, PublishedDashboard } from '../dashboards/schemas.ts';
import { FolderPathEntry, int32, itemName, JsonObject, ResourceOwner } from '../workspace/common.ts';

export const WorkbookParams = Type.Object({
  deploymentId: Type.Integer(int32),
  workbookId: Type.Integer(int32),
});

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** The reference's CreateWorkbookInput; the draft may be seeded here too. */
export const CreateWorkbookBody = Type.Object(
  {
    name: Type.Optional(nullable(itemName)),
    folderId: Type.Optional(nullable(Type.Integer(int32))),
    meta: Type.Optional(nullable(JsonObject)),
    calculatedFields: Type.Optional(nullable(JsonObject)),
    dashboardDraft: Type.Optional(nullable(DashboardConfigDraftInput)),
  },
  { additionalProperties: false },
);

/** The reference's UpdateWorkbookInput, plus the draft dashboard config (issue 5 item 4). */
export const UpdateWorkbookBody = Type.Object(
  {
    name: Type.Optional(nullable(itemName)),
    folderId: Type.Optional(nullable(Type.Integer(int32))),
    meta: Type.Optional(nullable(JsonObject)),
    slug: Type.Optional(
      nullable(Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9][a-z0-9-]*$' })),
    ),
    dashboardDraft: Type.Optional(nullable(DashboardConfigDraftInput)),
  },
  { additionalProperties: false },
);

export const DuplicateWorkbookBody = Type.Object(
  {
    shared: Type.Optional(
      nullable(
        Type.Boolean({ description: 'Clone from the shared workspace: built from the published dashboard' }),
      ),
    ),
  },
  { additionalProperties: false },
);

/** Spec 4.5: the two list parameters, `folderId` (minimum 0; 0 is the root) and `first` (minimum 1). */
export const WorkbooksListQuery = Type.Object({
  folderId: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 2147483647,
      description: 'Only workbooks in this folder; 0 for the workspace root',
    }),
  ),
  ...CursorQuery,
});

/** Spec 2.1: a workspace item of type WORKBOOK with its dashboard fields. */
export const Workbook = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('WORKBOOK'),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  calculatedFields: JsonObject,
  meta: JsonObject,
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  folderId: Type.Union([Type.Integer(), Type.Null()]),
  folderPath: Type.Array(FolderPathEntry),
  isFavorite: Type.Union([Type.Boolean(), Type.Null()]),
  slug: Type.Union([Type.String(), Type.Null()]),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  user: Type.Union([ResourceOwner, Type.Null()]),
  dashboardDraft: Type.Union([DashboardConfig, Type.Null()]),
  dashboardPublished: Type.Optional(Type.Union([DashboardConfig, Type.Null()])),
  publishedDashboard: Type.Optional(Type.Union([PublishedDashboard, Type.Null()])),
});

export const WorkbooksListResponse = Type.Object({
  items: Type.Array(Workbook),
  pageInfo: PageInfoSchema,
  data: Type.Array(Workbook, { deprecated: true, description: 'Deprecated: use `items`' }),
  count: Type.Integer({ deprecated: true, description: 'Deprecated: visible workbooks matching the filter' }),
});
