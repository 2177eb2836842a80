import type { FastifyReply, FastifyRequest } from 'fastify';
import { cubeErrorRenderer } from '../../errors/cube-error.ts';
import { replyWithError } from '../../errors/reply.ts';

/**
 * Every error of a data-API route in Cube's shape (DESIGN.md "Errors"), never problem+json:
 * classified like any other error (errors/classify.ts), written by errors/cube-error.ts.
 */
export function sendDataApiError(error: Error, request: FastifyRequest, reply: FastifyReply) {
  return replyWithError(request, reply, error, cubeErrorRenderer);
}
