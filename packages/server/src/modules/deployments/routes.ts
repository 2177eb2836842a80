import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import type { DataSourceBody } from '../../datasources/kinds/index.ts';
import {
  ConnectionTestResult,
  CreateDeploymentBody,
  DataSourceInput,
  DataSourceTablesResponse,
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

export const deploymentRoutes: FastifyPluginAsyncTypebox<{ deployments: DeploymentsService }> = async (
  app,
  { deployments },
) => {
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
    (request) => deployments.list(principalOf(request), request.query),
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
    (request) => deployments.create(principalOf(request), request.body),
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
    (request) => deployments.get(principalOf(request), request.params.deploymentId),
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
    (request) => deployments.update(principalOf(request), request.params.deploymentId, request.body),
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
    (request) => deployments.delete(principalOf(request), request.params.deploymentId),
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
    (request) => deployments.environments(principalOf(request), request.params.deploymentId, request.query),
  );
};

/**
 * A deployment's data source: test a connection (saved settings, edits not yet saved, or a new
 * deployment's before it exists) and read its catalogue for the model generator.
 */
export const dataSourceRoutes: FastifyPluginAsyncTypebox<{ deployments: DeploymentsService }> = async (
  app,
  { deployments },
) => {
  const tags = ['Data Sources'];
  app.post(
    '/api/v1/data-sources/test',
    {
      schema: {
        tags,
        operationId: 'testNewDataSource',
        summary: 'Test the settings of a data source not saved yet',
        body: DataSourceInput,
        response: { 200: ConnectionTestResult },
      },
      config: { access: { role: 'admin' } },
    },
    (request) => deployments.testNewDataSource(principalOf(request), request.body as DataSourceBody),
  );

  app.post(
    '/api/v1/deployments/:deploymentId/data-source/test',
    {
      schema: {
        tags,
        operationId: 'testDataSource',
        summary: "Test a deployment's data source: the saved settings, or edits of them given in the body",
        params: DeploymentParams,
        body: Type.Object(
          { dataSource: Type.Optional(DataSourceInput) },
          { additionalProperties: false, description: '`{}` tests the saved settings' },
        ),
        response: { 200: ConnectionTestResult },
      },
      config: { access: { role: 'admin' } },
    },
    (request) =>
      deployments.testDataSource(principalOf(request), request.params.deploymentId, request.body.dataSource),
  );

  app.get(
    '/api/v1/deployments/:deploymentId/data-source/tables',
    {
      schema: {
        tags,
        operationId: 'getDataSourceTables',
        summary: "The schemas, tables, columns and keys of a deployment's data source",
        params: DeploymentParams,
        response: { 200: DataSourceTablesResponse },
      },
      config: { access: { role: 'developer' } },
    },
    (request) => deployments.tables(principalOf(request), request.params.deploymentId),
  );
};
