import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../../auth/authenticate.ts';
import { DomainError } from '../../errors/domain-errors.ts';
import { replyWithError } from '../../errors/reply.ts';
import { scimErrorRenderer } from '../../errors/scim-error.ts';
import { scimContentType, scimPrefix } from './constants.ts';
import type { ScimContext } from './preconditions.ts';

export const access = { access: { role: 'admin' as const, credential: 'scim' as const } };
export const tags = ['SCIM'];

export function contextOf(request: FastifyRequest): ScimContext {
  const principal = principalOf(request);
  return { tenantId: principal.tenantId, baseUrl: `${request.protocol}://${request.host}`, principal };
}

export function sendScimError(request: FastifyRequest, reply: FastifyReply, error: Error) {
  return replyWithError(request, reply, error, scimErrorRenderer);
}

/**
 * The SCIM scope (RFC 7644 section 3.1 and 8.1): JSON bodies as application/scim+json or
 * application/json (an empty body reads as none), responses as application/scim+json, errors in
 * the SCIM error schema, including the 401/403 of the authentication hook. Resources are
 * serialised as they are (extensions and `attributes` make them open-ended); the route schemas
 * validate input and describe the API in the OpenAPI document.
 */
export function configureScope(scope: FastifyInstance) {
  const parseJson = scope.getDefaultJsonParser('error', 'ignore');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser(
    ['application/json', 'application/scim+json'],
    { parseAs: 'string' },
    (request, body, done) => {
      const textBody = typeof body === 'string' ? body : body.toString('utf8');
      if (textBody.trim() === '') return done(null, undefined);
      parseJson(request, textBody, done);
    },
  );
  scope.setSerializerCompiler(() => (data) => JSON.stringify(data));
  scope.setErrorHandler((error, request, reply) => sendScimError(request, reply, error as Error));
  scope.setNotFoundHandler((request, reply) =>
    sendScimError(
      request,
      reply,
      new DomainError('route_not_found', `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 204 && payload !== undefined && payload !== null)
      reply.header('content-type', scimContentType);
    return payload;
  });
}

/** Location and ETag of a single resource (RFC 7644 sections 3.1 and 3.14). */
export function withResourceHeaders(
  reply: FastifyReply,
  found: { resource: Record<string, unknown>; version: string },
) {
  const meta = found.resource.meta as { location?: string } | undefined;
  reply.header('etag', `W/"${found.version}"`);
  if (meta?.location) reply.header('location', meta.location);
  return found.resource;
}

export { scimPrefix };
