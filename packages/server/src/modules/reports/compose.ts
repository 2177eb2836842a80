import { type ComposedModule, routesWith } from '../module.ts';
import { reportRoutes } from './routes.ts';
import { ReportsService } from './service.ts';

/** Reports: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeReports(
  deps: ConstructorParameters<typeof ReportsService>[0],
): ComposedModule<{ reports: ReportsService }> {
  const reports = new ReportsService(deps);
  return { services: { reports }, routes: routesWith(reportRoutes, { reports }) };
}
