import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import type { WorkbookDuplicator } from './duplicate.ts';
import {
  CreateWorkbookBody,
  DuplicateWorkbookBody,
  UpdateWorkbookBody,
  Workbook,
  WorkbookParams,
  WorkbookSlugParams,
  WorkbooksListQuery,
  WorkbooksListResponse,
} from './schemas.ts';
import type { WorkbooksService } from './service.ts';

const tags = ['Workbooks'];
/**
 * Embed tokens in creator mode (spec 4.3 rules 1 and 2) work here too, inside their embed tenant's
 * space (permissions/access.ts); other embed tokens get 403 `embed_creator_mode_required`.
 */
const read = { access: { role: 'viewer' as const, embed: 'create' as const } };
const write = { access: { role: 'developer' as const, embed: 'create' as const } };

export const workbookRoutes: FastifyPluginAsyncTypebox<{
  workbooks: WorkbooksService;
  duplicator: WorkbookDuplicator;
}> = async (app, { workbooks, duplicator }) => {
  const base = '/api/v1/deployments/:deploymentId/workbooks';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getWorkbooks',
        summary: 'List the workbooks the caller can view, in id order',
        params: DeploymentParams,
        querystring: WorkbooksListQuery,
        response: { 200: WorkbooksListResponse },
      },
      config: read,
    },
    (r) => workbooks.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createWorkbook',
        summary: 'Create a workbook; the creator gets manage access',
        params: DeploymentParams,
        body: CreateWorkbookBody,
        response: { 200: Workbook },
      },
      config: write,
    },
    (r) => workbooks.create(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/:workbookId`,
    {
      schema: {
        tags,
        operationId: 'getWorkbook',
        summary: 'Get a workbook with its draft and published dashboard (view access)',
        params: WorkbookParams,
        response: { 200: Workbook },
      },
      config: read,
    },
    (r) => workbooks.get(principalOf(r), r.params.deploymentId, r.params.workbookId),
  );
  app.put(
    `${base}/:workbookId`,
    {
      schema: {
        tags,
        operationId: 'updateWorkbook',
        summary: 'Update a workbook (edit access; sending folderId moves it and needs manage)',
        params: WorkbookParams,
        body: UpdateWorkbookBody,
        response: { 200: Workbook },
      },
      config: write,
    },
    (r) => workbooks.update(principalOf(r), r.params.deploymentId, r.params.workbookId, r.body),
  );
  app.delete(
    `${base}/:workbookId`,
    {
      schema: {
        tags,
        operationId: 'deleteWorkbook',
        summary: 'Delete a workbook and its dashboard (manage access); its reports stay',
        params: WorkbookParams,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => workbooks.delete(principalOf(r), r.params.deploymentId, r.params.workbookId),
  );
  app.post(
    `${base}/:workbookId/duplicate`,
    {
      schema: {
        tags,
        operationId: 'duplicateWorkbook',
        summary: 'Clone a workbook with its reports and published dashboard (view access)',
        params: WorkbookParams,
        body: DuplicateWorkbookBody,
        response: { 200: Workbook },
      },
      config: write,
      // The body is optional (spec 4): no body means `{}`.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    (r) =>
      duplicator.duplicate(
        principalOf(r),
        r.params.deploymentId,
        r.params.workbookId,
        r.body?.shared === true,
      ),
  );
  app.put(
    `${base}/by-slug/:slug`,
    {
      schema: {
        tags,
        operationId: 'upsertWorkbookBySlug',
        summary: 'Create or update a workbook by its slug (idempotent)',
        description:
          'The slug is trimmed and lowercased. When a workbook of this deployment holds it, it is updated: only the ' +
          'fields sent change, `meta` is merged into its metadata; that needs edit access, and manage plus edit on ' +
          'the destination when `folderId` is sent. Otherwise a workbook is created with this slug, with the access ' +
          '`POST .../workbooks` needs. Concurrent identical requests create one workbook; the others update it. ' +
          '409 `upsert_branch_changed`: the workbook holding the slug kept being created and deleted under the ' +
          'request; retry it.',
        params: WorkbookSlugParams,
        body: CreateWorkbookBody,
        response: { 200: Workbook },
      },
      config: write,
      // The body is optional (the reference): no body means `{}`.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    (r) => workbooks.upsertBySlug(principalOf(r), r.params.deploymentId, r.params.slug, r.body),
  );
};
