import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { EnvironmentTokensRepository } from './environment-repository.ts';
import { EnvironmentTokensService } from './environment-service.ts';

/** Issue 25 item 1: the Environments group's tokens. */
export function composeEnvironmentTokens(deps: {
  db: Db;
  deployments: DeploymentsService;
  secrets: SecretBox;
}): EnvironmentTokensService {
  return new EnvironmentTokensService({
    deployments: deps.deployments,
    repository: new EnvironmentTokensRepository(deps.db),
    secrets: deps.secrets,
  });
}
