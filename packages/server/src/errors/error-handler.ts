import type { FastifyInstance } from 'fastify';
import { DomainError } from './domain-errors.ts';
import { problemRenderer } from './problem.ts';
import { replyWithError } from './reply.ts';

/**
 * problem+json for every error and unknown path of the root scope; the SCIM and data-API scopes
 * set their own renderer (modules/scim/plugin.ts, modules/data/error-handler.ts).
 */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => replyWithError(request, reply, error, problemRenderer));
  app.setNotFoundHandler((request, reply) =>
    replyWithError(
      request,
      reply,
      new DomainError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
      problemRenderer,
    ),
  );
}
