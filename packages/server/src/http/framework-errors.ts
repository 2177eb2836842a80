import type { FastifyReply, FastifyRequest } from 'fastify';
import { cubeErrorRenderer } from '../errors/cube-error.ts';
import { problemRenderer } from '../errors/problem.ts';
import { replyWithError } from '../errors/reply.ts';
import { scimErrorRenderer } from '../errors/scim-error.ts';
import { scimPrefix } from '../modules/scim/constants.ts';

/**
 * Fastify's `frameworkErrors`: what it refuses before a route is chosen (a malformed `%` escape
 * or an over-long path parameter) reaches no scope's error handler, so the transport follows the
 * address family (DESIGN.md "Addresses"): SCIM's error schema, Cube's `{error}`, else
 * problem+json. Classified like every other error (errors/classify.ts).
 */
export function replyToFrameworkError(error: Error, request: FastifyRequest, reply: FastifyReply) {
  const renderer = request.url.startsWith(`${scimPrefix}/`)
    ? scimErrorRenderer
    : request.url.startsWith('/data/')
      ? cubeErrorRenderer
      : problemRenderer;
  return replyWithError(request, reply, error, renderer);
}
