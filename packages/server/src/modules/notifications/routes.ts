import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import type { DashboardExportsService } from './exports.ts';
import {
  DownloadQuery,
  ExportJob,
  ExportJobParams,
  ExportStatus,
  StartExportBody,
} from './exports-schemas.ts';
import type { RecipientsService } from './recipients.ts';
import type { RunLog } from './run-log.ts';
import {
  AddRecipientsBody,
  CreateNotificationBody,
  Notification,
  NotificationParams,
  NotificationsListQuery,
  NotificationsListResponse,
  RecipientsListQuery,
  RecipientsListResponse,
  RecipientsMutationResponse,
  RemoveRecipientsBody,
  RunNowResponse,
  RunsListResponse,
  UpdateNotificationBody,
} from './schemas.ts';
import type { NotificationsService } from './service.ts';

const tags = ['Notifications'];
/** The reference marks every Notifications operation "Admin only". */
const admin = { access: { role: 'admin' as const } };
const adminNote =
  'Admin only: the credential must belong to a user with the admin role. 404 when the notification is not ' +
  'part of this deployment.';

export const notificationRoutes: FastifyPluginAsyncTypebox<{
  notifications: NotificationsService;
  recipients: RecipientsService;
  runs: RunLog;
}> = async (app, { notifications, recipients, runs }) => {
  const base = '/api/v1/deployments/:deploymentId/notifications';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getNotifications',
        summary: 'List scheduled notifications',
        description:
          'Newest first, cursor-paginated (spec 2.4). Filters (spec 4): a dashboard by `dashboardId` or ' +
          '`dashboardPublicId` (not both), and a recipient: a user by `recipientUserId` or `recipientEmail`, or an ' +
          'embed user by `recipientEmbedTenantName` with `recipientExternalId`. Admin only.',
        params: DeploymentParams,
        querystring: NotificationsListQuery,
        response: { 200: NotificationsListResponse },
      },
      config: admin,
    },
    (r) =>
      notifications.list(principalOf(r), r.params.deploymentId, r.query, (tenantId, q) =>
        recipients.listFilter(tenantId, q),
      ),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createNotification',
        summary: 'Create a scheduled notification',
        description:
          'Spec 4.5. `scheduleType` with its time fields (ranges of spec 8), or `customCron` (5 fields) when ' +
          'CUSTOM, evaluated in `timezone` (an IANA name, default UTC); exactly one of `dashboardId` and ' +
          "`dashboardPublicId`, a dashboard of this deployment (404 otherwise). It renders under the creator's " +
          'security context. `notificationFormat` png (default) or pdf. Created without recipients. Admin only.',
        params: DeploymentParams,
        body: CreateNotificationBody,
        response: { 200: Notification },
      },
      config: admin,
    },
    (r) => notifications.create(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'getNotification',
        summary: 'Get a scheduled notification',
        description: adminNote,
        params: NotificationParams,
        response: { 200: Notification },
      },
      config: admin,
    },
    (r) => notifications.get(principalOf(r), r.params.deploymentId, r.params.id),
  );
  app.put(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'updateNotification',
        summary: 'Update a scheduled notification',
        description:
          'Any subset of the fields; omitted ones are unchanged, and `filters`/`timeGrains` replace the stored ' +
          'ones when given. Enabling or changing the cadence restarts the schedule from now (no catch-up). ' +
          `Recipients are never changed here. ${adminNote}`,
        params: NotificationParams,
        body: UpdateNotificationBody,
        response: { 200: Notification },
      },
      config: admin,
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (r) => notifications.update(principalOf(r), r.params.deploymentId, r.params.id, r.body),
  );
  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'deleteNotification',
        summary: 'Delete a scheduled notification, with its recipients and run log',
        description: `204 on success. ${adminNote}`,
        params: NotificationParams,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await notifications.delete(principalOf(r), r.params.deploymentId, r.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${base}/:id/recipients`,
    {
      schema: {
        tags,
        operationId: 'getRecipients',
        summary: 'List notification recipients',
        description: `Newest first, cursor-paginated. ${adminNote}`,
        params: NotificationParams,
        querystring: RecipientsListQuery,
        response: { 200: RecipientsListResponse },
      },
      config: admin,
    },
    (r) => recipients.list(principalOf(r), r.params.deploymentId, r.params.id, r.query),
  );
  app.post(
    `${base}/:id/recipients`,
    {
      schema: {
        tags,
        operationId: 'addRecipients',
        summary: 'Add notification recipients',
        description:
          '1-1000 recipients: `USER` (`userId` or `email` of an active account user), `EMBED_USER` ' +
          '(`embedTenantName` + `externalId`, provisioned if new; its `securityContext`, `groups` and ' +
          '`userAttributes` are what its copy is rendered under), `EMAIL` (any address, optional `username`), ' +
          '`WEBHOOK` (`url`; `secret` signs the POST, generated and returned once when omitted). `SLACK` is ' +
          '400. Every recipient must resolve to an email (or URL) or the whole request is 400 and nothing is ' +
          'written. Idempotent: each recipient is bucketed into created, updated or unchanged. ' +
          adminNote,
        params: NotificationParams,
        body: AddRecipientsBody,
        response: { 200: RecipientsMutationResponse },
      },
      config: admin,
    },
    (r) => recipients.add(principalOf(r), r.params.deploymentId, r.params.id, r.body),
  );
  app.delete(
    `${base}/:id/recipients`,
    {
      schema: {
        tags,
        operationId: 'removeRecipients',
        summary: 'Remove notification recipients',
        description:
          'Each entry is `type` plus `id`: the userId (USER), embedUserId (EMBED_USER, with `embedTenantName`), ' +
          'the address (EMAIL) or URL (WEBHOOK) or their recipientId. Idempotent; 204. ' +
          adminNote,
        params: NotificationParams,
        body: RemoveRecipientsBody,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await recipients.remove(principalOf(r), r.params.deploymentId, r.params.id, r.body);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${base}/:id/runs`,
    {
      schema: {
        tags,
        operationId: 'getNotificationRuns',
        summary: 'The run log: one entry per fire time, with each recipient’s delivery',
        description:
          'Newest first. A run is `pending` (waiting for its first or next attempt), `running`, `succeeded`, ' +
          '`partially_failed` (some deliveries failed, or some widgets could not be shown: `failedWidgets`) or ' +
          '`failed`. Each delivery has its state, attempts and last error. ' +
          adminNote,
        params: NotificationParams,
        querystring: RecipientsListQuery,
        response: { 200: RunsListResponse },
      },
      config: admin,
    },
    (r) => runs.list(principalOf(r), r.params.deploymentId, r.params.id, r.query),
  );
  app.post(
    `${base}/:id/runs`,
    {
      schema: {
        tags,
        operationId: 'runNotificationNow',
        summary: 'Send the notification now, outside its schedule',
        description:
          'Plans a run for the current second; the scheduler delivers it on its next pass. Its state is in the run ' +
          `log. ${adminNote}`,
        params: NotificationParams,
        response: { 200: RunNowResponse },
      },
      config: admin,
    },
    (r) => runs.runNow(principalOf(r), r.params.deploymentId, r.params.id),
  );
};

export const dashboardExportRoutes: FastifyPluginAsyncTypebox<{ exports: DashboardExportsService }> = async (
  app,
  { exports },
) => {
  const exportTags = ['Dashboard Exports'];
  const base = '/api/v1/deployments/:deploymentId/dashboard-exports';
  const member = { access: { role: 'viewer' as const } };
  app.addHook('onReady', async () => exports.setLogger(app.log));
  app.post(
    base,
    {
      schema: {
        tags: exportTags,
        operationId: 'startExport',
        summary: 'Export a dashboard as PNG or PDF',
        description:
          'Submits a render of a published dashboard (`dashboardId` or `dashboardPublicId`, exactly one, of this ' +
          'deployment: 404 otherwise) with optional `filters` and `timeGrains`; answers at once. Poll ' +
          '`GET /dashboard-exports/{jobId}`, then download; the job and its file are dropped at `expiresAt` ' +
          "(5 minutes). Renders under the caller's security context and needs manage access to the dashboard's " +
          'workbook; `renderAs` (a USER by `userId`/`email`, or an EMBED_USER by `embedTenantName` + ' +
          '`externalId`, provisioned if new) needs a tenant administrator. 429 when 5 of your exports are rendering.',
        params: DeploymentParams,
        body: StartExportBody,
        response: { 200: ExportJob },
      },
      config: member,
    },
    (r) => exports.start(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/:jobId`,
    {
      schema: {
        tags: exportTags,
        operationId: 'getExportStatus',
        summary: 'Get the status of a dashboard export',
        description:
          '`pending` and `processing`: keep polling; `completed`: download it; `failed`: read `error`. 404 once ' +
          'the job expired, and for a job another user submitted.',
        params: ExportJobParams,
        response: { 200: ExportStatus },
      },
      config: member,
    },
    (r) => exports.status(principalOf(r), r.params.deploymentId, r.params.jobId),
  );
  app.get(
    `${base}/:jobId/download`,
    {
      schema: {
        tags: exportTags,
        operationId: 'downloadExport',
        summary: 'Download a completed dashboard export',
        description:
          'The file as an attachment, `dashboard.png` / `dashboard.pdf` unless `filename` gives another stem. ' +
          '409 while rendering, 422 if the render failed, 404 once expired or for another user’s job.',
        params: ExportJobParams,
        querystring: DownloadQuery,
        response: {
          200: {
            description: 'The rendered dashboard.',
            content: {
              'image/png': { schema: Type.String({ format: 'binary' }) },
              'application/pdf': { schema: Type.String({ format: 'binary' }) },
            },
          },
        },
      },
      config: member,
    },
    async (r, reply) => {
      const file = await exports.download(principalOf(r), r.params.deploymentId, r.params.jobId);
      const stem = (r.query.filename ?? 'dashboard').trim() || 'dashboard';
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${stem}.${file.format}"`)
        .send(file.file as never);
    },
  );
};
