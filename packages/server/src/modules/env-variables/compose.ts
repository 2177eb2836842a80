import { type ComposedModule, routesWith } from '../module.ts';
import { envVariableRoutes } from './routes.ts';
import { EnvVariablesService } from './service.ts';

/** Env variables: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeEnvVariables(
  deps: ConstructorParameters<typeof EnvVariablesService>[0],
): ComposedModule<{ envVariables: EnvVariablesService }> {
  const envVariables = new EnvVariablesService(deps);
  return { services: { envVariables }, routes: routesWith(envVariableRoutes, { envVariables }) };
}
