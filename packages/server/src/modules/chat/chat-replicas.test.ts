import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import {
  bearer,
  type Replica,
  startReplica,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { listen } from '../data/test-support.ts';
import { chatClient, type Line, messageId, startGatedModel } from './test-support.ts';

const redisUrl = process.env.TESSERA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

// Two application instances need a store both can open: PGlite is one process's.
const onPostgres = inject('testDb') === 'postgres';
const runs = onPostgres && (await redisReachable());
if (!runs)
  console.warn(
    `chat across replicas: SKIPPED, it needs TESSERA_TEST_DB=postgres and Redis at ${redisUrl} (TESSERA_TEST_REDIS_URL)`,
  );

/** Reads a stream line by line, for a test that acts between lines. */
async function openStream(url: string, apiKey: string, body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Api-Key ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const lines: Line[] = [];
  let pending = '';
  const more = async (): Promise<boolean> => {
    const { done, value } = await reader.read();
    if (done) return false;
    pending += decoder.decode(value, { stream: true });
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part));
    return true;
  };
  return {
    lines,
    async until(test: (line: Line) => boolean): Promise<void> {
      while (!lines.some(test)) if (!(await more())) throw new Error('the stream ended first');
    },
    async rest(): Promise<Line[]> {
      while (await more());
      return lines;
    },
  };
}

/**
 * Replicas sharing chat runs (DESIGN.md "Chat agent", REDIS_URL): two application instances on
 * one PostgreSQL store and one Redis, a turn running on A while B follows it, aborts it, and
 * resumes it after A suspended it. A subscriber of our own watches what goes through Redis.
 */
describe.skipIf(!runs)('chat across replicas through Redis (PostgreSQL)', () => {
  let server: TestServer;
  let replica: Replica;
  let model: Awaited<ReturnType<typeof startGatedModel>>;
  let chatA: ReturnType<typeof chatClient>;
  let chatB: ReturnType<typeof chatClient>;
  let observer: Redis;
  const heard: { channel: string; message: string }[] = [];
  const session = { externalId: 'replicated' };

  beforeAll(async () => {
    server = await startTestServer({ redisUrl });
    replica = await startReplica(server);
    model = await startGatedModel();
    const agent = await server.app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      headers: bearer(server.adminKey),
      payload: {
        name: 'gated',
        deploymentId: server.demoDeploymentId,
        brain: { kind: 'openai', baseURL: model.url, model: 'gated-model' },
      },
    });
    chatA = chatClient(await listen(server), server.adminKey, agent.json().id);
    const baseB = await replica.app.listen({ host: '127.0.0.1', port: 0 });
    chatB = chatClient(baseB, server.adminKey, agent.json().id);
    observer = new Redis(redisUrl);
    observer.on('pmessage', (_pattern, channel, message) => heard.push({ channel, message }));
    await observer.psubscribe(`${server.config.redisPrefix}:chat:*`);
  });
  beforeEach(() => model.reset());
  afterAll(async () => {
    await model?.close();
    observer?.disconnect();
    await replica?.close();
    // the test's HTTP client can leave a connection open that never sent a request, which the
    // server would wait on for its headers timeout (a minute) while closing
    server?.app.server.closeAllConnections();
    await server?.close();
  });

  const published = (chatId: string) =>
    heard.filter((h) => h.channel.includes(chatId)).map((h) => JSON.parse(h.message));
  const statusOf = async (chatId: string) =>
    (
      await server.store.db
        .selectFrom('chat_runs')
        .select('status')
        .where('thread_id', '=', chatId)
        .executeTakeFirstOrThrow()
    ).status;

  it('a turn running on A is followed live on B: B reads what A streams, line for line', async () => {
    const body = { input: 'hello', messageId: messageId(), sessionSettings: session };
    const started = await chatA.readUntil(body, (l) => l.id === '__cutoff__');
    const chatId = started[0].state.chatId;
    await model.started();
    const onA = chatA.turn({ ...body, chatId });
    // B follows a run it does not execute: the stored log, then what A publishes
    const onB = await openStream(chatB.url('stream-chat-state'), server.adminKey, { ...body, chatId });
    await onB.until((l) => l.isDelta === true && l.content === 'Let me look.');
    model.release();
    const [a, b] = [await onA, await onB.rest()];
    expect(b).toEqual(a.lines);
    expect(b.filter((l) => l.graphPath?.[0] === 'final').at(-1)?.content).toBe('Let me look. Done.');
    expect(b.at(-1)?.id).toBe('__usage__');
    // every line went through Redis once stored, then the end
    const messages = published(chatId);
    expect(messages.filter((m) => 'line' in m).map((m) => JSON.parse(m.line))).toEqual(a.lines);
    expect(messages.at(-1)).toEqual({ end: true });
    expect(await statusOf(chatId)).toBe('done');
  });

  it('an abort asked of B stops the turn running on A', async () => {
    const body = { input: 'stop me', messageId: messageId(), sessionSettings: session };
    const started = await chatA.readUntil(body, (l) => l.id === '__cutoff__');
    const chatId = started[0].state.chatId;
    await model.started();
    const onA = chatA.turn({ ...body, chatId });
    const res = await chatB.abort({ chatId });
    expect(res.status).toBe(204);
    const { lines } = await onA;
    expect(lines.at(-2)).toMatchObject({ id: '__aborted__', type: 'abort', code: 'chat_aborted' });
    expect(lines.at(-1)?.id).toBe('__usage__');
    expect(lines.some((l) => l.graphPath?.[0] === 'final')).toBe(false);
    // B told every replica through Redis
    const stops = heard
      .filter((h) => h.channel === `${server.config.redisPrefix}:chat:stop`)
      .map((h) => JSON.parse(h.message));
    expect(stops.some((s) => s.threadId === chatId)).toBe(true);
    expect(await statusOf(chatId)).toBe('aborted');
  });

  it('B following a turn sees A suspend it, then the same request on B resumes it there', async () => {
    const body = { input: 'long question', messageId: messageId(), sessionSettings: session };
    const started = await chatA.readUntil(body, (l) => l.id === '__cutoff__');
    const chatId = started[0].state.chatId;
    await model.started();
    const onB = await openStream(chatB.url('stream-chat-state'), server.adminKey, { ...body, chatId });
    await onB.until((l) => l.isDelta === true && l.content === 'Let me look.');
    // A shuts down (its preClose hook); the held model call is cut once the grace has passed
    await server.services.chat.suspendAll(100);
    const followed = await onB.rest();
    expect(followed.at(-2)).toMatchObject({
      id: '__suspended__',
      retryable: true,
      messageId: body.messageId,
    });
    expect(followed.at(-1)?.id).toBe('__usage__');
    expect(await statusOf(chatId)).toBe('suspended');

    model.reset();
    const resumed = chatB.turn({ ...body, chatId });
    await model.started();
    model.release();
    const { lines } = await resumed;
    expect(lines.slice(0, followed.length - 2)).toEqual(followed.slice(0, -2));
    expect(lines.filter((l) => l.graphPath?.[0] === 'final').at(-1)?.content).toBe('Let me look. Done.');
    expect(lines.some((l) => l.id === '__suspended__')).toBe(false);
    expect(await statusOf(chatId)).toBe('done');
  });
});
