import { type ComposedModule, routesWith } from '../module.ts';
import { permissionRoutes } from './routes.ts';
import { PermissionsService } from './service.ts';

/** Content permissions: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composePermissions(
  deps: ConstructorParameters<typeof PermissionsService>[0],
): ComposedModule<{ permissions: PermissionsService }> {
  const permissions = new PermissionsService(deps);
  return { services: { permissions }, routes: routesWith(permissionRoutes, { permissions }) };
}
