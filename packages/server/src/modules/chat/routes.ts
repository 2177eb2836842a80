import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { AbortChatBody, ChatParams, ChatRequestBody } from './request.ts';
import type { ChatService } from './service.ts';

const tags = ['Chat'];
/**
 * Spec 5: the chat API takes the account's API keys as `Api-Key <key>` (or `Bearer`); a key
 * scoped to some deployments reaches only the agents on them (the service checks the agent's).
 * An embed token whose session allows dashboard chat (spec 4.3 `settings.showDashboardChat`)
 * chats with its own deployment's agents as its own embed user, without `sessionSettings`.
 */
const access = {
  access: {
    role: 'viewer' as const,
    apiKeyScheme: true as const,
    scopedKeys: 'service' as const,
    embed: 'chat' as const,
  },
};

const EmbedChatAgent = Type.Object({
  accountName: Type.String({ description: 'The `{accountName}` of the chat URLs' }),
  agentId: Type.Integer({ description: "The first agent of the token's deployment" }),
});

/** While a turn is silent (a long query), an empty line now and then keeps proxies from closing the stream. */
const HEARTBEAT_MS = 15_000;

export const chatRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
  // Runs a dead process left running are suspended before the first request (service.ts).
  app.addHook('onReady', () => chat.startUp(app.log));
  app.addHook('onClose', () => chat.shutDown());
  const base = '/api/v1/public/:accountName/agents/:agentId/chat';
  app.get(
    '/api/v1/embed/chat-agent',
    {
      schema: {
        tags,
        operationId: 'getEmbedChatAgent',
        summary: 'The agent an embedded dashboard chats with',
        description:
          "Embed tokens only, when the session allows dashboard chat (`settings.showDashboardChat`, or the account's " +
          'embed setting when the session omitted it; 403 `embed_chat_not_allowed` otherwise): the account name and ' +
          "the first agent of the token's deployment (404 `agent_not_found` when it has none). The token then streams " +
          'turns without `sessionSettings`: the session names the user.',
        response: { 200: EmbedChatAgent },
      },
      config: { access: { role: 'viewer', credential: 'embed', embed: 'chat' } },
    },
    (request) => chat.embedAgent(principalOf(request)),
  );
  app.post(
    `${base}/stream-chat-state`,
    {
      schema: {
        tags,
        operationId: 'streamChatState',
        summary: 'Stream a chat turn as newline-delimited JSON (spec 4.6)',
        description:
          'Lines in order: `__cutoff__`, the user echo, assistant deltas, tool calls re-emitted with their result, the `graphPath: ["final"]` answer, `__state__`, and `__usage__` last. Errors after the stream started are `{"error"}` lines; `Streaming for thread is in progress` (409) when another message streams on the thread. Empty lines are heartbeats.',
        params: ChatParams,
        body: ChatRequestBody,
      },
      config: access,
    },
    async (request, reply) => {
      const follow = await chat.open(principalOf(request), request.params, request.body, request.log);
      // Lines are written as they come, never buffered (spec 4.6): the reply leaves Fastify's hands.
      reply.hijack();
      const raw = reply.raw;
      const reading = new AbortController();
      raw.on('close', () => reading.abort());
      raw.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        'x-request-id': request.id,
      });
      let lastWrite = Date.now();
      const heartbeat = setInterval(() => {
        if (Date.now() - lastWrite >= HEARTBEAT_MS && !raw.writableEnded) {
          raw.write('\n');
          lastWrite = Date.now();
        }
      }, HEARTBEAT_MS / 3);
      try {
        for await (const line of follow(reading.signal)) {
          raw.write(`${line}\n`);
          lastWrite = Date.now();
        }
      } catch (error) {
        request.log.error({ err: error }, 'chat stream failed');
        if (!raw.writableEnded) raw.write(`${JSON.stringify({ error: 'The stream failed' })}\n`);
      } finally {
        clearInterval(heartbeat);
        if (!raw.writableEnded) raw.end();
      }
    },
  );
  app.post(
    `${base}/abort`,
    {
      schema: {
        tags,
        operationId: 'abortChat',
        summary: 'Stop the turn streaming on a thread; its stream ends with `__aborted__`',
        params: ChatParams,
        body: AbortChatBody,
        response: { 204: Type.Null() },
      },
      config: access,
    },
    async (request, reply) => {
      await chat.abort(principalOf(request), request.params, request.body);
      return reply.code(204).send(null);
    },
  );
};
