import type { ComposedModule } from '../module.ts';
import { dataSourceRoutes, deploymentRoutes } from './routes.ts';
import { DeploymentsService } from './service.ts';

/** Deployments and their data sources: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeDeployments(
  deps: ConstructorParameters<typeof DeploymentsService>[0],
): ComposedModule<{ deployments: DeploymentsService }> {
  const deployments = new DeploymentsService(deps);
  return {
    services: { deployments },
    routes: async (app) => {
      await app.register(deploymentRoutes, { deployments });
      await app.register(dataSourceRoutes, { deployments });
    },
  };
}
