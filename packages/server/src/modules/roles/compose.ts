import { type ComposedModule, routesWith } from '../module.ts';
import { roleRoutes } from './routes.ts';
import { RolesService } from './service.ts';

/** Roles: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeRoles(
  ...deps: ConstructorParameters<typeof RolesService>
): ComposedModule<{ roles: RolesService }> {
  const roles = new RolesService(...deps);
  return { services: { roles }, routes: routesWith(roleRoutes, { roles }) };
}
