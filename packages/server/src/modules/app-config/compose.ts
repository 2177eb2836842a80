import { type ComposedModule, routesWith } from '../module.ts';
import { appConfigRoutes } from './routes.ts';
import { AppConfigService } from './service.ts';

/** The account app config: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeAppConfig(
  ...deps: ConstructorParameters<typeof AppConfigService>
): ComposedModule<{ appConfig: AppConfigService }> {
  const appConfig = new AppConfigService(...deps);
  return { services: { appConfig }, routes: routesWith(appConfigRoutes, { appConfig }) };
}
