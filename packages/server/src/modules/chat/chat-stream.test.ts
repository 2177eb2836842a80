import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { listen } from '../data/test-support.ts';
import { chatClient, demoAgentId, type Line, messageId } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const SENTINELS = ['__cutoff__', '__state__', '__usage__'];

/** Spec 4.6's rules over every line of one real turn. */
function checkTurn(lines: Line[], input: string, id: string) {
  expect(lines[0]).toMatchObject({
    id: '__cutoff__',
    role: 'assistant',
    sort: 0,
    state: { isStreaming: true },
  });
  expect(typeof lines[0].state.chatId).toBe('string');
  expect(lines[1]).toEqual({ id, role: 'user', content: input, isDelta: false, sort: 1 });
  expect(lines.at(-1)).toMatchObject({
    id: '__usage__',
    type: 'usage',
    usage: { llmCalls: expect.any(Number) },
  });
  expect(lines.at(-1)).not.toHaveProperty('role');
  expect(lines.at(-2)).toMatchObject({ id: '__state__', role: 'assistant', isDelta: false });
  for (const line of lines) expect(line.error).toBeUndefined();

  const body = lines.slice(2, -2);
  const seen = new Map<string, Line>();
  for (const line of body) {
    expect(line.role).toBe('assistant');
    expect(SENTINELS).not.toContain(line.id);
    const earlier = seen.get(line.id);
    if (earlier) expect(line.sort).toBe(earlier.sort);
    if (line.toolCall) {
      expect(typeof line.toolCall.input).toBe('string');
      JSON.parse(line.toolCall.input);
      if (!earlier) {
        // first emitted in process, without result; then re-emitted with it (spec 3)
        expect(line.isInProcess).toBe(true);
        expect(line.toolCall.result).toBeUndefined();
        expect(line.graphPath).toEqual(['service_data_analyst_agent', 'tools']);
      } else {
        expect(line.isInProcess).toBe(false);
        expect(typeof line.toolCall.result).toBe('string');
      }
    }
    if (line.isDelta) expect(line.isInProcess).toBe(true);
    seen.set(line.id, line);
  }
  // every message ends complete: no message is left in process or as a delta
  for (const last of seen.values()) {
    expect(last.isInProcess).toBe(false);
    expect(last.isDelta).toBe(false);
  }
  const finals = body.filter(
    (l) => l.role === 'assistant' && l.graphPath?.[0] === 'final' && l.graphPath.length <= 2,
  );
  expect(finals.length).toBeGreaterThan(0);
  const answer = finals.at(-1) as Line;
  expect(answer).toMatchObject({ isInProcess: false, isDelta: false });
  expect(body.indexOf(answer)).toBe(body.length - 1);
  return { answer, tools: [...seen.values()].filter((l) => l.toolCall), state: lines.at(-2) as Line };
}

describe('chat stream (spec 4.6) over HTTP', () => {
  let server: TestServer;
  let chat: ReturnType<typeof chatClient>;
  let agentId: number;
  beforeAll(async () => {
    server = await startTestServer();
    agentId = await demoAgentId(server);
    chat = chatClient(await listen(server), server.adminKey, agentId);
  });
  afterAll(() => server?.close());

  const admin = { externalId: 'analyst-1', groups: ['admin'] };

  it('streams one turn in the order and shape of spec 4.6, then keeps the thread', async () => {
    const id = messageId();
    const res = await chat.turn({
      input: 'How many orders are there?',
      messageId: id,
      sessionSettings: admin,
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/x-ndjson');
    const { answer, tools, state } = checkTurn(res.lines, 'How many orders are there?', id);
    const sql = tools.find((t) => t.toolCall.name === 'serviceSqlApi');
    const result = JSON.parse(sql?.toolCall.result);
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ totalRows: 1, uuid: expect.any(String), sqlQuery: expect.any(String) });
    expect(result.data.length).toBeLessThanOrEqual(100);
    const count = Number(result.data[0][0]);
    expect(answer.content.replaceAll(',', '')).toContain(String(count));
    const messages = state.state.messages;
    expect(messages[0]).toEqual({
      lc: 1,
      type: 'constructor',
      id: ['langchain_core', 'messages', 'HumanMessage'],
      kwargs: { content: 'How many orders are there?' },
    });
    expect(messages.at(-1)).toMatchObject({
      id: ['langchain_core', 'messages', 'AIMessage'],
      kwargs: { content: answer.content },
    });
    // the built-in brain calls no language model: no model, no call, no token (wire.ts addUsage)
    expect(res.lines.at(-1)?.usage).toEqual({
      models: [],
      llmCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheWriteTokens: 0,
      cacheReadTokens: 0,
      totalTokens: 0,
    });

    // a second turn on the thread carries the first in its state; a read returns the thread
    const chatId = res.lines[0].state.chatId;
    const second = await chat.turn({
      input: 'Average order amount by status',
      chatId,
      messageId: messageId(),
      sessionSettings: admin,
    });
    expect(second.status).toBe(200);
    const turn2 = checkTurn(second.lines, 'Average order amount by status', second.lines[1].id);
    const humans = turn2.state.state.messages.filter((m: Line) => m.id[2] === 'HumanMessage');
    expect(humans.map((m: Line) => m.kwargs.content)).toEqual([
      'How many orders are there?',
      'Average order amount by status',
    ]);
    const chart = JSON.parse(
      JSON.parse(turn2.tools.find((t) => t.toolCall.name === 'serviceSqlApi')?.toolCall.result).vegaSpec,
    );
    expect(chart.$schema).toContain('vega-lite/v5');
    expect(chart.data?.values).toBeUndefined();

    const read = await chat.turn({ chatId, sessionSettings: admin });
    expect(read.lines[0]).toMatchObject({ id: '__cutoff__', state: { chatId, isStreaming: false } });
    expect(read.lines.at(-1)?.id).toBe('__usage__');
    expect(read.lines.filter((l) => l.role === 'user').map((l) => l.content)).toEqual([
      'How many orders are there?',
      'Average order amount by status',
    ]);
    expect(read.lines.filter((l) => l.graphPath?.[0] === 'final').map((l) => l.content)).toEqual([
      answer.content,
      turn2.answer.content,
    ]);
  });

  it('a thread belongs to its user: another user cannot read or continue it', async () => {
    const res = await chat.turn({ input: 'How many orders are there?', sessionSettings: admin });
    const chatId = res.lines[0].state.chatId;
    const other = await chat.turn({
      chatId,
      input: 'And products?',
      sessionSettings: { externalId: 'someone-else' },
    });
    expect(other.status).toBe(403);
    expect((await chat.turn({ chatId: 'no-such-thread', sessionSettings: admin })).status).toBe(404);
  });

  it('writes each line as it comes, not the turn at once (even on the embedded store)', async () => {
    // a second asking: the model and the answer are cached, nothing in the turn waits on I/O
    await chat.turn({ input: 'How many orders are there?', sessionSettings: admin });
    const res = await fetch(chat.url('stream-chat-state'), {
      method: 'POST',
      headers: { authorization: `Api-Key ${server.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'How many orders are there?', sessionSettings: admin }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const reads: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads.push(decoder.decode(value, { stream: true }));
    }
    const readOf = (needle: string) => reads.findIndex((r) => r.includes(needle));
    // the cutoff reached the client in an earlier read than the final answer
    expect(readOf('"id":"__cutoff__"')).toBeGreaterThanOrEqual(0);
    expect(readOf('"graphPath":["final"]')).toBeGreaterThan(readOf('"id":"__cutoff__"'));
  });

  it('another user asking for a thread is refused before anything is written', async () => {
    const db = server.store.db;
    const owner = await chat.turn({ input: 'How many orders are there?', sessionSettings: admin });
    const chatId = owner.lines[0].state.chatId;
    // an existing ephemeral user whose lifetime a session would extend
    const bystander = await chat.turn({
      input: 'How many orders are there?',
      sessionSettings: { externalId: 'bystander', ephemeralTtlSeconds: 3600 },
    });
    expect(bystander.status).toBe(200);
    const fingerprint = async () =>
      JSON.stringify([
        await db.selectFrom('embed_users').selectAll().orderBy('id').execute(),
        await db.selectFrom('chat_threads').selectAll().orderBy('id').execute(),
        await db.selectFrom('chat_runs').selectAll().orderBy('id').execute(),
        await db
          .selectFrom('chat_run_lines')
          .select(['run_id', 'seq'])
          .orderBy('run_id')
          .orderBy('seq')
          .execute(),
      ]);
    const before = await fingerprint();
    for (const sessionSettings of [
      { externalId: 'bystander', ephemeralTtlSeconds: 604_800 },
      { externalId: 'bystander', isEphemeral: false },
      { externalId: 'brand-new-intruder', isEphemeral: false },
      { externalId: 'brand-new-intruder' },
      { internalId: 'admin@localhost' },
    ]) {
      for (const body of [
        { chatId, input: 'And products?', messageId: messageId(), sessionSettings },
        { chatId, sessionSettings },
      ]) {
        const res = await chat.turn(body);
        expect(res.status, JSON.stringify(body)).toBe(403);
        expect(res.body).toContain('chat_thread_forbidden');
      }
    }
    expect(await fingerprint()).toBe(before);
  });

  it('a session with a row-level policy sees only its rows through both tools', async () => {
    const germany = { externalId: 'de-user', userAttributes: [{ name: 'country', value: 'DE' }] };
    const res = await chat.turn({ input: 'Number of customers by country', sessionSettings: germany });
    expect(res.status).toBe(200);
    const tools = res.lines.filter((l) => l.toolCall?.result);
    const meta = JSON.parse(tools.find((t) => t.toolCall.name === 'serviceMeta')?.toolCall.result);
    const customers = meta.cubes.find((c: Line) => c.name === 'customers');
    expect(customers.members.map((m: Line) => m.name)).not.toContain('customers.email');
    const rows = JSON.parse(tools.find((t) => t.toolCall.name === 'serviceSqlApi')?.toolCall.result).data;
    expect(rows.length).toBe(1);
    expect(rows[0]).toContain('DE');
    // the same question as an admin session sees every country
    const all = await chat.turn({ input: 'Number of customers by country', sessionSettings: admin });
    const allRows = JSON.parse(
      all.lines.filter((l) => l.toolCall?.result && l.toolCall.name === 'serviceSqlApi')[0].toolCall.result,
    ).data;
    expect(allRows.length).toBeGreaterThan(1);
  });

  it.each([
    [{ input: 'x' }, 'sessionSettings'],
    [{ input: 'x', sessionSettings: {} }, 'sessionSettings/externalId'],
    [{ input: 'x', sessionSettings: { externalId: 'Has Caps' } }, 'sessionSettings/externalId'],
    [{ input: 'x', messageId: '123-message', sessionSettings: admin }, 'messageId'],
    [
      { input: 'x', sessionSettings: { internalId: 'admin@localhost', groups: ['a'] } },
      'sessionSettings/groups',
    ],
    [
      { input: 'x', sessionSettings: { internalId: 'admin@localhost', userAttributes: [] } },
      'sessionSettings/userAttributes',
    ],
    [
      { input: 'x', sessionSettings: { internalId: 'admin@localhost', securityContext: {} } },
      'sessionSettings/securityContext',
    ],
    [{ input: 'x', sessionSettings: { internalId: 'admin@localhost', roles: [] } }, 'sessionSettings/roles'],
    [{ input: 'x', sessionSettings: { internalId: 'nobody@example.com' } }, 'sessionSettings/internalId'],
    [
      { input: 'x', sessionSettings: { externalId: 'a', ephemeralTtlSeconds: 604_801 } },
      'sessionSettings/ephemeralTtlSeconds',
    ],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const res = await chat.turn(body);
    expect(res.status).toBe(400);
    expect(res.body).toContain(field);
  });

  it('an internal user chats with their own permissions', async () => {
    const res = await chat.turn({
      input: 'How many orders are there?',
      sessionSettings: { internalId: 'Admin@Localhost' },
    });
    expect(res.status).toBe(200);
    checkTurn(res.lines, 'How many orders are there?', res.lines[1].id);
  });

  it('refuses a missing key (401), an unknown agent (404), and all while chat is off (403)', async () => {
    const res = await fetch(chat.url('stream-chat-state'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'x', sessionSettings: admin }),
    });
    expect(res.status).toBe(401);
    const base = new URL(chat.url('x')).origin;
    const unknown = chatClient(base, server.adminKey, 999_999);
    expect((await unknown.turn({ input: 'x', sessionSettings: admin })).status).toBe(404);
    const db = server.store.db;
    await db.updateTable('tenants').set({ chat_enabled: false }).where('id', '=', server.tenantId).execute();
    try {
      const off = await chat.turn({ input: 'x', sessionSettings: admin });
      expect(off.status).toBe(403);
      expect(off.body).toContain('chat_disabled');
    } finally {
      await db.updateTable('tenants').set({ chat_enabled: true }).where('id', '=', server.tenantId).execute();
    }
  });

  it('answers an unknown chatId with 404 and creates no chat user', async () => {
    const users = () =>
      server.store.db
        .selectFrom('embed_users')
        .select(['id', 'expires_at'])
        .where('tenant_id', '=', server.tenantId)
        .where('external_id', '=', 'nobody-yet')
        .execute();
    const res = await chat.turn({
      input: 'How many orders are there?',
      chatId: 'no-such-thread',
      sessionSettings: { externalId: 'nobody-yet' },
    });
    expect(res.status).toBe(404);
    expect(res.body).toContain('chat_not_found');
    expect(await users()).toEqual([]);
  });

  it('persists at most 10,000 non-ephemeral chat users per account; the next is refused', async () => {
    const db = server.store.db;
    const { n } = await db
      .selectFrom('embed_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', server.tenantId)
      .where('embed_tenant_id', 'is', null)
      .where('expires_at', 'is', null)
      .executeTakeFirstOrThrow();
    const missing = 10_000 - Number(n);
    await sql`insert into embed_users (tenant_id, external_id)
      select ${server.tenantId}::int, 'bulk-' || i from generate_series(1, ${missing}::int) as i`.execute(db);
    const refused = await chat.turn({
      input: 'x',
      sessionSettings: { externalId: 'one-too-many', isEphemeral: false },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('chat_user_limit');
    const ephemeral = await chat.turn({
      input: 'How many orders are there?',
      sessionSettings: { externalId: 'one-too-many' },
    });
    expect(ephemeral.status).toBe(200);
    const existing = await chat.turn({
      input: 'How many orders are there?',
      sessionSettings: { externalId: 'bulk-1', isEphemeral: false },
    });
    expect(existing.status).toBe(200);
  });
});
