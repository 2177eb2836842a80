import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../auth/authenticate.ts';
import type { BuildStatusService } from './build-status.ts';
import {
  AdvanceCreationStepBody,
  BuildCreateDeploymentBody,
  BuildStatusQuery,
  BuildStatusResponse,
  DeploymentSettings,
} from './lifecycle-schemas.ts';
import { Deployment, DeploymentParams } from './schemas.ts';
import type { DeploymentsService } from './service.ts';

const tags = ['Deployments'];

/**
 * The reference's Deployments operations beyond create/read/update/delete: settings, onboarding
 * steps, build status; and its Deployment Creation group (issue 25 item 1).
 */
export const deploymentLifecycleRoutes: FastifyPluginAsyncTypebox<{
  deployments: DeploymentsService;
  buildStatus: BuildStatusService;
}> = async (app, { deployments, buildStatus }) => {
  const base = '/api/v1/deployments/:deploymentId';
  app.get(
    `${base}/settings`,
    {
      schema: {
        tags,
        operationId: 'getDeploymentSettings',
        summary: 'Get deployment settings',
        params: DeploymentParams,
        response: { 200: DeploymentSettings },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => deployments.settings(principalOf(r), r.params.deploymentId),
  );

  app.get(
    `${base}/build-status`,
    {
      schema: {
        tags,
        operationId: 'buildStatus',
        summary: "Compile status of a branch's model: ok, or its errors with file and line",
        description:
          'Tessera compiles models on demand, so the status is that of the branch files as they are now. ' +
          'A branch the deployment does not have is a 404.',
        params: DeploymentParams,
        querystring: BuildStatusQuery,
        response: { 200: BuildStatusResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => buildStatus.status(principalOf(r), r.params.deploymentId, r.query.branchName),
  );

  app.post(
    `${base}/creation-step/advance`,
    {
      schema: {
        tags,
        operationId: 'advanceCreationStep',
        summary: 'Advance a deployment to a given onboarding step (e.g. after connecting a source)',
        description: 'The seeded demo deployment keeps its `demo` step: 409 `demo_deployment`.',
        params: DeploymentParams,
        body: AdvanceCreationStepBody,
        response: { 200: Deployment },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => deployments.setCreationStep(principalOf(r), r.params.deploymentId, r.body.creationStep),
  );

  app.post(
    `${base}/creation-step/reset`,
    {
      schema: {
        tags,
        operationId: 'resetCreationStep',
        summary: 'Reset a deployment to the first onboarding step (project)',
        description: 'The seeded demo deployment keeps its `demo` step: 409 `demo_deployment`.',
        params: DeploymentParams,
        response: { 200: Deployment },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => deployments.setCreationStep(principalOf(r), r.params.deploymentId, 'project'),
  );

  app.post(
    '/build/api/v1/deployments',
    {
      schema: {
        tags: ['Deployment Creation'],
        operationId: 'createDeploymentWithStarter',
        summary: 'Create a deployment with an empty starter project',
        description:
          'The same deployment `POST /api/v1/deployments` creates (the sample data source, a production ' +
          'environment on `main`, no model files yet), starting its onboarding at `creationStep`. ' +
          '`cloudProvider`, `isManaged`, `region`, `targetPlatform`, `creationMethod` and `deployMode` are ' +
          'checked as the reference gives them; Tessera hosts every deployment itself and keeps none of them.',
        body: BuildCreateDeploymentBody,
        response: { 200: Deployment },
      },
      config: { access: { role: 'admin' } },
    },
    (r) =>
      deployments.create(
        principalOf(r),
        { name: r.body.name },
        { creationStep: r.body.creationStep, via: 'build' },
      ),
  );
};
