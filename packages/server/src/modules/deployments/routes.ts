import { principalOf } from '../../auth/authenticate.ts';
import type { App } from '../../http/types.ts';
import {
  CreateDeploymentBody,
  Deployment,
  DeploymentParams,
  DeploymentsListQuery,
  DeploymentsListResponse,
  EnvironmentsListQuery,
  EnvironmentsListResponse,
  Success,
  UpdateDeploymentBody,
} from './schemas.ts';
import type { DeploymentsService } from './service.ts';

const tags = ['Deployments'];

export function deploymentRoutes(app: App, service: DeploymentsService) {
  app.get(
    '/api/v1/deployments',
    {
      schema: {
        tags,
        operationId: 'getDeployments',
        summary: 'List deployments',
        querystring: DeploymentsListQuery,
        response: { 200: DeploymentsListResponse },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (request) => service.list(principalOf(request), request.query),
  );

  app.post(
    '/api/v1/deployments',
    {
      schema: {
        tags,
        operationId: 'createDeployment',
        summary: 'Create a deployment',
        body: CreateDeploymentBody,
        response: { 200: Deployment },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => service.create(principalOf(request), request.body),
  );

  app.get(
    '/api/v1/deployments/:deploymentId',
    {
      schema: {
        tags,
        operationId: 'getDeployment',
        summary: 'Get deployment',
        params: DeploymentParams,
        response: { 200: Deployment },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => service.get(principalOf(request), request.params.deploymentId),
  );

  app.put(
    '/api/v1/deployments/:deploymentId',
    {
      schema: {
        tags,
        operationId: 'updateDeployment',
        summary: 'Update a deployment; omitted fields are left alone',
        params: DeploymentParams,
        body: UpdateDeploymentBody,
        response: { 200: Deployment },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => service.update(principalOf(request), request.params.deploymentId, request.body),
  );

  app.delete(
    '/api/v1/deployments/:deploymentId',
    {
      schema: {
        tags,
        operationId: 'deleteDeployment',
        summary: 'Delete deployment',
        params: DeploymentParams,
        response: { 200: Success },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => service.delete(principalOf(request), request.params.deploymentId),
  );

  app.get(
    '/api/v1/deployments/:deploymentId/environments',
    {
      schema: {
        tags: ['Environments'],
        operationId: 'getDeploymentEnvironments',
        summary: 'Production plus development-branch environments',
        params: DeploymentParams,
        querystring: EnvironmentsListQuery,
        response: { 200: EnvironmentsListResponse },
      },
      config: { access: { role: 'viewer' } },
    },
    (request) => service.environments(principalOf(request), request.params.deploymentId, request.query),
  );
}
