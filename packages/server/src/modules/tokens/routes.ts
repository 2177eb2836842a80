import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentIdParams } from '../deployments/schemas.ts';
import { CreateDeploymentTokenBody, DeploymentTokenResponse, RotateApiSecretResponse } from './schemas.ts';
import type { TokensService } from './service.ts';

const tags = ['Deployments'];

export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokens: TokensService }> = async (app, { tokens }) => {
  app.post(
    '/api/v1/deployments/:deploymentId/token',
    {
      schema: {
        tags,
        operationId: 'deploymentToken',
        summary: 'Deployment token: a data-API JWT carrying a security context',
        params: DeploymentIdParams,
        body: CreateDeploymentTokenBody,
        response: { 200: DeploymentTokenResponse },
      },
      config: { access: { role: 'developer' } },
      // The reference marks the body optional: an empty POST asks for a default 24-hour token.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    (request) => tokens.issue(principalOf(request), request.params.deploymentId, request.body),
  );

  app.post(
    '/api/v1/deployments/:deploymentId/api-secret/rotate',
    {
      schema: {
        tags,
        operationId: 'rotateDeploymentApiSecret',
        summary: 'Rotate the API secret; tokens signed with the old one stop working',
        params: DeploymentIdParams,
        response: { 200: RotateApiSecretResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => tokens.rotateSecret(principalOf(request), request.params.deploymentId),
  );
};
