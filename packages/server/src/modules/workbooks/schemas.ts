import { Type } from 'typebox';
import { CursorQuery } from '../../pagination/page.ts';
import { DashboardConfig, DashboardConfigDraftInput } from '../dashboards/schemas.ts';
import { DeploymentParams, deploymentItemParams, Id } from '../deployments/schemas.ts';
import { folderFilter, itemName, JsonObject, listWithCount, nullable, strict } from '../workspace/common.ts';
import { WorkspaceItem } from '../workspace/schemas.ts';

export const WorkbookParams = deploymentItemParams('workbookId');

/** The reference's CreateWorkbookInput; the draft may be seeded here too. */
export const CreateWorkbookBody = Type.Object(
  {
    name: Type.Optional(nullable(itemName)),
    folderId: Type.Optional(nullable(Id)),
    meta: Type.Optional(nullable(JsonObject)),
    calculatedFields: Type.Optional(nullable(JsonObject)),
    dashboardDraft: Type.Optional(nullable(DashboardConfigDraftInput)),
  },
  strict,
);

/** The reference's UpdateWorkbookInput, plus the draft dashboard config. */
export const UpdateWorkbookBody = Type.Object(
  {
    name: Type.Optional(nullable(itemName)),
    folderId: Type.Optional(nullable(Id)),
    meta: Type.Optional(nullable(JsonObject)),
    slug: Type.Optional(
      nullable(Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-z0-9][a-z0-9-]*$' })),
    ),
    dashboardDraft: Type.Optional(nullable(DashboardConfigDraftInput)),
  },
  strict,
);

export const DuplicateWorkbookBody = Type.Object(
  {
    shared: Type.Optional(
      nullable(
        Type.Boolean({ description: 'Clone from the shared workspace: built from the published dashboard' }),
      ),
    ),
  },
  strict,
);

/** Spec 4.5: the two list parameters, `folderId` (minimum 0; 0 is the root) and `first` (minimum 1). */
export const WorkbooksListQuery = Type.Object({
  folderId: folderFilter('Only workbooks in this folder; 0 for the workspace root'),
  ...CursorQuery,
});

/** Spec 2.1: a workspace item of type WORKBOOK, whose draft dashboard is always present. */
export const Workbook = Type.Object({
  ...WorkspaceItem.properties,
  type: Type.Literal('WORKBOOK'),
  dashboardDraft: nullable(DashboardConfig),
  dashboardDraftVersion: Type.Integer({
    description: 'How many times the draft was saved (the version check of PUT .../dashboard)',
  }),
});

export const WorkbooksListResponse = listWithCount(
  Workbook,
  'Deprecated: visible workbooks matching the filter',
);

/** The upsert's key: trimmed and lowercased before matching (service.ts normaliseSlug). */
export const WorkbookSlugParams = Type.Object({
  ...DeploymentParams.properties,
  slug: Type.String({ minLength: 1, maxLength: 255 }),
});
