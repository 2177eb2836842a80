import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { CursorQuery } from '../../pagination/page.ts';
import { WorkbookParams } from '../workbooks/schemas.ts';
import {
  DashboardVersionParams,
  DashboardVersionsResponse,
  PublishBody,
  PublishedDashboard,
  RestoreVersionBody,
  statusDescription,
  WorkbookDashboard,
  WorkbookDashboardBody,
} from './schemas.ts';
import type { DashboardsService } from './service.ts';

const tags = ['Workbooks'];
/**
 * Embed tokens in creator mode (spec 4.3 rules 1 and 2) work here too, inside their embed tenant's
 * space (permissions/access.ts); other embed tokens get 403 `embed_creator_mode_required`.
 */
const write = { access: { role: 'developer' as const, embed: 'create' as const } };
const read = { access: { role: 'viewer' as const, embed: 'create' as const } };

/** One `If-Match` value (a repeated header is taken as its first). */
function ifMatch(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

export const dashboardRoutes: FastifyPluginAsyncTypebox<{ dashboards: DashboardsService }> = async (
  app,
  { dashboards },
) => {
  const base = '/api/v1/deployments/:deploymentId/workbooks/:workbookId';
  app.put(
    `${base}/dashboard`,
    {
      schema: {
        tags,
        operationId: 'updateWorkbookDashboard',
        summary: "Save the workbook's draft dashboard config (edit access)",
        description:
          'Saves `dashboardDraft`; every save adds one to `dashboardDraftVersion`. Version check (issue 23): send the ' +
          '`dashboardDraftVersion` the draft was edited from as `expectedDraftVersion` (or as the `If-Match` header, ' +
          '`If-Match: "3"`) and a draft saved by someone else since is not overwritten: 409 `draft_version_conflict`, ' +
          'whose detail names who saved it and when. Of two saves from one version, exactly one wins. A save without ' +
          'either overwrites the draft as before, so existing clients keep working.',
        params: WorkbookParams,
        body: WorkbookDashboardBody,
        response: { 200: WorkbookDashboard },
      },
      config: write,
    },
    (r) =>
      dashboards.updateDraft(
        principalOf(r),
        r.params.deploymentId,
        r.params.workbookId,
        r.body,
        ifMatch(r.headers['if-match']),
      ),
  );
  app.get(
    `${base}/dashboard/versions`,
    {
      schema: {
        tags,
        operationId: 'getDashboardVersions',
        summary:
          'List the published versions of the dashboard, oldest first, with who published each and when',
        params: WorkbookParams,
        querystring: Type.Object(CursorQuery),
        response: { 200: DashboardVersionsResponse },
      },
      config: read,
    },
    (r) => dashboards.versions(principalOf(r), r.params.deploymentId, r.params.workbookId, r.query),
  );
  app.get(
    `${base}/dashboard/versions/:versionNumber`,
    {
      schema: {
        tags,
        operationId: 'getDashboardVersion',
        summary:
          'Get one published version of the dashboard (spec 2.3) with its report snapshots (view access)',
        params: DashboardVersionParams,
        response: { 200: PublishedDashboard },
      },
      config: read,
    },
    (r) =>
      dashboards.version(principalOf(r), r.params.deploymentId, r.params.workbookId, r.params.versionNumber),
  );
  app.post(
    `${base}/dashboard/versions/:versionNumber/restore`,
    {
      schema: {
        tags,
        operationId: 'restoreDashboardVersion',
        summary:
          "Make a published version's config the workbook's draft (edit access); publish it to make it current",
        description:
          'A save of the draft: it adds one to `dashboardDraftVersion`, and with `expectedDraftVersion` (or ' +
          '`If-Match`) a stale draft answers 409 `draft_version_conflict`. The body is optional.',
        params: DashboardVersionParams,
        body: RestoreVersionBody,
        response: { 200: WorkbookDashboard },
      },
      config: write,
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    (r) =>
      dashboards.restore(
        principalOf(r),
        r.params.deploymentId,
        r.params.workbookId,
        r.params.versionNumber,
        r.body,
        ifMatch(r.headers['if-match']),
      ),
  );
  app.post(
    `${base}/publish`,
    {
      schema: {
        tags,
        operationId: 'publishDashboard',
        summary: 'Publish the dashboard: a new version with report snapshots (edit access)',
        description:
          'Spec 4.4. Publishes `config`, or the workbook draft when `config` is omitted, after checking it against the ' +
          'dashboard config shape (theme values must be strings). Every report named by a widget (`config.reportId`) ' +
          'must be a report of this deployment that the caller can view; each is snapshotted. The dashboard keeps its ' +
          `publicId; versionNumber grows by one per publish. ${statusDescription}`,
        params: WorkbookParams,
        body: PublishBody,
        response: { 200: PublishedDashboard },
      },
      config: write,
    },
    (r) => dashboards.publish(principalOf(r), r.params.deploymentId, r.params.workbookId, r.body),
  );
};
