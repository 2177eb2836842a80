import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import type { ModelVersions } from './versions.ts';
import { DeploymentVersionsQuery, DeploymentVersionsResponse } from './versions-schemas.ts';

export const modelVersionRoutes: FastifyPluginAsyncTypebox<{ versions: ModelVersions }> = async (
  app,
  { versions },
) => {
  app.get(
    '/api/v1/deployments/:deploymentId/versions',
    {
      schema: {
        tags: ['Deployments'],
        operationId: 'listDeploymentVersions',
        summary: "The versions of the deployment's model, newest first",
        description:
          'Each change of the default branch (a file write, a merge to it, an upload) is a version, with who made ' +
          'it and when. Tessera has no engine versions to switch between: its engine is the one it ships.',
        params: DeploymentParams,
        querystring: DeploymentVersionsQuery,
        response: { 200: DeploymentVersionsResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => versions.list(principalOf(r), r.params.deploymentId, r.query),
  );
};
