import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import { GrantBody, Permission, PermissionParams, PermissionsQuery, PermissionsResponse } from './schemas.ts';
import type { PermissionsService } from './service.ts';

const tags = ['Workspace'];

export const permissionRoutes: FastifyPluginAsyncTypebox<{ permissions: PermissionsService }> = async (
  app,
  { permissions },
) => {
  const base = '/api/v1/deployments/:deploymentId/permissions';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'listContentPermissions',
        summary: 'Grants on one folder, workbook or report (view access to it)',
        params: DeploymentParams,
        querystring: PermissionsQuery,
        response: { 200: PermissionsResponse },
      },
      config: { access: { role: 'viewer', embed: 'create' } },
    },
    (r) => permissions.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.put(
    base,
    {
      schema: {
        tags,
        operationId: 'grantContentPermission',
        summary: 'Grant a user or group view, edit or manage on an item, or change the level (manage access)',
        params: DeploymentParams,
        body: GrantBody,
        response: { 200: Permission },
      },
      config: { access: { role: 'developer', embed: 'create' } },
    },
    (r) => permissions.grant(principalOf(r), r.params.deploymentId, r.body),
  );
  app.delete(
    `${base}/:permissionId`,
    {
      schema: {
        tags,
        operationId: 'revokeContentPermission',
        summary: 'Revoke a grant (manage access to its item)',
        params: PermissionParams,
        response: { 200: Success },
      },
      config: { access: { role: 'developer', embed: 'create' } },
    },
    (r) => permissions.revoke(principalOf(r), r.params.deploymentId, r.params.permissionId),
  );
};
