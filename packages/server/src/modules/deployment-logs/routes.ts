import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { DeploymentParams } from '../deployments/schemas.ts';
import { DeploymentLogsQuery, DeploymentLogsResponse } from './schemas.ts';
import type { DeploymentLogs } from './service.ts';

export const deploymentLogRoutes: FastifyPluginAsyncTypebox<{ logs: DeploymentLogs }> = async (
  app,
  { logs },
) => {
  app.get(
    '/api/v1/deployments/:deploymentId/logs',
    {
      schema: {
        tags: ['Deployments'],
        operationId: 'logs',
        summary: "Recent logs of a deployment's queries and model builds, newest first",
        description:
          'Lines of every replica (`pod`), kept in the metadata store: the newest 1000 per deployment. ' +
          '`source=production` scopes to the default branch, `source=dev` to development branches. A line ' +
          'names members, durations, row counts and error codes; never SQL text, filter values or other bound parameters.',
        params: DeploymentParams,
        querystring: DeploymentLogsQuery,
        response: { 200: DeploymentLogsResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (r) => logs.list(principalOf(r), r.params.deploymentId, r.query),
  );
  // Lines still buffered when the application stops are written, not lost.
  app.addHook('onClose', async () => {
    await logs.flush();
  });
};
