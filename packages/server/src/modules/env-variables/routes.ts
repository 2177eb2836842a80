import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import { EnvVariablesListQuery, EnvVariablesListResponse, SetEnvVariablesInput } from './schemas.ts';
import type { EnvVariablesService } from './service.ts';

const tags = ['Env Variables'];

export const envVariableRoutes: FastifyPluginAsyncTypebox<{ envVariables: EnvVariablesService }> = async (
  app,
  { envVariables },
) => {
  app.get(
    '/api/v1/deployments/:deploymentId/env-vars',
    {
      schema: {
        tags,
        operationId: 'getEnvVariables',
        summary: 'List env variables of a deployment; every value reads as `[ENCRYPTED]`',
        params: DeploymentParams,
        querystring: EnvVariablesListQuery,
        response: { 200: EnvVariablesListResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => envVariables.list(principalOf(r), r.params.deploymentId, r.query),
  );
  app.put(
    '/api/v1/deployments/:deploymentId/env-vars',
    {
      schema: {
        tags,
        operationId: 'setEnvVariables',
        summary:
          'Set env variables by name (admin); variables not sent keep their values, an empty value removes one',
        params: DeploymentParams,
        body: SetEnvVariablesInput,
        response: { 200: EnvVariablesListResponse },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => envVariables.set(principalOf(r), r.params.deploymentId, r.body),
  );
};
