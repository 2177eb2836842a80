import { type ComposedModule, routesWith } from '../module.ts';
import { dashboardRoutes } from './routes.ts';
import { DashboardsService } from './service.ts';

/** Dashboard drafts and publishing: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeDashboards(
  deps: ConstructorParameters<typeof DashboardsService>[0],
): ComposedModule<{ dashboards: DashboardsService }> {
  const dashboards = new DashboardsService(deps);
  return { services: { dashboards }, routes: routesWith(dashboardRoutes, { dashboards }) };
}
