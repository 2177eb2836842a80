import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import {
  CreateEnvironmentTokenBody,
  EnvironmentTokenParams,
  EnvironmentTokenResponse,
  EnvironmentTokensListResponse,
  EnvironmentTokensQuery,
} from './environment-schemas.ts';
import type { EnvironmentTokensService } from './environment-service.ts';

const tags = ['Environments'];
/** Tokens are a developer's, as the deployment token is (tokens/routes.ts). */
const config = { access: { role: 'developer' as const } };

/** Issue 25 item 1: the reference's Environments group tokens. */
export const environmentTokenRoutes: FastifyPluginAsyncTypebox<{ tokens: EnvironmentTokensService }> = async (
  app,
  { tokens },
) => {
  const path = '/api/v1/deployments/:deploymentId/environments/:environmentId/tokens';
  app.get(
    path,
    {
      schema: {
        tags,
        operationId: 'getDeploymentEnvironmentTokens',
        summary: 'Get deployment environment tokens',
        description:
          "The environment's tokens that have not expired, newest first. Tessera keeps tokens only as hashes: " +
          '`token` shows `…` and the last characters of its signature. 404 `environment_not_found` for an ' +
          'environment of another deployment.',
        params: EnvironmentTokenParams,
        querystring: EnvironmentTokensQuery,
        response: { 200: EnvironmentTokensListResponse },
      },
      config,
    },
    (r) => tokens.list(principalOf(r), r.params.deploymentId, r.params.environmentId, r.query),
  );
  app.post(
    path,
    {
      schema: {
        tags,
        operationId: 'createDeploymentEnvironmentToken',
        summary: 'Create deployment environment token',
        description:
          "A data-API token for the environment: it reads the environment's model branch (a development " +
          "environment's through the signed `tessera.branch` claim), carries `security_context`, may call only " +
          'the operations its `scopes` open, and lives `expires_in` seconds (at most 3600, the default).',
        params: EnvironmentTokenParams,
        body: CreateEnvironmentTokenBody,
        response: { 200: EnvironmentTokenResponse },
      },
      config,
    },
    (r) => tokens.issue(principalOf(r), r.params.deploymentId, r.params.environmentId, r.body, 'api'),
  );
  app.post(
    `${path}-for-meta-sync`,
    {
      schema: {
        tags,
        operationId: 'createDeploymentEnvironmentTokenForMetaSync',
        summary: 'Create deployment environment token for meta sync',
        description:
          "As `tokens`, for tools that mirror the model's metadata: the token may call `/v1/meta` only (403 on " +
          'every other data-API operation); `scopes`, if given, may name only `meta`.',
        params: EnvironmentTokenParams,
        body: CreateEnvironmentTokenBody,
        response: { 200: EnvironmentTokenResponse },
      },
      config,
    },
    (r) => tokens.issue(principalOf(r), r.params.deploymentId, r.params.environmentId, r.body, 'meta-sync'),
  );
};
