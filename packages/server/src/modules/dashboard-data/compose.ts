import type { ComposedModule } from '../module.ts';
import { routesWith } from '../module.ts';
import { dashboardDataRoutes } from './routes.ts';
import { ViewerResolver } from './security-context.ts';
import { type DashboardDataDeps, DashboardDataService } from './service.ts';

/**
 * Published dashboards' and reports' rows for their viewers, and the ViewerResolver that builds a
 * request's Viewer once (issue 22 item 0): the service and its routes.
 */
export function composeDashboardData(deps: {
  viewers: ConstructorParameters<typeof ViewerResolver>;
  /** The service's dependencies but the viewers, built from here. */
  data: Omit<DashboardDataDeps, 'viewers'>;
}): ComposedModule<{ dashboardData: DashboardDataService }> {
  const viewers = new ViewerResolver(...deps.viewers);
  const dashboardData = new DashboardDataService({ ...deps.data, viewers });
  return { services: { dashboardData }, routes: routesWith(dashboardDataRoutes, { dashboardData }) };
}
