import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { clientGone } from '../data/client-gone.ts';
import {
  DimensionValues,
  DimensionValuesBody,
  DimensionValuesParams,
  ReportData,
  ReportDataBody,
  ReportDataParams,
  WidgetData,
  WidgetDataBody,
  WidgetDataParams,
} from './schemas.ts';
import type { DashboardDataService } from './service.ts';
import { xlsxContentType } from './xlsx.ts';

/**
 * A Content-Disposition naming the file after a title: an ASCII fallback and the UTF-8 name
 * (RFC 6266 section 4.3, RFC 8187), so that a title in any script survives.
 */
function attachment(title: string, extension: string): string {
  const stem =
    title
      .trim()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'data';
  const ascii = stem.replace(/[^A-Za-z0-9-]/g, '_');
  return `attachment; filename="${ascii}.${extension}"; filename*=UTF-8''${encodeURIComponent(`${stem}.${extension}`)}`;
}

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
          "SQL-API widgets take the dashboard's filters and time grains where the member is in the SQL's " +
          'projection: a filter whose member is an output column as is (`SELECT status ... FROM orders` projects ' +
          '`orders.status`), or names an output column, is applied by wrapping the report SQL ' +
          '(`SELECT * FROM (...) WHERE ...`; equals, notEquals, in, notIn, gt, gte, lt, lte, set, notSet, ' +
          "contains, notContains, startsWith, endsWith); a time grain replaces the unit of the SQL's " +
          "`DATE_TRUNC('<unit>', <member>)`. A filter on a member the projection lacks, a date range or another " +
          'operator is not applied and is listed in `notApplied`, so that a viewer can show it; a member that is ' +
          'neither a model member nor a column is 400 `unknown_column`. `data` are objects of the `/v1/cubesql` ' +
          'text values, with `columns`.',
        params: WidgetDataParams,
        body: WidgetDataBody,
        response: { 200: WidgetData },
      },
      config: { access: { role: 'viewer' as const, embed: 'read' as const } },
      // Every field is optional: an empty POST asks for the widget as published (as tokens/routes.ts).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (r, reply) =>
      dashboardData.widgetData(
        await dashboardData.viewers.of(principalOf(r)),
        r.params.deploymentId,
        r.params.publicId,
        r.params.widgetId,
        r.body,
        clientGone(reply),
      ),
  );
  app.post(
    '/api/v1/deployments/:deploymentId/dashboards/:publicId/widgets/:widgetId/xlsx',
    {
      schema: {
        tags: ['Dashboards'],
        operationId: 'downloadDashboardWidgetXlsx',
        summary: "A widget's rows as an Excel workbook (view access; Tessera's own)",
        description:
          "The rows the widget-data endpoint answers for the same body (the dashboard's filters and time grains, " +
          'up to 50,000 rows unless `limit` says fewer), as an `.xlsx` attachment named after the widget: one ' +
          'sheet with the columns the tile shows and their titles, numbers as numbers and times as dates, each ' +
          "with the Excel number format of the report's column format or the model's measure format. Same " +
          "access, 400, 403 and 404 as the widget-data endpoint, and 403 `data_download_restricted` when the account's " +
          'app config sets `restrictDataDownload`.',
        params: WidgetDataParams,
        body: WidgetDataBody,
        response: {
          200: {
            description: 'The workbook.',
            content: { [xlsxContentType]: { schema: Type.String({ format: 'binary' }) } },
          },
        },
      },
      config: { access: { role: 'viewer' as const, embed: 'read' as const } },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (r, reply) => {
      const { file, title } = await dashboardData.widgetXlsx(
        await dashboardData.viewers.of(principalOf(r)),
        r.params.deploymentId,
        r.params.publicId,
        r.params.widgetId,
        r.body,
      );
      return reply
        .type(xlsxContentType)
        .header('content-disposition', attachment(title, 'xlsx'))
        .send(file as never);
    },
  );
  app.post(
    '/api/v1/deployments/:deploymentId/dashboards/:publicId/dimension-values',
    {
      schema: {
        tags: ['Dashboards'],
        operationId: 'getDashboardDimensionValues',
        summary: "The values of a published dashboard's dimensions, for its filter controls (view access)",
        description:
          "Lists the values of the dimensions the dashboard's widgets group by (`members`, default all of them; " +
          'another member is 400 `unknown_member`), in one request for the whole dashboard, under the same ' +
          "security context and row-level policies as the widget-data endpoint. The dashboard's `filters` apply, " +
          'except those on the member being listed, so that choosing one value keeps the others listed, and those ' +
          "on a cube the model cannot join to the member's (named in the list's `notApplied`). `search` " +
          'keeps values containing the text (any case); `limit` (default 500) caps each list, and `complete` ' +
          'says whether every value fits. Same access, 403 and 404 as the widget-data endpoint.',
        params: DimensionValuesParams,
        body: DimensionValuesBody,
        response: { 200: DimensionValues },
      },
      config: { access: { role: 'viewer' as const, embed: 'read' as const } },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (r, reply) =>
      dashboardData.dimensionValues(
        await dashboardData.viewers.of(principalOf(r)),
        r.params.deploymentId,
        r.params.publicId,
        r.body,
        clientGone(reply),
      ),
  );
  app.post(
    '/api/v1/deployments/:deploymentId/reports/:reportId/data',
    {
      schema: {
        tags: ['Reports'],
        operationId: 'getReportData',
        summary: "A report's rows, under the caller's security context (view access to the report)",
        description:
          "Runs the report's saved query (`jsonQuery` through the data API's compile path, or `sqlQuery` " +
          "through the SQL API's) under the CALLER's security context, as the widget-data endpoint does for a " +
          "dashboard's widgets, so that a user with view access to the report reads its rows without a " +
          'data-API token (a viewer cannot get one) and row- and member-level access policies apply to them. ' +
          '`limit` and `offset` page the rows. 404 for an unknown report or one of another deployment, 403 ' +
          'without view access, 400 `report_without_query` for a report that has no query.',
        params: ReportDataParams,
        body: ReportDataBody,
        response: { 200: ReportData },
      },
      config: { access: { role: 'viewer' as const } },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (r, reply) =>
      dashboardData.reportData(
        await dashboardData.viewers.of(principalOf(r)),
        r.params.deploymentId,
        r.params.reportId,
        r.body,
        clientGone(reply),
      ),
  );
};
