import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  type Replica,
  startReplica,
  startTestServer,
  type TestServer,
} from '../../../test/harness.ts';
import { listen } from '../data/test-support.ts';
import { chunk, toolCallChunks, usageChunk } from './brain/openai/scripted-endpoint.ts';
import { INTERRUPTED_TOOL_ERROR } from './history.ts';
import { chatClient, demoAgentId, type Line, messageId, startStepModel } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

/**
 * Runs a process left behind (reference chat-api.yaml "Suspensions"; migration 0012-chat-leases):
 * a run still `running` whose lease lapsed is suspended when an application starts, and the
 * same request resumes it.
 */
describe('chat runs of a process that died', () => {
  let server: TestServer;
  let replica: Replica | undefined;
  let agentId: number;
  let base: string;
  const session = { externalId: 'survivor' };
  beforeAll(async () => {
    server = await startTestServer();
    agentId = await demoAgentId(server);
    base = await listen(server);
  });
  afterAll(async () => {
    await replica?.close();
    await server?.close();
  });

  const db = () => server.store.db;

  /** A run as a process writes it before dying: `running`, its log cut after `lines`. */
  async function crashedRun(chatId: string, input: string, lines: Line[], lease: 'lapsed' | 'fresh') {
    const id = messageId();
    const run = await db()
      .insertInto('chat_runs')
      .values({
        thread_id: chatId,
        message_id: id,
        input,
        context: JSON.stringify({ branch: 'main', now: new Date().toISOString() }),
        heartbeat_at: lease === 'lapsed' ? sql`now() - interval '1 hour'` : sql`now()`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const log = [
      { id: '__cutoff__', role: 'assistant', sort: 0, state: { chatId, isStreaming: true } },
      { id, role: 'user', content: input, isDelta: false, sort: 1 },
      ...lines,
    ];
    for (const [seq, line] of log.entries())
      await db()
        .insertInto('chat_run_lines')
        .values({ run_id: run.id, seq, line: JSON.stringify(line) })
        .execute();
    return { runId: run.id, messageId: id };
  }

  it('at start, a run whose lease lapsed is suspended, reported on a read, and resumed by the same request', async () => {
    const inject = (app: TestServer['app'], body: object) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/public/default/agents/${agentId}/chat/stream-chat-state`,
        headers: { authorization: `Api-Key ${server.adminKey}` },
        payload: body,
      });
    const chat = {
      turn: async (app: TestServer['app'], body: object) => {
        const res = await inject(app, body);
        return {
          status: res.statusCode,
          lines: res.body
            .split('\n')
            .filter((l) => l.trim() !== '')
            .map((l) => JSON.parse(l) as Line),
        };
      },
    };
    const first = await chat.turn(server.app, {
      input: 'How many orders are there?',
      sessionSettings: session,
    });
    const chatId = first.lines[0].state.chatId;
    const otherThread = (
      await chat.turn(server.app, { input: 'How many orders are there?', sessionSettings: session })
    ).lines[0].state.chatId;
    const input = 'How many orders are there?';
    const dead = await crashedRun(chatId, input, [], 'lapsed');
    // a run another live replica executes renews its lease: it is left alone
    const alive = await crashedRun(otherThread, input, [], 'fresh');
    const status = async (runId: number) =>
      (await db().selectFrom('chat_runs').select('status').where('id', '=', runId).executeTakeFirstOrThrow())
        .status;
    expect(await status(dead.runId)).toBe('running');

    replica = await startReplica(server);
    expect(await status(dead.runId)).toBe('suspended');
    expect(await status(alive.runId)).toBe('running');
    const log = await db()
      .selectFrom('chat_run_lines')
      .select('line')
      .where('run_id', '=', dead.runId)
      .orderBy('seq')
      .execute();
    const ends = log.slice(-2).map((l) => JSON.parse(l.line));
    expect(ends[0]).toMatchObject({ id: '__suspended__', code: 'chat_suspended', messageId: dead.messageId });
    expect(ends[1]).toMatchObject({ id: '__usage__', type: 'usage' });

    // a read of the thread reports the pending suspension
    const read = await chat.turn(replica.app, { chatId, sessionSettings: session });
    expect(read.lines[0].state).toMatchObject({
      isStreaming: false,
      suspended: { messageId: dead.messageId },
    });

    // the same request resumes it, on any replica, to its end
    const resumed = await chat.turn(replica.app, {
      chatId,
      input,
      messageId: dead.messageId,
      sessionSettings: session,
    });
    expect(resumed.status).toBe(200);
    const lines = resumed.lines;
    expect(lines[0]).toMatchObject({ id: '__cutoff__', state: { chatId } });
    expect(lines[1]).toMatchObject({ id: dead.messageId, role: 'user', content: input });
    expect(lines.some((l) => l.id === '__suspended__')).toBe(false);
    expect(lines.filter((l) => l.id === '__usage__')).toHaveLength(1);
    expect(lines.at(-1)?.id).toBe('__usage__');
    expect(lines.at(-2)?.id).toBe('__state__');
    const answer = lines.filter((l) => l.graphPath?.[0] === 'final').at(-1) as Line;
    const firstAnswer = first.lines.filter((l) => l.graphPath?.[0] === 'final').at(-1) as Line;
    expect(answer.content).toBe(firstAnswer.content);
    expect(await status(dead.runId)).toBe('done');
  });

  /** Tool-call messages of a stream as they end: id, name, input and result. */
  const toolCalls = (lines: Line[]) => {
    const calls = new Map<string, Line>();
    for (const l of lines) if (l.toolCall) calls.set(l.id, { id: l.id, ...l.toolCall });
    return [...calls.values()];
  };
  const thinkingOf = (lines: Line[]) =>
    lines
      .filter((l) => l.isDelta && typeof l.thinking === 'string')
      .map((l) => l.thinking)
      .join('');
  const answerOf = (lines: Line[]) => lines.filter((l) => l.graphPath?.[0] === 'final').at(-1)?.content;

  it('a suspended turn continues from its log: finished tool calls are not made again', async () => {
    const chat = chatClient(base, server.adminKey, agentId);
    const input = 'How many orders are there?';
    const full = await chat.turn({ input, sessionSettings: session });
    expect(full.status).toBe(200);
    const body = full.lines.slice(2, -2);
    const metaDone = body.findIndex((l) => l.toolCall?.name === 'serviceMeta' && l.toolCall.result);
    const thinkingAfter = body.findIndex((l, i) => i > metaDone && l.isDelta && l.thinking);
    const sqlStarted = body.findIndex((l) => l.toolCall?.name === 'serviceSqlApi' && l.isInProcess);
    expect([metaDone, thinkingAfter, sqlStarted].every((i) => i > 0)).toBe(true);
    expect(thinkingAfter).toBeLessThan(sqlStarted);

    // cut in the middle of a thinking message, then with a query in flight
    for (const cut of [thinkingAfter, sqlStarted]) {
      const thread = await chat.turn({ input, sessionSettings: session });
      const chatId = thread.lines[0].state.chatId;
      const id = messageId();
      const kept = [
        { ...full.lines[0], state: { chatId, isStreaming: true } },
        { ...full.lines[1], id },
        ...body.slice(0, cut + 1),
      ];
      const run = await db()
        .insertInto('chat_runs')
        .values({
          thread_id: chatId,
          message_id: id,
          input,
          status: 'suspended',
          context: JSON.stringify({ branch: 'main', now: new Date().toISOString() }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const log = [
        ...kept,
        { id: '__suspended__', type: 'suspend', code: 'chat_suspended', retryable: true, messageId: id },
        { id: '__usage__', type: 'usage', usage: { models: [], llmCalls: 0 } },
      ];
      for (const [seq, line] of log.entries())
        await db()
          .insertInto('chat_run_lines')
          .values({ run_id: run.id, seq, line: JSON.stringify(line) })
          .execute();

      const resumed = await chat.turn({ chatId, input, messageId: id, sessionSettings: session });
      expect(resumed.status).toBe(200);
      const lines = resumed.lines;
      // the log is replayed as it was, then the turn goes on
      expect(lines.slice(0, kept.length)).toEqual(kept);
      expect(lines.some((l) => l.id === '__suspended__')).toBe(false);
      expect(lines.at(-1)?.id).toBe('__usage__');
      expect(lines.at(-2)?.id).toBe('__state__');
      expect(answerOf(lines)).toBe(answerOf(full.lines));
      // what was said is not said again
      expect(thinkingOf(lines)).toBe(thinkingOf(full.lines));
      // every message ends complete, the one cut mid-stream included
      const last = new Map<string, Line>();
      for (const l of lines.slice(2, -2)) last.set(l.id, l);
      for (const l of last.values()) expect(l).toMatchObject({ isInProcess: false, isDelta: false });

      const calls = toolCalls(lines);
      const loggedMeta = body[metaDone].id;
      expect(calls.filter((c) => c.name === 'serviceMeta').map((c) => c.id)).toEqual([loggedMeta]);
      const finished = calls.filter((c) => !JSON.parse(c.result).error);
      expect(new Set(finished.map((c) => `${c.name} ${c.input}`)).size).toBe(finished.length);
      expect(finished.length).toBe(toolCalls(full.lines).length);
      if (cut === sqlStarted) {
        // the query in flight did not finish: it says so, and the turn makes it once more
        const interrupted = calls.find((c) => c.id === body[sqlStarted].id) as Line;
        expect(JSON.parse(interrupted.result).error).toBe(INTERRUPTED_TOOL_ERROR);
        expect(finished.filter((c) => c.input === interrupted.input)).toHaveLength(1);
      }
      const row = await db()
        .selectFrom('chat_runs')
        .select('status')
        .where('id', '=', run.id)
        .executeTakeFirst();
      expect(row?.status).toBe('done');
    }
  });

  it('a turn suspended while the model answers continues with its finished tool call and the model picks up after it', async () => {
    const sqlArgs = JSON.stringify({
      sqlQuery: 'SELECT MEASURE(orders.count) AS n FROM orders',
      queryTitle: 'Orders',
      description: 'Number of orders',
      userRequest: 'How many orders?',
    });
    const model = await startStepModel([
      {
        chunks: [
          ...toolCallChunks(0, 'call_meta', 'serviceMeta', '{"searchQuery":"orders"}'),
          chunk({}, 'tool_calls'),
          usageChunk(500, 20),
        ],
      },
      {
        chunks: [
          ...toolCallChunks(0, 'call_sql', 'serviceSqlApi', sqlArgs),
          chunk({}, 'tool_calls'),
          usageChunk(900, 60, 400),
        ],
        hold: true,
      },
      {
        chunks: [
          chunk({ role: 'assistant', content: 'There are many orders.' }),
          chunk({}, 'stop'),
          usageChunk(1300, 8, 1200),
        ],
      },
    ]);
    try {
      const agent = await server.app.inject({
        method: 'POST',
        url: '/api/v1/agents',
        headers: bearer(server.adminKey),
        payload: {
          name: 'stepwise',
          deploymentId: server.demoDeploymentId,
          brain: { kind: 'openai', baseURL: model.url, model: 'step-model' },
        },
      });
      const chat = chatClient(base, server.adminKey, agent.json().id);
      const body = { input: 'How many orders?', messageId: messageId(), sessionSettings: session };
      const original = chat.turn(body);
      await model.holding();
      // the model never answers the held request: the turn is cut once the grace has passed
      await server.services.chat.suspendAll(100);
      const first = (await original).lines;
      expect(first.at(-2)).toMatchObject({ id: '__suspended__' });
      // the first part's one finished model call; the cut one reported nothing
      expect(first.at(-1)?.usage).toEqual({
        models: ['test-model'],
        llmCalls: 1,
        inputTokens: 500,
        outputTokens: 20,
        cacheWriteTokens: 0,
        cacheReadTokens: 0,
        totalTokens: 520,
      });
      const chatId = first[0].state.chatId;

      const resumed = (await chat.turn({ ...body, chatId })).lines;
      expect(resumed.slice(0, first.length - 2)).toEqual(first.slice(0, -2));
      expect(answerOf(resumed)).toBe('There are many orders.');
      // the whole turn's calls: the first part's, then the two of the resumed part
      expect(resumed.filter((l) => l.id === '__usage__')).toHaveLength(1);
      expect(resumed.at(-1)?.usage).toEqual({
        models: ['test-model'],
        llmCalls: 3,
        inputTokens: 500 + 500 + 100,
        outputTokens: 20 + 60 + 8,
        cacheWriteTokens: 0,
        cacheReadTokens: 400 + 1200,
        totalTokens: 520 + 960 + 1308,
      });
      const calls = toolCalls(resumed);
      expect(calls.map((c) => c.name)).toEqual(['serviceMeta', 'serviceSqlApi']);
      expect(calls.every((c) => !JSON.parse(c.result).error)).toBe(true);
      // requests: the first step, the held one (cut), the same step again, the answer
      expect(model.requests).toHaveLength(4);
      const again = model.requests[2].messages as Line[];
      expect(again.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(again[2].tool_calls.map((c: Line) => c.function.name)).toEqual(['serviceMeta']);
      expect(JSON.parse(again[3].content).cubes.length).toBeGreaterThan(0);
    } finally {
      await model.close();
    }
  });
});
