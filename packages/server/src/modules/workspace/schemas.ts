import { Type } from 'typebox';
import { CursorQuery, PageInfoSchema } from '../../pagination/page.ts';
import { DashboardConfig, PublishedDashboard } from '../dashboards/schemas.ts';
import { Id } from '../deployments/schemas.ts';
import { contentTypes } from '../permissions/content.ts';
import {
  FolderPathEntry,
  folderFilter,
  ItemType,
  itemRef,
  JsonObject,
  nullable,
  ResourceOwner,
  strict,
} from './common.ts';

/** Spec 2.1: a workspace item of any type (the move response and the workspace listing). */
export const WorkspaceItem = Type.Object({
  id: Type.Integer(),
  deploymentId: Type.Integer(),
  name: Type.String(),
  type: ItemType,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  calculatedFields: JsonObject,
  meta: JsonObject,
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  folderId: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Parent folder; null is the workspace root',
  }),
  folderPath: Type.Array(FolderPathEntry),
  isFavorite: Type.Union([Type.Boolean(), Type.Null()]),
  slug: Type.Union([Type.String(), Type.Null()]),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  user: Type.Union([ResourceOwner, Type.Null()]),
  dashboardDraft: Type.Optional(Type.Union([DashboardConfig, Type.Null()])),
  dashboardPublished: Type.Optional(Type.Union([DashboardConfig, Type.Null()])),
  publishedDashboard: Type.Optional(Type.Union([PublishedDashboard, Type.Null()])),
});

/** The reference's MoveWorkspaceObjectInput (spec 4.2). */
export const MoveBody = Type.Object({ ...itemRef, folderId: Type.Optional(nullable(Id)) }, strict);

const typeList = `^(${contentTypes.join('|')})(,(${contentTypes.join('|')}))*$`;

export const WorkspaceQuery = Type.Object({
  folderId: folderFilter('List this folder; omit it (or 0) for the root'),
  types: Type.Optional(
    Type.String({
      pattern: typeList,
      maxLength: 40,
      description: 'Comma-separated item types, e.g. FOLDER,WORKBOOK',
    }),
  ),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Case-insensitive name match across all folders',
    }),
  ),
  ...CursorQuery,
});

export const WorkspaceListResponse = Type.Object({
  items: Type.Array(WorkspaceItem),
  pageInfo: PageInfoSchema,
});

/** At most 100 items a request (the reference); repeated references are collapsed. */
const bulkItems = Type.Array(Type.Object(itemRef, strict), { minItems: 1, maxItems: 100 });

export const BulkMoveBody = Type.Object({ items: bulkItems, folderId: Type.Optional(nullable(Id)) }, strict);

export const BulkDeleteBody = Type.Object({ items: bulkItems }, strict);

const BulkFailure = Type.Object({
  ...itemRef,
  error: Type.Object({ status: Type.Integer(), message: Type.String() }),
});

/**
 * The reference's payloads. Tessera applies a batch all or nothing (issue 25 item 4), so a 200
 * always has an empty `failed`; a refused item answers the whole request with its error instead.
 */
export const BulkMoveResponse = Type.Object({
  moved: Type.Array(WorkspaceItem),
  failed: Type.Array(BulkFailure),
});

export const BulkDeleteResponse = Type.Object({
  deleted: Type.Array(Type.Object(itemRef)),
  failed: Type.Array(BulkFailure),
});
