import { type ComposedModule, routesWith } from '../module.ts';
import { userRoutes } from './routes.ts';
import { UsersService } from './service.ts';

/** Users and their administration: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeUsers(
  ...deps: ConstructorParameters<typeof UsersService>
): ComposedModule<{ users: UsersService }> {
  const users = new UsersService(...deps);
  return { services: { users }, routes: routesWith(userRoutes, { users }) };
}
