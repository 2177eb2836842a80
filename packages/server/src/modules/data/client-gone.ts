import type { FastifyReply } from 'fastify';

/**
 * Aborts when the HTTP client closes the connection before its answer is written (issue 24 item 3):
 * the query it waits for is then cancelled on the engine, once no other request waits for it
 * (modules/data/executor.ts). The response's `close` is the signal: it also fires after a complete answer, which
 * `writableFinished` tells apart (the request's own `close` fires as soon as its body is read).
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  if (response.destroyed) onClose();
  else response.once('close', onClose);
  return controller.signal;
}
