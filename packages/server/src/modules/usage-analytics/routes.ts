import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { UsageAnalyticsTokenResponse } from './schemas.ts';
import type { UsageAnalyticsService } from './service.ts';

const tags = ['Usage Analytics'];

export const usageAnalyticsRoutes: FastifyPluginAsyncTypebox<{ usage: UsageAnalyticsService }> = async (
  app,
  { usage },
) => {
  app.post(
    '/api/v1/usage-analytics/token',
    {
      schema: {
        tags,
        operationId: 'createUsageAnalyticsToken',
        summary: 'Issue a data-API token for Usage Analytics',
        description:
          'Admins only. A data-API token, valid one hour, for the built-in Usage Analytics model of this account: ' +
          'cubes `queries` (SQL editor runs: count, average, p95 and longest duration, by user, deployment, day), ' +
          '`dashboard_views` (opens of published dashboards, by dashboard, viewer, day), `dashboards` (each with ' +
          'its last view; segment `unused`: no view in 30 days) and `activity` (active users by day). Query it at ' +
          "`apiUrl` (`/load`, `/meta`, `/cubesql`, ...) like any deployment. It reads only this account's usage.",
        response: { 200: UsageAnalyticsTokenResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => usage.issue(principalOf(request)),
  );
};
