import { type ComposedModule, routesWith } from '../module.ts';
import { groupRoutes } from './routes.ts';
import { GroupsService } from './service.ts';

/** Global groups: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeGroups(
  ...deps: ConstructorParameters<typeof GroupsService>
): ComposedModule<{ groups: GroupsService }> {
  const groups = new GroupsService(...deps);
  return { services: { groups }, routes: routesWith(groupRoutes, { groups }) };
}
