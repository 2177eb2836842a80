import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { listen } from '../data/test-support.ts';
import { chatClient, type Line, messageId, startGatedModel } from './test-support.ts';

/**
 * Runs (DESIGN.md "Chat agent") over HTTP, with an agent whose model answers only when the test
 * opens the gate: the turn is provably streaming while the test resubscribes, interrupts or aborts.
 */
describe('chat runs: idempotency, conflicts, resubscription, abort', () => {
  let server: TestServer;
  let model: Awaited<ReturnType<typeof startGatedModel>>;
  let chat: ReturnType<typeof chatClient>;
  const session = { externalId: 'runner' };
  beforeAll(async () => {
    server = await startTestServer();
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
    chat = chatClient(await listen(server), server.adminKey, agent.json().id);
  });
  beforeEach(() => model.reset());
  afterAll(async () => {
    await model?.close();
    await server?.close();
  });

  const runsOf = (chatId: string) =>
    server.store.db.selectFrom('chat_runs').selectAll().where('thread_id', '=', chatId).execute();

  it('the same messageId twice at once is one run, and both streams are the whole turn', async () => {
    const id = messageId();
    const first = await chat.readUntil(
      { input: 'hello', messageId: id, sessionSettings: session },
      (l) => l.id === '__cutoff__',
    );
    const chatId = first[0].state.chatId;
    const body = { input: 'hello', chatId, messageId: id, sessionSettings: session };
    const both = Promise.all([chat.turn(body), chat.turn(body)]);
    await model.started();
    model.release();
    const [a, b] = await both;
    expect(a.status).toBe(200);
    expect(a.body).toBe(b.body);
    expect(a.lines[0].id).toBe('__cutoff__');
    expect(a.lines.at(-1)?.id).toBe('__usage__');
    const final = a.lines.filter((l) => l.graphPath?.[0] === 'final').at(-1) as Line;
    expect(final.content).toBe('Let me look. Done.');
    expect(await runsOf(chatId)).toHaveLength(1);
  });

  it('another message while the thread streams is refused with 409 "Streaming for thread is in progress"', async () => {
    const started = await chat.readUntil(
      { input: 'first', messageId: messageId(), sessionSettings: session },
      (l) => l.id === '__cutoff__',
    );
    const chatId = started[0].state.chatId;
    await model.started();
    const other = await chat.turn({
      input: 'second',
      chatId,
      messageId: messageId(),
      sessionSettings: session,
    });
    expect(other.status).toBe(409);
    expect(other.body).toContain('Streaming for thread is in progress');
    model.release();
    const read = await chat.turn({ chatId, sessionSettings: session });
    expect(read.status).toBe(200);
  });

  it('a dropped connection does not stop the run; resubscribing reads the whole turn', async () => {
    const id = messageId();
    const body = { input: 'keep going', messageId: id, sessionSettings: session };
    const partial = await chat.readUntil(body, (l) => l.isDelta === true && l.content === 'Let me look.');
    const chatId = partial[0].state.chatId;
    model.release();
    const again = await chat.turn({ ...body, chatId });
    expect(again.lines.slice(0, partial.length)).toEqual(partial);
    const final = again.lines.filter((l) => l.graphPath?.[0] === 'final').at(-1) as Line;
    expect(final.content).toBe('Let me look. Done.');
    expect(again.lines.at(-1)?.id).toBe('__usage__');
    const [run] = await runsOf(chatId);
    expect(run.status).toBe('done');
  });

  it('abort ends the streaming turn with __aborted__ then __usage__, and answers 204', async () => {
    const id = messageId();
    const body = { input: 'stop me', messageId: id, sessionSettings: session };
    const partial = await chat.readUntil(body, (l) => l.id === '__cutoff__');
    const chatId = partial[0].state.chatId;
    await model.started();
    const following = chat.turn({ ...body, chatId });
    const res = await chat.abort({ chatId });
    expect(res.status).toBe(204);
    const { lines } = await following;
    expect(lines.at(-2)).toMatchObject({ id: '__aborted__', type: 'abort', code: 'chat_aborted' });
    expect(lines.at(-1)?.id).toBe('__usage__');
    expect(lines.some((l) => l.graphPath?.[0] === 'final')).toBe(false);
    expect((await runsOf(chatId))[0].status).toBe('aborted');
    // the thread takes a new message afterwards
    model.reset();
    const next = chat.turn({ input: 'again', chatId, messageId: messageId(), sessionSettings: session });
    await model.started();
    model.release();
    expect((await next).status).toBe(200);
    expect((await chat.abort({ chatId: 'no-such-thread' })).status).toBe(404);
    expect((await chat.abort({ chatId, sessionSettings: { externalId: 'intruder' } })).status).toBe(403);
  });

  it('shutting down suspends the turn with __suspended__; the same request resumes it to the end', async () => {
    const id = messageId();
    const body = { input: 'long question', messageId: id, sessionSettings: session };
    // the request that starts the run follows it from the first line: it is attached once the model is called
    const original = chat.turn(body);
    await model.started();
    // what the server's preClose hook runs (http/app.ts); the gated model never reaches a step
    // boundary, so the turn is cut once the grace has passed
    await server.services.chat.suspendAll(100);
    const { lines } = await original;
    const chatId = lines[0].state.chatId;
    expect(lines.at(-2)).toMatchObject({
      id: '__suspended__',
      type: 'suspend',
      code: 'chat_suspended',
      retryable: true,
      messageId: id,
    });
    expect(lines.at(-1)?.id).toBe('__usage__');
    const read = await chat.turn({ chatId, sessionSettings: session });
    expect(read.lines[0].state).toMatchObject({ isStreaming: false, suspended: { messageId: id } });

    model.reset();
    const resumed = chat.turn({ ...body, chatId });
    await model.started();
    model.release();
    const done = await resumed;
    expect(done.lines.filter((l) => l.graphPath?.[0] === 'final').at(-1)?.content).toBe('Let me look. Done.');
    expect(done.lines.some((l) => l.id === '__suspended__')).toBe(false);
    const runs = await runsOf(chatId);
    expect(runs.map((r) => r.status)).toEqual(['done']);
  });
});
