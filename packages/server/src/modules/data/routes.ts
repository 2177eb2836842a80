import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.ts';
import { readSqlRequest } from './cubesql.ts';
import { DataApiError } from './errors.ts';
import { sendNdjson } from './ndjson.ts';
import { readDataRequest } from './request.ts';
import type { DataService } from './service.ts';

/**
 * `/data/{deploymentId}{basePath}/v1/{load,meta,sql,dry-run}` (DESIGN.md "Addresses"). One
 * wildcard route per method, because the base path is per deployment. Registered in an
 * encapsulated plugin: management auth is skipped (`access: public`, the token is checked by the
 * service) and errors take Cube's `{error}` shape instead of problem+json.
 */
export async function dataRoutes(scope: App, service: DataService) {
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DataApiError) return reply.status(error.statusCode).send(error.body());
    const status = error.statusCode ?? 500;
    // Body parsing, size and content-type problems are the caller's: say what they were.
    if (status >= 400 && status < 500) return reply.status(status).send({ error: error.message });
    request.log.error({ err: error }, 'data API request failed');
    return reply.status(500).send({ error: 'Internal Server Error' });
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { deploymentId: string; '*': string };
    const { caller, operation } = await service.caller({
      host: request.headers.host,
      deploymentId: params.deploymentId,
      path: `/${params['*']}`,
      authorization: request.headers.authorization,
      requestedBranch: request.headers['x-tessera-branch'] as string | undefined,
    });
    const query = request.query as Record<string, unknown>;
    reply.header('cache-control', 'no-store');
    if (operation === 'meta') return service.meta(caller, 'extended' in query);
    if (operation === 'cubesql') {
      const { sql, timezone } = readSqlRequest(query, request.method === 'POST' ? request.body : undefined);
      return sendNdjson(reply, await service.cubesql(caller, sql, timezone));
    }
    const input = readDataRequest(query, request.method === 'POST' ? request.body : undefined);
    if (operation === 'load') return service.load(caller, input);
    if (operation === 'sql') return service.sql(caller, input);
    return service.dryRun(caller, input);
  };

  for (const method of ['GET', 'POST'] as const) {
    scope.route({
      method,
      url: '/data/:deploymentId/*',
      config: { access: { public: true } },
      schema: { hide: true },
      handler,
    });
  }
}
