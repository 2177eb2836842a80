import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defaultBasePath } from '../deployments/service.ts';
import type { DataCaller } from './caller.ts';
import { clientGone } from './client-gone.ts';
import { sendDataApiError } from './error-handler.ts';
import { notFound } from './errors.ts';
import { sendNdjson } from './ndjson.ts';
import { operationMethods, operationSchema } from './openapi.ts';
import { type DataOperation, dataOperations, operationAt } from './operations.ts';
import { settled } from './outcome.ts';
import { readDataRequest, readSqlRequest } from './request.ts';
import { checkQueryType, continueWaitBody, dryRunBody, loadBody, sqlBody } from './response.ts';
import type { DataService } from './service.ts';

const access = { access: { public: true as const } };

/**
 * `/data/{deploymentId}{basePath}/v1/{load,meta,sql,dry-run,cubesql}` (DESIGN.md "Addresses").
 * The base path is per deployment, so: documented routes for the default `/cubejs-api` (Fastify
 * prefers their static segments), which answer 404 for a deployment with another base path, and
 * one hidden wildcard route per method for custom base paths. All share one handler, the only
 * place that reads the operation from the URL and turns the data service's typed values into
 * Cube's bodies (response.ts), "still running" into `{"error": "Continue wait"}` included.
 * Registered as a Fastify plugin, so in a scope of its own: management auth is skipped (`access:
 * public`, the token is checked by the service), errors take Cube's shape (error-handler.ts), and
 * response schemas only document: bodies are serialised as they are, so that no field of Cube's
 * wire format is dropped.
 */
export const dataRoutes: FastifyPluginAsyncTypebox<{ data: DataService }> = async (scope, { data }) => {
  scope.setErrorHandler((error, request, reply) => sendDataApiError(error as Error, request, reply));
  // REDIS_URL: the result cache the replicas share (shared-cache.ts) opens with the application.
  scope.addHook('onReady', () => data.startUp(scope.log));
  scope.setSerializerCompiler(() => (body) => JSON.stringify(body));

  // Deployment (404), operation (404) and token (403) are checked before the request is
  // validated (400), so that a caller without a valid token learns nothing about its format.
  const resolved = new WeakMap<FastifyRequest, { caller: DataCaller; operation: DataOperation }>();
  const resolve =
    (path: (request: FastifyRequest) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
      const { deploymentId } = request.params as { deploymentId: string };
      const deployment = await data.deployment(request.headers.host, deploymentId);
      const operation = operationAt(path(request), deployment.base_path);
      if (!operation) throw notFound(`Not found: ${path(request)}`);
      const branch = request.headers['x-tessera-branch'];
      const caller = await data.caller(
        deployment,
        request.headers.authorization,
        typeof branch === 'string' ? branch : branch?.[0],
        operation,
      );
      resolved.set(request, { caller: { ...caller, signal: clientGone(reply) }, operation });
    };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { caller, operation } = resolved.get(request)!;
    const query = request.query as Record<string, unknown>;
    const body = request.method === 'POST' ? request.body : undefined;
    reply.header('cache-control', 'no-store');
    switch (operation) {
      case 'meta':
        return data.meta(caller, 'extended' in query);
      case 'cubesql': {
        const { sql, timezone } = readSqlRequest(query, body);
        const compiled = await data.compileSql(caller, sql, timezone);
        // Cube's SQL API over HTTP has no long polling: the answer waits for the query.
        return sendNdjson(reply, await settled(await data.run(caller, compiled)));
      }
      case 'load': {
        const input = readDataRequest(query, body);
        const compiled = await data.compile(caller, input.query);
        checkQueryType(compiled, input.queryType);
        const outcome = await data.run(caller, compiled);
        // Cube's long polling: the client repeats the request and joins the same execution.
        if (outcome.state === 'running') return continueWaitBody;
        return loadBody(outcome.result, compiled.dialect, input.queryType);
      }
      case 'sql':
        return sqlBody(await data.compile(caller, readDataRequest(query, body).query));
      case 'dry-run':
        return dryRunBody(await data.compile(caller, readDataRequest(query, body).query));
    }
  };

  for (const operation of dataOperations) {
    const path = `${defaultBasePath}/v1/${operation}`;
    for (const method of operationMethods(operation)) {
      scope.route({
        method,
        url: `/data/:deploymentId${path}`,
        config: access,
        schema: operationSchema(operation, method),
        preValidation: resolve(() => path),
        handler,
      });
    }
  }
  for (const method of ['GET', 'POST'] as const) {
    scope.route({
      method,
      url: '/data/:deploymentId/*',
      config: access,
      schema: { hide: true },
      preValidation: resolve((request) => `/${(request.params as { '*': string })['*']}`),
      handler,
    });
  }
};
