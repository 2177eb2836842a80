import { type ComposedModule, routesWith } from '../module.ts';
import { apiKeyRoutes } from './routes.ts';
import { ApiKeysService } from './service.ts';

/** API keys (spec 5): the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeApiKeys(
  ...deps: ConstructorParameters<typeof ApiKeysService>
): ComposedModule<{ apiKeys: ApiKeysService }> {
  const apiKeys = new ApiKeysService(...deps);
  return { services: { apiKeys }, routes: routesWith(apiKeyRoutes, { apiKeys }) };
}
