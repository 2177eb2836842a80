import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatMessage, finalAnswer, isServiceSqlApiCall, streamChat } from '../src/index.ts';
import { type ListeningServer, startListening } from './support.ts';

/** `streamChat` against a real Tessera chat endpoint (spec 4.6) and its demo agent. */
describe('streamChat against the server', () => {
  let listening: ListeningServer;
  let agentId: string;
  beforeAll(async () => {
    listening = await startListening();
    const agents = await fetch(`${listening.baseUrl}/api/v1/agents`, {
      headers: { authorization: `Bearer ${listening.server.adminKey}` },
    });
    const items = (await agents.json()).items as { id: number; deploymentId: number }[];
    agentId = String(items.find((a) => a.deploymentId === listening.server.demoDeploymentId)?.id);
  });
  afterAll(() => listening?.close());

  const options = (extra: Partial<Parameters<typeof streamChat>[0]> = {}) => ({
    baseUrl: listening.baseUrl,
    accountName: 'default',
    agentId,
    apiKey: listening.server.adminKey,
    request: {
      input: 'How many orders are there?',
      sessionSettings: { externalId: 'client-user', groups: ['admin'] },
    },
    resubscribeDelayMs: 10,
    ...extra,
  });

  async function collect(stream: AsyncGenerator<ChatMessage>) {
    const byId = new Map<string, ChatMessage>();
    for await (const message of stream) byId.set(message.id as string, message);
    return [...byId.values()];
  }

  it('reads a whole turn: the final answer and the parsed SQL tool call', async () => {
    const messages = await collect(streamChat(options()));
    const answer = finalAnswer(messages);
    const sql = messages.map((m) => m.toolCall).find(isServiceSqlApiCall);
    expect(sql?.result && 'data' in sql.result ? sql.result.totalRows : undefined).toBe(1);
    const count =
      sql?.result && 'data' in sql.result ? String((sql.result.data as unknown[][])[0][0]) : 'none';
    expect(answer?.content?.replaceAll(',', '')).toContain(count);
    expect(messages.at(-1)?.id).toBe('__usage__');
  });

  it('resubscribes after a dropped connection and hands out the turn once', async () => {
    let calls = 0;
    const droppingFetch = async (request: Request) => {
      calls++;
      const response = await fetch(request);
      if (calls > 1 || !response.body) return response;
      // the first connection breaks after three lines
      const reader = response.body.getReader();
      let newlines = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          const text = new TextDecoder().decode(value);
          const cut = [...text].findIndex((c) => c === '\n' && ++newlines === 3);
          if (cut >= 0) {
            controller.enqueue(new TextEncoder().encode(text.slice(0, cut + 1)));
            await reader.cancel();
            controller.error(new TypeError('connection reset'));
            return;
          }
          controller.enqueue(value);
        },
      });
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const whole = await collect(streamChat(options()));
    const messages = await collect(streamChat(options({ fetch: droppingFetch })));
    expect(calls).toBe(2);
    expect(finalAnswer(messages)?.content).toBe(finalAnswer(whole)?.content);
    // merged deltas are not applied twice: every assistant message reads as in an unbroken turn
    const assistant = (list: ChatMessage[]) =>
      list.filter((m) => m.role === 'assistant' && !String(m.id).startsWith('__')).map((m) => m.content);
    expect(assistant(messages)).toEqual(assistant(whole));
    expect(messages.at(-1)?.id).toBe('__usage__');
  });
});
