import type { ComposedModule } from '../module.ts';
import { reportPlacementRoutes } from './placement-routes.ts';
import { ReportPlacements } from './placements.ts';
import { ReportPlacementsRepository } from './placements-repository.ts';
import { reportRoutes } from './routes.ts';
import { ReportsService } from './service.ts';

/** Reports: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeReports(
  deps: ConstructorParameters<typeof ReportsService>[0],
): ComposedModule<{ reports: ReportsService; reportPlacements: ReportPlacements }> {
  const reports = new ReportsService(deps);
  // Issue 25 item 4: placements in spreadsheets, connect-workbook and refresh.
  const reportPlacements = new ReportPlacements({
    db: deps.db,
    reports: deps.reports,
    placements: new ReportPlacementsRepository(deps.db),
    access: deps.access,
    audit: deps.audit,
  });
  return {
    services: { reports, reportPlacements },
    routes: async (app) => {
      await app.register(reportRoutes, { reports });
      await app.register(reportPlacementRoutes, { placements: reportPlacements });
    },
  };
}
