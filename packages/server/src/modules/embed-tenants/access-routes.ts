import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import type { EmbedAccessService } from './access-service.ts';
import {
  DeploymentEmbedTenantParams,
  EmbedAccessResponse,
  EmbedTenantWorkbooksQuery,
  EmbedTenantWorkbooksResponse,
  UpdateEmbedAccessBody,
  WorkbookParams,
} from './schemas.ts';

const tags = ['Dashboard Embed Access'];

export const embedAccessRoutes: FastifyPluginAsyncTypebox<{ access: EmbedAccessService }> = async (
  app,
  { access },
) => {
  const url = '/api/v1/deployments/:deploymentId/workbooks/:workbookId/embed-access';
  app.get(
    url,
    {
      schema: {
        tags,
        operationId: 'getEmbedAccess',
        summary: "List a dashboard's embed access",
        description:
          '`allowEmbed`, whether every embed user may read it, and the embed tenants it is shared with. Read access to ' +
          'the workbook; 404 when it is not in the deployment.',
        params: WorkbookParams,
        response: { 200: EmbedAccessResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => access.get(principalOf(r), r.params.deploymentId, r.params.workbookId),
  );
  app.put(
    url,
    {
      schema: {
        tags,
        operationId: 'updateEmbedAccess',
        summary: "Update a dashboard's embed access",
        description:
          'Exactly one target, `embedTenantName` or `allEmbedUsers: true`, with `action` (`read` shares, `none` ' +
          'unshares), and/or `allowEmbed`. Manage access to the workbook. 404 for an unknown workbook or embed tenant; ' +
          '400 when nothing changes or `allowEmbed` is set on a workbook without a published dashboard.',
        params: WorkbookParams,
        body: UpdateEmbedAccessBody,
        response: { 200: EmbedAccessResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => access.update(principalOf(r), r.params.deploymentId, r.params.workbookId, r.body),
  );
  app.get(
    '/api/v1/deployments/:deploymentId/embed-tenants/:embedTenantName/workbooks',
    {
      schema: {
        tags,
        operationId: 'listEmbedTenantWorkbooks',
        summary: 'List workbooks accessible to an embed tenant',
        description:
          'Shared with the tenant (`accessSource=tenant`), with every embed user (`allEmbedUsers`), or either (no ' +
          'filter). Tessera keeps no folder shares with embed tenants: `folder` lists none. Admin only.',
        params: DeploymentEmbedTenantParams,
        querystring: EmbedTenantWorkbooksQuery,
        response: { 200: EmbedTenantWorkbooksResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => access.tenantWorkbooks(principalOf(r), r.params.deploymentId, r.params.embedTenantName, r.query),
  );
};
