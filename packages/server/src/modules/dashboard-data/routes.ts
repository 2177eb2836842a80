import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { WidgetData, WidgetDataBody, WidgetDataParams } from './schemas.ts';
import type { DashboardDataService } from './service.ts';

export const dashboardDataRoutes: FastifyPluginAsyncTypebox<{ dashboardData: DashboardDataService }> = async (
  app,
  { dashboardData },
) => {
  app.post(
    '/api/v1/deployments/:deploymentId/dashboards/:publicId/widgets/:widgetId/data',
    {
      schema: {
        tags: ['Dashboards'],
        operationId: 'getDashboardWidgetData',
        summary:
          "A widget's rows on a published dashboard, under the viewer's security context (view access)",
        description:
          'Runs the query of the report a widget shows, as snapshotted in the published version ' +
          "(`versionNumber`, default the current one), through the data API under the CALLER's security context " +
          "(`serviceCloud.groups` = the user's global groups, `serviceCloud.userAttributes`, `user {id, email}`), so " +
          'that row- and member-level access policies apply as on `/v1/load`. Needs view access to the ' +
          "dashboard's workbook (403); 404 for an unknown dashboard, version or widget, a widget without a report, " +
          'or a dashboard of another deployment.\n\n' +
          'Semantic widgets: `filters` (spec 2.5 shape; `operator` defaults to `equals`, any Cube filter operator; ' +
          "`value` or `values`) are ANDed to the report's filters and must name members of the model the viewer " +
          'can see (400 `unknown_member` names it); `startInclusive`/`endInclusive` false make `inDateRange` ' +
          'exclusive; `caseSensitive` must match the operator (exact operators are case-sensitive, the contains ' +
          "family is not). `timeGrains` replace the granularity of the widget's time dimension on that member; " +
          'widgets not grouped by it are unchanged. `data` are the rows as `/v1/load` formats them, with ' +
          '`annotation` and `totalRows`.\n\n' +
          'SQL-API widgets: filters are applied by wrapping the report SQL (`SELECT * FROM (...) WHERE ...`) on ' +
          'its output columns: `member` must name a column (400 `unknown_column`), operators equals, notEquals, in, ' +
          'notIn, gt, gte, lt, lte, set, notSet (400 `operator_unsupported` otherwise). Time grains cannot be ' +
          'applied to SQL text: 400 `time_grain_unsupported`. `data` are objects of the `/v1/cubesql` text values, ' +
          'with `columns`.',
        params: WidgetDataParams,
        body: WidgetDataBody,
        response: { 200: WidgetData },
      },
      config: { access: { role: 'viewer' as const, embed: true as const } },
      // Every field is optional: an empty POST asks for the widget as published (as tokens/routes.ts).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (r) =>
      dashboardData.widgetData(
        principalOf(r),
        r.params.deploymentId,
        r.params.publicId,
        r.params.widgetId,
        r.body,
      ),
  );
};
