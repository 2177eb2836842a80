import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import {
  FileHashesResponse,
  FinishUploadBody,
  FinishUploadResponse,
  StartUploadResponse,
  UploadFileBody,
  UploadQuery,
} from './upload-schemas.ts';
import type { UploadService } from './upload-service.ts';

const tags = ['Data Model Uploads'];
const base = '/build/api/v1/deployments/:deploymentId/data-model';
const read = { access: { role: 'viewer' as const } };
const write = { access: { role: 'developer' as const } };

/** The reference's Data Model Uploads operations (platform-api.yaml). */
export const uploadRoutes: FastifyPluginAsyncTypebox<{ uploads: UploadService }> = async (
  app,
  { uploads },
) => {
  app.get(
    `${base}/file-hashes`,
    {
      schema: {
        tags,
        operationId: 'fileHashes',
        summary: 'Content hashes of the current data-model files (for upload diffing)',
        params: DeploymentParams,
        querystring: UploadQuery,
        response: { 200: FileHashesResponse },
      },
      config: read,
    },
    (r) => uploads.fileHashes(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    `${base}/upload/start`,
    {
      schema: {
        tags,
        operationId: 'startUpload',
        summary: 'Start a data-model upload transaction',
        description: 'An unfinished transaction expires after an hour.',
        params: DeploymentParams,
        querystring: UploadQuery,
        response: { 200: StartUploadResponse },
      },
      config: write,
    },
    (r) => uploads.start(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    `${base}/upload/file`,
    {
      schema: {
        tags,
        operationId: 'uploadFile',
        summary: 'Upload a single file into an open transaction',
        description:
          'Deviation from the reference: the body is JSON `{transaction, fileName, file}` with the ' +
          'file as UTF-8 text, not multipart/form-data. Uploading a path again replaces it.',
        params: DeploymentParams,
        querystring: UploadQuery,
        body: UploadFileBody,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => uploads.uploadFile(principalOf(r), r.params.deploymentId, r.body),
  );
  app.post(
    `${base}/upload/finish`,
    {
      schema: {
        tags,
        operationId: 'finishUpload',
        summary: 'Finish the upload transaction (prune removed files) and trigger a build',
        description:
          'Applies the transaction to its branch in one database transaction: uploaded files are ' +
          'written and, unless `autoRemoveFiles` is false, branch files missing from `files` are ' +
          'removed. A transaction applies once; finishing it again answers 409.',
        params: DeploymentParams,
        querystring: UploadQuery,
        body: FinishUploadBody,
        response: { 200: FinishUploadResponse },
      },
      config: write,
    },
    (r) => uploads.finish(principalOf(r), r.params.deploymentId, r.body),
  );
};
