import type { FastifyReply, FastifyRequest } from 'fastify';
import { classify } from './classify.ts';
import type { DomainError } from './domain-errors.ts';

/** How one transport writes a domain error: problem+json, the SCIM error schema, Cube's shape. */
export interface ErrorRenderer {
  contentType: string;
  render(error: DomainError, request: FastifyRequest): unknown;
}

/**
 * Answers any error of a request with `renderer`: classified once (classify.ts), 5xx logged with
 * their cause and never shown, `Retry-After` where the error carries one.
 */
export function replyWithError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  renderer: ErrorRenderer,
) {
  const domain = classify(error);
  // The client closed the connection first (its query was cancelled, modules/modules/data/client-gone.ts):
  // nobody reads this answer, and its failure is no fault of ours.
  const clientGone = reply.raw.destroyed && !reply.raw.writableFinished;
  if (clientGone) request.log.info('the client closed the connection before the answer');
  else if (domain.status >= 500) request.log.error({ err: error }, 'request failed');
  if (domain.retryAfterSeconds !== undefined) reply.header('retry-after', String(domain.retryAfterSeconds));
  return reply.code(domain.status).type(renderer.contentType).send(renderer.render(domain, request));
}
