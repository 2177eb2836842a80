import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { WorkbookParams } from '../workbooks/schemas.ts';
import {
  PublishBody,
  PublishedDashboard,
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
        params: WorkbookParams,
        body: WorkbookDashboardBody,
        response: { 200: WorkbookDashboard },
      },
      config: write,
    },
    (r) => dashboards.updateDraft(principalOf(r), r.params.deploymentId, r.params.workbookId, r.body),
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
