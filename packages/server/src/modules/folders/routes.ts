import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import {
  CreateFolderBody,
  Folder,
  FolderParams,
  FoldersListQuery,
  FoldersListResponse,
  UpdateFolderBody,
} from './schemas.ts';
import type { FoldersService } from './service.ts';

const tags = ['Folders'];
const read = { access: { role: 'viewer' as const } };
const write = { access: { role: 'developer' as const } };

export const folderRoutes: FastifyPluginAsyncTypebox<{ folders: FoldersService }> = async (
  app,
  { folders },
) => {
  const base = '/api/v1/deployments/:deploymentId/folders';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getFolders',
        summary: 'List the folders of one level of the workspace that the caller can view',
        params: DeploymentParams,
        querystring: FoldersListQuery,
        response: { 200: FoldersListResponse },
      },
      config: read,
    },
    (r) => folders.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createFolder',
        summary: 'Create a folder; nesting needs edit access to the parent. The creator gets manage.',
        params: DeploymentParams,
        body: CreateFolderBody,
        response: { 200: Folder },
      },
      config: write,
    },
    (r) => folders.create(principalOf(r), r.params.deploymentId, r.body),
  );
  app.put(
    `${base}/:folderId`,
    {
      schema: {
        tags,
        operationId: 'updateFolder',
        summary: 'Rename or reorder a folder (edit access); moving is POST /workspace/move',
        params: FolderParams,
        body: UpdateFolderBody,
        response: { 200: Folder },
      },
      config: write,
    },
    (r) => folders.update(principalOf(r), r.params.deploymentId, r.params.folderId, r.body),
  );
  app.delete(
    `${base}/:folderId`,
    {
      schema: {
        tags,
        operationId: 'deleteFolder',
        summary: 'Delete a folder without child folders; its workbooks and reports return to the root',
        description:
          'Spec 4.5: 204 on success; 400 while the folder has child folders; 404 when it does not exist or belongs to another deployment; needs manage access.',
        params: FolderParams,
        response: { 204: Type.Null() },
      },
      config: write,
    },
    async (r, reply) => {
      await folders.delete(principalOf(r), r.params.deploymentId, r.params.folderId);
      return reply.code(204).send(null);
    },
  );
  app.get(
    `${base}/:folderId/ancestors`,
    {
      schema: {
        tags,
        operationId: 'getFolderAncestors',
        summary: 'The folder chain from the workspace root down to and including the folder',
        params: FolderParams,
        response: { 200: Type.Array(Folder) },
      },
      config: read,
    },
    (r) => folders.ancestors(principalOf(r), r.params.deploymentId, r.params.folderId),
  );
};
