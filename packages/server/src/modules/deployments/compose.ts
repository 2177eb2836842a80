import type { ComposedModule } from '../module.ts';
import { BuildStatusService } from './build-status.ts';
import { deploymentLifecycleRoutes } from './lifecycle-routes.ts';
import type { BuildLog, ModelBuilds } from './ports.ts';
import { dataSourceRoutes, deploymentRoutes } from './routes.ts';
import { DeploymentsService } from './service.ts';

/** Deployments and their data sources: the service and its routes (issue 22 item 0; composition.ts lists the modules). */
export function composeDeployments(
  deps: ConstructorParameters<typeof DeploymentsService>[0] & {
    /** Issue 25 item 1: build-status compiles through the data-model module, composed after this one. */
    models: () => ModelBuilds;
    buildLog?: BuildLog;
  },
): ComposedModule<{ deployments: DeploymentsService; buildStatus: BuildStatusService }> {
  const deployments = new DeploymentsService(deps);
  const buildStatus = new BuildStatusService({ deployments, models: deps.models, log: deps.buildLog });
  return {
    services: { deployments, buildStatus },
    routes: async (app) => {
      await app.register(deploymentRoutes, { deployments });
      await app.register(deploymentLifecycleRoutes, { deployments, buildStatus });
      await app.register(dataSourceRoutes, { deployments });
    },
  };
}
