import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import type { BulkService } from './bulk-service.ts';
import type { MoveService } from './move-service.ts';
import {
  BulkDeleteBody,
  BulkDeleteResponse,
  BulkMoveBody,
  BulkMoveResponse,
  MoveBody,
  WorkspaceItem,
  WorkspaceListResponse,
  WorkspaceQuery,
} from './schemas.ts';
import type { WorkspaceService } from './service.ts';

const tags = ['Workspace'];

export const workspaceRoutes: FastifyPluginAsyncTypebox<{
  workspace: WorkspaceService;
  mover: MoveService;
  bulk: BulkService;
}> = async (app, { workspace, mover, bulk }) => {
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
  app.post(
    `${base}/workspace/bulk-move`,
    {
      schema: {
        tags,
        operationId: 'bulkMoveWorkspaceObjects',
        summary: 'Move up to 100 workspace items into one folder, all or nothing (spec 4.2)',
        description:
          'Each item is checked with the rules of `POST .../workspace/move`; repeated references are collapsed. ' +
          'Unlike the hosted product, which applies items one by one and lists the failures, Tessera applies the ' +
          "batch in one transaction: when any item is refused, nothing moves and the answer is that item's error " +
          '(its status: 400, 403 or 404), naming its index as `items[i]` in the message and `body/items/i` in ' +
          '`errors`. A 200 therefore always has an empty `failed`.',
        params: DeploymentParams,
        body: BulkMoveBody,
        response: { 200: BulkMoveResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => bulk.move(principalOf(r), r.params.deploymentId, r.body),
  );
  app.post(
    `${base}/workspace/bulk-delete`,
    {
      schema: {
        tags,
        operationId: 'bulkDeleteWorkspaceObjects',
        summary: 'Delete up to 100 workbooks, reports and folders, all or nothing (spec 4.5)',
        description:
          'Each item is checked with the rules of its single delete: manage on a workbook, report or folder; a ' +
          'folder with sub-folders is refused unless they are deleted in the same batch; what a deleted folder holds ' +
          'goes back to the root. One transaction: when any item is refused, nothing is deleted and the answer is ' +
          "that item's error, naming its index as `items[i]` in the message and `body/items/i` in `errors`. " +
          'A 200 therefore always has an empty `failed`.',
        params: DeploymentParams,
        body: BulkDeleteBody,
        response: { 200: BulkDeleteResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => bulk.delete(principalOf(r), r.params.deploymentId, r.body),
  );
};
