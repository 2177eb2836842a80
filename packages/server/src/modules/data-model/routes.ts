import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import {
  BranchesResponse,
  CreateBranchBody,
  DevModeBody,
  DevModeResponse,
  FilesResponse,
  GenerateModelBody,
  GenerateModelResponse,
  ListFilesQuery,
  RemoveBranchQuery,
  RemoveFilesBody,
  RenameFilesBody,
  UpdateFilesBody,
  UpdateFilesResponse,
  ValidateDraftBody,
  ValidateDraftResponse,
  ValidateQuery,
  ValidateResponse,
} from './schemas.ts';
import type { DataModelService } from './service.ts';

const tags = ['Data Model'];
const base = '/build/api/v1/deployments/:deploymentId';
const read = { access: { role: 'viewer' as const } };
const write = { access: { role: 'developer' as const } };

/** The reference's Data Model operations; its Data Model Uploads group is in upload-routes.ts. */
export const dataModelRoutes: FastifyPluginAsyncTypebox<{ dataModel: DataModelService }> = async (
  app,
  { dataModel },
) => {
  app.get(
    `${base}/data-model/files`,
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List the data-model source files for a deployment',
        params: DeploymentParams,
        querystring: ListFilesQuery,
        response: { 200: FilesResponse },
      },
      config: read,
    },
    (r) => dataModel.listFiles(principalOf(r), r.params.deploymentId, r.query),
  );
  app.put(
    `${base}/data-model/files`,
    {
      schema: {
        tags,
        operationId: 'updateFiles',
        summary: 'Create or overwrite data-model source files',
        params: DeploymentParams,
        body: UpdateFilesBody,
        response: { 200: UpdateFilesResponse },
      },
      config: write,
    },
    (r) => dataModel.updateFiles(principalOf(r), r.params.deploymentId, r.body),
  );
  app.delete(
    `${base}/data-model/files`,
    {
      schema: {
        tags,
        operationId: 'removeFiles',
        summary: 'Delete data-model source files',
        params: DeploymentParams,
        body: RemoveFilesBody,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => dataModel.removeFiles(principalOf(r), r.params.deploymentId, r.body),
  );
  app.post(
    `${base}/data-model/files/rename`,
    {
      schema: {
        tags,
        operationId: 'renameFiles',
        summary: 'Rename data-model source files',
        params: DeploymentParams,
        body: RenameFilesBody,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => dataModel.renameFiles(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/data-model/validate`,
    {
      schema: {
        tags,
        operationId: 'validateDataModel',
        summary: "Compile a deployment's data model and report compilation errors",
        params: DeploymentParams,
        querystring: ValidateQuery,
        response: { 200: ValidateResponse },
      },
      config: read,
    },
    (r) => dataModel.validate(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    `${base}/dev-mode`,
    {
      schema: {
        tags,
        operationId: 'startDevMode',
        summary: 'Enter dev mode (switch to a branch)',
        params: DeploymentParams,
        body: DevModeBody,
        response: { 200: DevModeResponse },
      },
      config: write,
    },
    (r) => dataModel.startDevMode(principalOf(r), r.params.deploymentId, r.body ?? {}),
  );
  app.delete(
    `${base}/dev-mode`,
    {
      schema: {
        tags,
        operationId: 'stopDevMode',
        summary: 'Exit dev mode',
        params: DeploymentParams,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => dataModel.stopDevMode(principalOf(r), r.params.deploymentId),
  );
  app.get(
    `${base}/branches`,
    {
      schema: {
        tags,
        operationId: 'listBranches',
        summary: "List a deployment's branches",
        params: DeploymentParams,
        response: { 200: BranchesResponse },
      },
      config: read,
    },
    (r) => dataModel.branches(principalOf(r), r.params.deploymentId),
  );
  app.post(
    `${base}/branches`,
    {
      schema: {
        tags,
        operationId: 'createBranch',
        summary: 'Create a branch (optionally entering dev mode on it)',
        params: DeploymentParams,
        body: CreateBranchBody,
        response: { 200: DevModeResponse },
      },
      config: write,
    },
    (r) => dataModel.createBranch(principalOf(r), r.params.deploymentId, r.body),
  );
  app.delete(
    `${base}/branches`,
    {
      schema: {
        tags,
        operationId: 'removeBranch',
        summary: 'Delete a branch',
        params: DeploymentParams,
        querystring: RemoveBranchQuery,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => dataModel.removeBranch(principalOf(r), r.params.deploymentId, r.query.branchName),
  );
  app.post(
    `${base}/data-model/validate`,
    {
      schema: {
        tags,
        operationId: 'validateDataModelDraft',
        summary:
          "Compile unsaved file contents over a branch's files and report the errors (nothing is stored)",
        params: DeploymentParams,
        body: ValidateDraftBody,
        response: { 200: ValidateDraftResponse },
      },
      config: write,
    },
    (r) => dataModel.validateDraft(principalOf(r), r.params.deploymentId, r.body),
  );
  app.post(
    `${base}/data-model/generate`,
    {
      schema: {
        tags,
        operationId: 'generateDataModel',
        summary:
          "A starting data model (YAML files) from tables of the deployment's data source; stores nothing",
        params: DeploymentParams,
        body: GenerateModelBody,
        response: { 200: GenerateModelResponse },
      },
      config: write,
    },
    (r) => dataModel.generate(principalOf(r), r.params.deploymentId, r.body),
  );
};
