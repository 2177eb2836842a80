import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replica, startReplica, startTestServer, type TestServer } from '../../../test/harness.ts';
import { demoAgentId, type Line, messageId } from './test-support.ts';

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
  const session = { externalId: 'survivor' };
  beforeAll(async () => {
    server = await startTestServer();
    agentId = await demoAgentId(server);
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
});
