import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams, Success } from '../deployments/schemas.ts';
import {
  CreateReportBody,
  Report,
  ReportParams,
  ReportPublicIdParams,
  ReportsListQuery,
  ReportsListResponse,
  UpdateReportBody,
} from './schemas.ts';
import type { ReportsService } from './service.ts';

const tags = ['Reports'];
/**
 * Embed tokens in creator mode (spec 4.3 rules 1 and 2) work here too, inside their embed tenant's
 * space (permissions/access.ts); other embed tokens get 403 `embed_creator_mode_required`.
 */
const read = { access: { role: 'viewer' as const, embed: 'create' as const } };
const write = { access: { role: 'developer' as const, embed: 'create' as const } };

export const reportRoutes: FastifyPluginAsyncTypebox<{ reports: ReportsService }> = async (
  app,
  { reports },
) => {
  const base = '/api/v1/deployments/:deploymentId/reports';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getReports',
        summary: 'List the reports the caller can view',
        description:
          'Cursor pagination with `first`/`after`, or page numbers with `limit`/`page`. Sorting by `lastViewedAt` (per viewer) refuses cursors with 400. Default order: `createdAt` descending (`name` ascending).',
        params: DeploymentParams,
        querystring: ReportsListQuery,
        response: { 200: ReportsListResponse },
      },
      config: read,
    },
    (r) => reports.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createReport',
        summary: 'Create a report; the creator gets manage access',
        params: DeploymentParams,
        body: CreateReportBody,
        response: { 200: Report },
      },
      config: write,
    },
    (r) => reports.create(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/:reportId`,
    {
      schema: {
        tags,
        operationId: 'getReport',
        summary: "Get a report (view access); records the caller's view",
        params: ReportParams,
        response: { 200: Report },
      },
      config: read,
    },
    (r) => reports.get(principalOf(r), r.params.deploymentId, r.params.reportId),
  );
  app.put(
    `${base}/:reportId`,
    {
      schema: {
        tags,
        operationId: 'updateReport',
        summary: 'Update a report (edit access); only the fields sent change',
        params: ReportParams,
        body: UpdateReportBody,
        response: { 200: Report },
      },
      config: write,
    },
    (r) => reports.update(principalOf(r), r.params.deploymentId, r.params.reportId, r.body),
  );
  app.delete(
    `${base}/:reportId`,
    {
      schema: {
        tags,
        operationId: 'deleteReport',
        summary: 'Delete a report (manage access)',
        params: ReportParams,
        response: { 200: Success },
      },
      config: write,
    },
    (r) => reports.delete(principalOf(r), r.params.deploymentId, r.params.reportId),
  );
  app.put(
    `${base}/by-public-id/:publicId`,
    {
      schema: {
        tags,
        operationId: 'upsertReportByPublicId',
        summary: 'Create or update a report by its publicId (idempotent)',
        description:
          'When a report of this deployment holds the publicId it is updated as `PUT .../reports/{reportId}` does ' +
          '(edit access; only the fields sent change); otherwise one is created with it, with the access ' +
          "`POST .../reports` needs. A `publicId` in the body must equal the path's. Concurrent identical " +
          'requests create one report; the others update it. 409 `upsert_branch_changed`: the report holding the ' +
          'publicId kept being created and deleted under the request; retry it. Reports here always store their ' +
          "publicId, so the reference's `ambiguous_legacy_id` never arises.",
        params: ReportPublicIdParams,
        body: CreateReportBody,
        response: { 200: Report },
      },
      config: write,
      // The body is optional (the reference): no body means `{}`.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    (r) => reports.upsertByPublicId(principalOf(r), r.params.deploymentId, r.params.publicId, r.body),
  );
};
