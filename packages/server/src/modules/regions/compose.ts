import { type ComposedModule, routesWith } from '../module.ts';
import { regionRoutes } from './routes.ts';
import { RegionsService } from './service.ts';

/** Regions: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeRegions(
  ...deps: ConstructorParameters<typeof RegionsService>
): ComposedModule<{ regions: RegionsService }> {
  const regions = new RegionsService(...deps);
  return { services: { regions }, routes: routesWith(regionRoutes, { regions }) };
}
