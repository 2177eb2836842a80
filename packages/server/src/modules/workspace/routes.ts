import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import type { MoveService } from './move-service.ts';
import { MoveBody, WorkspaceItem, WorkspaceListResponse, WorkspaceQuery } from './schemas.ts';
import type { WorkspaceService } from './service.ts';

const tags = ['Workspace'];

export const workspaceRoutes: FastifyPluginAsyncTypebox<{
  workspace: WorkspaceService;
  mover: MoveService;
}> = async (app, { workspace, mover }) => {
  const base = '/api/v1/deployments/:deploymentId';
  app.get(
    `${base}/workspace`,
    {
      schema: {
        tags,
        operationId: 'workspaceObjects',
        summary:
          'One level of the workspace tree: folders first, then workbooks and reports the caller can view',
        description:
          'Walk the tree with `folderId` (each item carries its `folderPath`); `search` matches names across all folders.',
        params: DeploymentParams,
        querystring: WorkspaceQuery,
        response: { 200: WorkspaceListResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => workspace.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.get(
    `${base}/shared-workspace`,
    {
      schema: {
        tags,
        operationId: 'sharedWorkspaceObjects',
        summary: 'Items others own that are shared with the caller (owners blanked)',
        description:
          'For an embed token in creator mode: the workbooks shared with all embed users or with its embed tenant ' +
          '(Dashboard Embed Access), the same set for every embed user of the tenant, listed flat unless `folderId` ' +
          'is given. Owner identities (`userId`, `createdBy`, `user`) are always null.',
        params: DeploymentParams,
        querystring: WorkspaceQuery,
        response: { 200: WorkspaceListResponse },
      },
      // The reference's feed for embed users; creator mode, as the rest of the tenant space.
      config: { access: { role: 'viewer', embed: 'create' } },
    },
    (r) => workspace.list(principalOf(r), r.params.deploymentId, r.query, true),
  );
  app.post(
    `${base}/workspace/move`,
    {
      schema: {
        tags,
        operationId: 'moveWorkspaceObject',
        summary: 'Move a workbook, report or folder (spec 4.2)',
        description:
          'Workbook: manage on it, plus edit on the destination folder. Report: edit on it with the report-manage ' +
          'permission (developer or admin role), plus edit on the destination. Folder: manage on it, plus edit or manage ' +
          'on the new parent. 404: the item does not exist or belongs to another deployment. 400: a folder into itself ' +
          'or a descendant, a destination that is not a folder of this deployment, too deep a tree.',
        params: DeploymentParams,
        body: MoveBody,
        response: { 200: WorkspaceItem },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => mover.move(principalOf(r), r.params.deploymentId, r.body),
  );
};
