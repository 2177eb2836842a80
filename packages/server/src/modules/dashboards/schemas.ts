import { DashboardConfigDraftInput, DashboardConfigInput } from '@tessera/dashboard/schema';
import { Type } from 'typebox';
import { dashboardStatuses } from '../../db/schema.ts';
import { PageInfoSchema } from '../../pagination/page.ts';
import { Id, int32 } from '../deployments/schemas.ts';
import { JsonObject, nullable, strict } from '../workspace/common.ts';

/**
 * Dashboard config (spec 2.2): one schema with its type and parser, in packages/dashboard, shared
 * by the store, the renderer and the web app. Published dashboard (spec 2.3) shapes below.
 */
export { DashboardConfigDraftInput, DashboardConfigInput };

/** In responses the config is returned as stored; the theme is an object whose contents are not expanded (spec 2.2). */
export const DashboardConfig = Type.Object(
  {},
  { additionalProperties: true, description: 'Dashboard config (spec 2.2)' },
);

export const ReportSnapshot = Type.Object({
  id: Type.Integer(),
  reportId: Type.Integer(),
  versionNumber: Type.Integer(),
  name: Type.Union([Type.String(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  meta: Type.Union([JsonObject, Type.Null()]),
  preferences: Type.Object({ columnFormats: Type.Union([JsonObject, Type.Null()]) }),
  spec: Type.Union([Type.String(), Type.Null()], { description: 'The Vega-Lite v5 spec as a JSON string' }),
  sqlQuery: Type.Union([Type.String(), Type.Null()]),
  fillMissingRows: Type.Union([
    Type.Object({ member: Type.String(), excludedDimensions: Type.Array(Type.String()) }),
    Type.Null(),
  ]),
  kind: Type.String(),
});

export const statusDescription =
  'Status of this version of the published dashboard. `published`: the current version, set when a publish creates it. ' +
  '`archived`: a version superseded by a newer publish of the same workbook (published -> archived, in the same transaction ' +
  'that creates the newer version; archived is final). `draft` is part of the reference enum but never stored by Tessera: ' +
  'the unpublished draft lives on the workbook as `dashboardDraft`.';

export const PublishedDashboard = Type.Object({
  id: Type.Integer({ description: 'Stable id of the dashboard of this workbook' }),
  publicId: Type.String({ description: 'Stable across versions' }),
  deploymentId: Type.Integer(),
  workbookId: Type.Integer(),
  allowEmbed: Type.Boolean(),
  config: DashboardConfig,
  reportSnapshots: Type.Array(ReportSnapshot),
  status: Type.Enum(dashboardStatuses, { description: statusDescription }),
  versionId: Type.Integer(),
  versionNumber: Type.Integer({ description: '1 for the first publish, then one more for each publish' }),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  fromSharedWorkspace: Type.Boolean(),
  restrictDataDownload: Type.Boolean(),
  useBoardDashboards: Type.Boolean(),
});

/** The reference's PublishDashboardInput (spec 4.4). */
export const PublishBody = Type.Object(
  {
    workbookId: Type.Integer({ ...int32, description: 'Must equal the path workbookId' }),
    dashboardId: Type.Optional(nullable(Id)),
    title: Type.Optional(nullable(Type.String({ maxLength: 1000 }))),
    description: Type.Optional(nullable(Type.String({ maxLength: 10_000 }))),
    allowEmbed: Type.Optional(nullable(Type.Boolean())),
    // Checked by the service against DashboardConfigInput so that every problem is named by its
    // full path (body/config/theme/primaryColor), which the union-folding request validator cannot do.
    config: Type.Optional(
      nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            'Dashboard config (spec 2.2): title, description, layout, settings, theme (all values strings), widgets ' +
            '(id, position {x,y,w,h}, optional type, config {reportId}, responsiveLayouts, style). Omit it to publish the draft.',
        }),
      ),
    ),
  },
  strict,
);

/** The version check of a draft save (issue 23): the draft's save count the client started from. */
export const ExpectedDraftVersion = Type.Optional(
  nullable(
    Type.Integer({
      ...int32,
      minimum: 0,
      description:
        'The `dashboardDraftVersion` this draft was edited from. When given (here or as `If-Match: "<version>"`), ' +
        'the save is refused with 409 `draft_version_conflict` if the draft was saved since; omitted, the save ' +
        'overwrites whatever is there (as before the check existed).',
    }),
  ),
);

export const WorkbookDashboardBody = Type.Object(
  {
    dashboardDraft: Type.Optional(nullable(DashboardConfigDraftInput)),
    expectedDraftVersion: ExpectedDraftVersion,
  },
  strict,
);

export const DraftSaver = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
});

export const WorkbookDashboard = Type.Object({
  dashboardDraft: Type.Union([DashboardConfig, Type.Null()]),
  dashboardPublished: Type.Union([DashboardConfig, Type.Null()]),
  dashboardDraftVersion: Type.Integer({
    description:
      'How many times the draft was saved; send it back as `expectedDraftVersion` with the next save',
  }),
  dashboardDraftSavedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  dashboardDraftSavedBy: Type.Union([DraftSaver, Type.Null()], { description: 'Who saved the draft last' }),
});

export const DashboardVersionParams = Type.Object({
  deploymentId: Id,
  workbookId: Id,
  versionNumber: Type.Integer({ ...int32, minimum: 1 }),
});

/** One published version as the history lists it: who published it and when. */
export const DashboardVersionSummary = Type.Object({
  versionId: Type.Integer(),
  versionNumber: Type.Integer(),
  status: Type.Enum(dashboardStatuses, { description: statusDescription }),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.Union([Type.Integer(), Type.Null()]),
  createdByUser: Type.Union([DraftSaver, Type.Null()]),
  widgetCount: Type.Integer(),
});

export const DashboardVersionsResponse = Type.Object({
  items: Type.Array(DashboardVersionSummary),
  pageInfo: PageInfoSchema,
  data: Type.Array(DashboardVersionSummary, { deprecated: true, description: 'Deprecated: use `items`' }),
});

export const RestoreVersionBody = Type.Object({ expectedDraftVersion: ExpectedDraftVersion }, strict);
