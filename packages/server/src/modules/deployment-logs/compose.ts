import type { Db } from '../../db/database.ts';
import { type ComposedModule, routesWith } from '../module.ts';
import { DeploymentLogsRepository } from './repository.ts';
import { deploymentLogRoutes } from './routes.ts';
import { DeploymentLogs, type DeploymentLogsSettings, defaultLogSettings } from './service.ts';

/** Issue 25 item 1: deployments' recent query and build logs, kept in the metadata store. */
export function composeDeploymentLogs(deps: {
  db: Db;
  deployments: { require(tenantId: number, id: number): Promise<unknown> };
  settings?: Partial<DeploymentLogsSettings>;
}): ComposedModule<{ deploymentLogs: DeploymentLogs }> {
  const deploymentLogs = new DeploymentLogs(new DeploymentLogsRepository(deps.db), deps.deployments, {
    ...defaultLogSettings,
    ...deps.settings,
  });
  return { services: { deploymentLogs }, routes: routesWith(deploymentLogRoutes, { logs: deploymentLogs }) };
}
