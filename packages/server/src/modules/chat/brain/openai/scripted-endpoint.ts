import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: a stream of chunks (SSE), or a status with a JSON body. */
export type ScriptedReply = { chunks: object[] } | { status: number; body: unknown };

export interface ScriptedEndpoint {
  /** Base URL, `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every request received: its headers and parsed JSON body. */
  requests: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * A local chat-completions endpoint for tests (a hosted model cannot run here): answers
 * `POST /v1/chat/completions` with the scripted replies in order, streamed as server-sent
 * events (`data: {chunk}` ... `data: [DONE]`) as OpenAI-compatible servers do.
 */
export async function startScriptedEndpoint(replies: ScriptedReply[]): Promise<ScriptedEndpoint> {
  const requests: ScriptedEndpoint['requests'] = [];
  const queue = [...replies];
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const part of req) text += part;
    requests.push({ headers: req.headers, body: text ? JSON.parse(text) : {} });
    const reply = req.method === 'POST' && req.url === '/v1/chat/completions' ? queue.shift() : undefined;
    if (!reply) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"message":"no scripted reply"}}');
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of reply.chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A `chat.completion.chunk` carrying one delta. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): object {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_750_000_000,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** A tool call streamed as models do: id and name first, the JSON arguments cut into pieces. */
export function toolCallChunks(index: number, id: string, name: string, args: string, pieces = 3): object[] {
  const size = Math.ceil(args.length / pieces);
  const parts = Array.from({ length: pieces }, (_, i) => args.slice(i * size, (i + 1) * size)).filter(
    Boolean,
  );
  return [
    chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }),
    ...parts.map((p) => chunk({ tool_calls: [{ index, function: { arguments: p } }] })),
  ];
}

/** The last chunk of a stream sent with `stream_options.include_usage`: no choice, the call's tokens. */
export function usageChunk(promptTokens: number, completionTokens: number, cachedTokens = 0): object {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_750_000_000,
    model: 'test-model',
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens },
    },
  };
}
