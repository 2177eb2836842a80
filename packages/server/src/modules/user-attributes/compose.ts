import { type ComposedModule, routesWith } from '../module.ts';
import { userAttributeRoutes } from './routes.ts';
import { UserAttributesService } from './service.ts';

/** User attributes and values: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeUserAttributes(
  deps: ConstructorParameters<typeof UserAttributesService>[0],
): ComposedModule<{ userAttributes: UserAttributesService }> {
  const userAttributes = new UserAttributesService(deps);
  return { services: { userAttributes }, routes: routesWith(userAttributeRoutes, { userAttributes }) };
}
