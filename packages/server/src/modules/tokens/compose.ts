import { type ComposedModule, routesWith } from '../module.ts';
import { tokenRoutes } from './routes.ts';
import { TokensService } from './service.ts';

/** Data-API tokens: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeTokens(
  deps: ConstructorParameters<typeof TokensService>[0],
): ComposedModule<{ tokens: TokensService }> {
  const tokens = new TokensService(deps);
  return { services: { tokens }, routes: routesWith(tokenRoutes, { tokens }) };
}
