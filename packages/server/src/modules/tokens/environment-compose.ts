import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { type ComposedModule, routesWith } from '../module.ts';
import { EnvironmentTokensRepository } from './environment-repository.ts';
import { environmentTokenRoutes } from './environment-routes.ts';
import { EnvironmentTokensService } from './environment-service.ts';

/** Issue 25 item 1: the Environments group's tokens, their service and routes. */
export function composeEnvironmentTokens(deps: {
  db: Db;
  deployments: DeploymentsService;
  secrets: SecretBox;
}): ComposedModule<{ environmentTokens: EnvironmentTokensService }> {
  const environmentTokens = new EnvironmentTokensService({
    deployments: deps.deployments,
    repository: new EnvironmentTokensRepository(deps.db),
    secrets: deps.secrets,
  });
  return {
    services: { environmentTokens },
    routes: routesWith(environmentTokenRoutes, { tokens: environmentTokens }),
  };
}
