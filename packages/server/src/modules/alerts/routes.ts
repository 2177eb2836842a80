import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import {
  Alert,
  AlertCheck,
  AlertChecksListResponse,
  AlertParams,
  AlertsListQuery,
  AlertsListResponse,
  CreateAlertBody,
  UpdateAlertBody,
} from './schemas.ts';
import type { AlertsService } from './service.ts';

const tags = ['Alerts'];
/** As scheduled notifications: an alert mails whom it names and reads data as them. */
const admin = { access: { role: 'admin' as const } };
const own =
  "Tessera's own: the reference has no alerts. Admin only: the credential must belong to a user with the admin role.";
const notFound = '404 when the alert is not part of this deployment.';

export const alertRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertsService }> = async (app, { alerts }) => {
  const base = '/api/v1/deployments/:deploymentId/alerts';
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'getAlerts',
        summary: 'List alerts on measures',
        description: `Newest first, cursor-paginated (spec 2.4). ${own}`,
        params: DeploymentParams,
        querystring: AlertsListQuery,
        response: { 200: AlertsListResponse },
      },
      config: admin,
    },
    (r) => alerts.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createAlert',
        summary: 'Create an alert on a measure',
        description:
          'Watches one measure (with filters, and a time dimension whose latest period is the value) and tells the ' +
          'recipients when the condition starts to hold: `above`/`below` a `threshold`, or `changeBy` more than ' +
          '`percent` against the previous period (needs the time dimension). A recipient is mailed, or, given as a ' +
          '`url` with a `secret`, receives a JSON POST signed as notification webhooks are (`Tessera-Signature`, ' +
          '`Tessera-Delivery`); the secret is stored sealed and never returned. Once per crossing: nothing more is ' +
          'sent while the condition keeps holding, and the next delivery comes after it stopped and holds again. A ' +
          'delivery that fails for a reason that may pass (SMTP down, a webhook 5xx or unreachable) is retried on ' +
          'later checker passes with doubling backoff, a bounded number of times, still once per crossing. Checked on the ' +
          "schedule of the notifications' fields (`scheduleType`, time fields or `customCron`, IANA `timezone`). " +
          '`securityContext` `owner` (default) reads the measure as the creator; `recipient` as each recipient, whose ' +
          `row-level policies apply, with the state kept per recipient. ${own}`,
        params: DeploymentParams,
        body: CreateAlertBody,
        response: { 200: Alert },
      },
      config: admin,
    },
    (r) => alerts.create(principalOf(r), r.params.deploymentId, r.body),
  );
  app.get(
    `${base}/:alertId`,
    {
      schema: {
        tags,
        operationId: 'getAlert',
        summary: 'Get an alert',
        description: `${own} ${notFound}`,
        params: AlertParams,
        response: { 200: Alert },
      },
      config: admin,
    },
    (r) => alerts.get(principalOf(r), r.params.deploymentId, r.params.alertId),
  );
  app.put(
    `${base}/:alertId`,
    {
      schema: {
        tags,
        operationId: 'updateAlert',
        summary: 'Update an alert',
        description:
          'Any subset of the fields; `recipients` replaces the list (a webhook `url` the alert has, given without ' +
          '`secret`, keeps its secret). Changing what is watched (query, condition, ' +
          'security context, recipients) forgets whether the condition held, so the next check finding it holding ' +
          `delivers again. Changing the cadence restarts the schedule from now. ${own} ${notFound}`,
        params: AlertParams,
        body: UpdateAlertBody,
        response: { 200: Alert },
      },
      config: admin,
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (r) => alerts.update(principalOf(r), r.params.deploymentId, r.params.alertId, r.body),
  );
  app.delete(
    `${base}/:alertId`,
    {
      schema: {
        tags,
        operationId: 'deleteAlert',
        summary: 'Delete an alert, with its state and run log',
        description: `204 on success. ${own} ${notFound}`,
        params: AlertParams,
        response: { 204: Type.Null() },
      },
      config: admin,
    },
    async (r, reply) => {
      await alerts.delete(principalOf(r), r.params.deploymentId, r.params.alertId);
      return reply.code(204).send(null);
    },
  );
  app.post(
    `${base}/:alertId/check`,
    {
      schema: {
        tags,
        operationId: 'checkAlert',
        summary: 'Check an alert now',
        description:
          'Reads the measure now, outside the schedule, and delivers to whoever the condition has just started to hold ' +
          `for, as a scheduled check would. Answers the check's run-log entry. ${own} ${notFound}`,
        params: AlertParams,
        response: { 200: AlertCheck },
      },
      config: admin,
    },
    (r) => alerts.checkNow(principalOf(r), r.params.deploymentId, r.params.alertId),
  );
  app.get(
    `${base}/:alertId/checks`,
    {
      schema: {
        tags,
        operationId: 'getAlertChecks',
        summary: "The alert's run log: each check with each recipient's value and delivery",
        description:
          'Newest first. Per recipient: the value read (and the previous period’s for `changeBy`), whether the ' +
          'condition held, whether it fired (it had not held at the check before), and the delivery’s outcome ' +
          '(`none`, `sending`, `retrying` until `nextAttemptAt`, `sent`, `failed` with its error), with each ' +
          `attempt's outcome in \`attempts\`. ${own} ${notFound}`,
        params: AlertParams,
        querystring: AlertsListQuery,
        response: { 200: AlertChecksListResponse },
      },
      config: admin,
    },
    (r) => alerts.checks(principalOf(r), r.params.deploymentId, r.params.alertId, r.query),
  );
};
