import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import { type ComposedModule, routesWith } from '../module.ts';
import { OAuthIntegrationsService } from './integrations-service.ts';
import { OAuthRepository } from './repository.ts';
import { oauthRoutes } from './routes.ts';
import { UserOAuthTokensService } from './tokens-service.ts';

/** OAuth integrations and users' connections through them (spec 4.1): services and routes (issue 22 item 0). */
export function composeOAuth(deps: { db: Db; secrets: SecretBox }): ComposedModule<{
  oauthRepository: OAuthRepository;
  oauthIntegrations: OAuthIntegrationsService;
  userOAuthTokens: UserOAuthTokensService;
}> {
  const oauthRepository = new OAuthRepository(deps.db);
  const oauthIntegrations = new OAuthIntegrationsService(oauthRepository, deps.secrets);
  const userOAuthTokens = new UserOAuthTokensService({
    repository: oauthRepository,
    integrations: oauthIntegrations,
    secrets: deps.secrets,
  });
  return {
    services: { oauthRepository, oauthIntegrations, userOAuthTokens },
    routes: routesWith(oauthRoutes, { integrations: oauthIntegrations, tokens: userOAuthTokens }),
  };
}
