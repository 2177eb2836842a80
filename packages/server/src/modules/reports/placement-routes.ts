import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  ConnectWorkbookBody,
  DisconnectWorkbookBody,
  PlacedReport,
  RefreshReportBody,
} from './placement-schemas.ts';
import type { ReportPlacements } from './placements.ts';
import { ReportParams } from './schemas.ts';

const tags = ['Reports'];
/**
 * Placing a report's rows in one's own spreadsheet changes nothing of the report: view access
 * (the reference), at the viewer role; embed tokens in creator mode as on the other report routes.
 */
const place = { access: { role: 'viewer' as const, embed: 'create' as const } };
/** The bodies are optional (the reference): no body means `{}`. */
const emptyBody = async (request: { body: unknown }) => {
  if (request.body === undefined || request.body === null) request.body = {};
};

export const reportPlacementRoutes: FastifyPluginAsyncTypebox<{ placements: ReportPlacements }> = async (
  app,
  { placements },
) => {
  const path = '/api/v1/deployments/:deploymentId/reports/:reportId';
  app.put(
    `${path}/connect-workbook`,
    {
      schema: {
        tags,
        operationId: 'connectReportToWorkbook',
        summary: 'Connect a report to the calling spreadsheet (view access)',
        description:
          'Records where the report is placed (workbook and location) so the add-in can list and refresh it there; ' +
          'a second connect of the same workbook and location updates that placement. Unless `addressOnly`, ' +
          "the placement counts as filled with the report's current query (`syncStatus` `UP_TO_DATE`).",
        params: ReportParams,
        body: ConnectWorkbookBody,
        response: { 200: PlacedReport },
      },
      config: place,
    },
    (r) => placements.connect(principalOf(r), r.params.deploymentId, r.params.reportId, r.body),
  );
  app.delete(
    `${path}/connect-workbook`,
    {
      schema: {
        tags,
        operationId: 'disconnectReportFromWorkbook',
        summary: 'Disconnect a report from one spot in a spreadsheet (view access)',
        description:
          'Address the placement by `placementId`, or by `externalWorkbookId` with `sheetName` and `anchorCell` ' +
          '(or a `resultLocation` naming both); `sheetId` only narrows. A target that matches no placement ' +
          'succeeds and changes nothing.',
        params: ReportParams,
        body: DisconnectWorkbookBody,
        response: { 200: PlacedReport },
      },
      config: place,
      preValidation: emptyBody,
    },
    (r) => placements.disconnect(principalOf(r), r.params.deploymentId, r.params.reportId, r.body),
  );
  app.put(
    `${path}/refresh`,
    {
      schema: {
        tags,
        operationId: 'refreshReport',
        summary: 'Refresh report: record that its rows were fetched again (view access)',
        description:
          "With a placement addressed (as for disconnect), that placement takes the report's current query " +
          'checksum and the `resultChecksum` sent; 404 when none matches. Without one, the report itself is ' +
          'marked refreshed by the caller.',
        params: ReportParams,
        body: RefreshReportBody,
        response: { 200: PlacedReport },
      },
      config: place,
      preValidation: emptyBody,
    },
    (r) => placements.refresh(principalOf(r), r.params.deploymentId, r.params.reportId, r.body),
  );
};
