import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { SqlApiResult } from './run.ts';

const BATCH = 1_000;

/**
 * Cube's `/v1/cubesql` answer: newline-delimited JSON, a `schema` line (with `lastRefreshTime`),
 * then `data` lines of up to 1,000 rows; a failure once the stream has started becomes a final
 * `{"error": ...}` line, since the status line is already sent.
 */
export function sendNdjson(reply: FastifyReply, answer: SqlApiResult) {
  function* lines() {
    try {
      yield `${JSON.stringify({ schema: answer.columns, lastRefreshTime: answer.refreshedAt.toISOString() })}\n`;
      for (let i = 0; i < answer.rows.length; i += BATCH)
        yield `${JSON.stringify({ data: answer.rows.slice(i, i + BATCH) })}\n`;
    } catch (error) {
      reply.log.error({ err: error }, 'cubesql stream failed');
      yield `${JSON.stringify({ error: 'Query failed while streaming' })}\n`;
    }
  }
  reply.header('content-type', 'application/x-ndjson; charset=utf-8');
  return reply.send(Readable.from(lines()));
}
