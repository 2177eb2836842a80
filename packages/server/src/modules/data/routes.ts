import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defaultBasePath } from '../deployments/service.ts';
import { readSqlRequest } from './cubesql.ts';
import { sendDataApiError } from './error-handler.ts';
import { sendNdjson } from './ndjson.ts';
import { operationMethods, operationSchema } from './openapi.ts';
import { dataOperations } from './operations.ts';
import { readDataRequest } from './request.ts';
import type { DataService } from './service.ts';

const access = { access: { public: true as const } };

/**
 * `/data/{deploymentId}{basePath}/v1/{load,meta,sql,dry-run,cubesql}` (DESIGN.md "Addresses").
 * The base path is per deployment, so: documented routes for the default `/cubejs-api` (Fastify
 * prefers their static segments), which answer 404 for a deployment with another base path, and
 * one hidden wildcard route per method for custom base paths. All share one handler. Registered
 * as a Fastify plugin, so in a scope of its own: management auth is skipped (`access: public`, the
 * token is checked by the service), errors take Cube's shape (error-handler.ts), and response
 * schemas only document: bodies are serialised as they are, so that no field of Cube's wire format
 * is dropped.
 */
export const dataRoutes: FastifyPluginAsyncTypebox<{ data: DataService }> = async (scope, { data }) => {
  scope.setErrorHandler((error, request, reply) => sendDataApiError(error as Error, request, reply));
  scope.setSerializerCompiler(() => (body) => JSON.stringify(body));

  // Deployment (404) and token (403) are checked before the request is validated (400), so that
  // a caller without a valid token learns nothing about the request format.
  const callers = new WeakMap<FastifyRequest, Awaited<ReturnType<DataService['caller']>>>();
  const resolve = (path: (request: FastifyRequest) => string) => async (request: FastifyRequest) => {
    const resolved = await data.caller({
      host: request.headers.host,
      deploymentId: (request.params as { deploymentId: string }).deploymentId,
      path: path(request),
      authorization: request.headers.authorization,
      requestedBranch: request.headers['x-tessera-branch'] as string | undefined,
    });
    callers.set(request, resolved);
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { caller, operation } = callers.get(request)!;
    const query = request.query as Record<string, unknown>;
    reply.header('cache-control', 'no-store');
    if (operation === 'meta') return data.meta(caller, 'extended' in query);
    if (operation === 'cubesql') {
      const { sql, timezone } = readSqlRequest(query, request.method === 'POST' ? request.body : undefined);
      return sendNdjson(reply, await data.cubesql(caller, sql, timezone));
    }
    const input = readDataRequest(query, request.method === 'POST' ? request.body : undefined);
    if (operation === 'load') return data.load(caller, input);
    if (operation === 'sql') return data.sql(caller, input);
    return data.dryRun(caller, input);
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
