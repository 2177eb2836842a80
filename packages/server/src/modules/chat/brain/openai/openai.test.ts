import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileModelOrThrow } from '@tessera/semantic';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbDriver } from '../../../../datasources/duckdb-driver.ts';
import { ensureSampleDatabase } from '../../../../datasources/sample/generate.ts';
import { sampleModelFiles } from '../../../../datasources/sample/model-files.ts';
import { createBrain } from '../index.ts';
import { ask, semanticTools } from '../test-support.ts';
import type { BrainEvent, ChatTools } from '../types.ts';
import {
  chunk,
  type ScriptedEndpoint,
  type ScriptedReply,
  startScriptedEndpoint,
  toolCallChunks,
  usageChunk,
} from './scripted-endpoint.ts';

/**
 * The OpenAI-compatible brain against a local endpoint speaking the chat-completions protocol
 * (SSE streaming, `tool_calls` deltas split across chunks), with the real tools over DuckDB.
 */
const API_KEY = 'sk-test-secret-0123456789';

describe('OpenAI-compatible brain', () => {
  let dir: string;
  let driver: DuckDbDriver;
  let tools: ChatTools;
  let endpoint: ScriptedEndpoint | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-brain-openai-'));
    const file = path.join(dir, 'sample.duckdb');
    await ensureSampleDatabase(file, 0.002);
    driver = await DuckDbDriver.open(file, true);
    tools = semanticTools(compileModelOrThrow(sampleModelFiles()), driver);
  });

  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
  });

  afterAll(async () => {
    await driver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(replies: ScriptedReply[], question = 'How many orders are there?', maxSteps?: number) {
    endpoint = await startScriptedEndpoint(replies);
    const brain = createBrain({
      kind: 'openai',
      baseURL: endpoint.url,
      model: 'test-model',
      apiKey: API_KEY,
      maxRetries: 0,
      ...(maxSteps ? { maxSteps } : {}),
    });
    return { ...(await ask(brain, tools, question)), requests: endpoint.requests };
  }

  const text = (events: BrainEvent[], type: 'content' | 'thinking') =>
    events.flatMap((e) => (e.type === type ? [e.delta] : [])).join('');

  it('streams a plain answer token by token, with the reasoning the server streams', async () => {
    const { answer, events, requests } = await run([
      {
        chunks: [
          chunk({ role: 'assistant', reasoning_content: 'The user greets me. ' }),
          chunk({ reasoning_content: 'I answer briefly.' }),
          chunk({ content: 'Hello' }),
          chunk({ content: ', how can I help?' }),
          chunk({}, 'stop'),
        ],
      },
    ]);
    expect(answer).toBe('Hello, how can I help?');
    expect(events.filter((e) => e.type === 'content')).toHaveLength(2);
    expect(text(events, 'thinking')).toBe('The user greets me. I answer briefly.');
    expect(events.at(-1)).toEqual({ type: 'final', content: 'Hello, how can I help?' });
    expect(requests).toHaveLength(1);
    expect(requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = requests[0].body as {
      model: string;
      stream: boolean;
      messages: { role: string }[];
      tools: unknown[];
    };
    expect(body.model).toBe('test-model');
    expect(body.stream).toBe(true);
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect((body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'serviceMeta',
      'serviceSqlApi',
    ]);
  });

  it('runs the tool calls of one reply, sends their results back, and answers from them', async () => {
    const sql = 'SELECT MEASURE(count) AS n FROM orders';
    const args = JSON.stringify({
      sqlQuery: sql,
      queryTitle: 'Orders',
      description: 'All orders',
      userRequest: 'How many orders',
    });
    const [meta0, ...metaRest] = toolCallChunks(0, 'call_meta', 'serviceMeta', '{"searchQuery":"orders"}');
    const [sql0, ...sqlRest] = toolCallChunks(1, 'call_sql', 'serviceSqlApi', args, 4);
    const { answer, events, requests } = await run([
      // two calls in one reply, their argument pieces interleaved
      {
        chunks: [
          chunk({ content: 'Let me count. ' }),
          meta0,
          sql0,
          ...metaRest.flatMap((m, i) => [m, sqlRest[i]]),
          ...sqlRest.slice(metaRest.length),
          chunk({}, 'tool_calls'),
        ],
      },
      { chunks: [chunk({ content: 'There are 2,000 orders.' }), chunk({}, 'stop')] },
    ]);
    const [[count]] = (await driver.query('SELECT count(*)::INTEGER AS n FROM orders', [])).map((r) => [r.n]);
    const results = events.filter((e) => e.type === 'tool_result');
    expect(events.filter((e) => e.type === 'tool_call').map((e) => [e.id, e.name])).toEqual([
      ['call_meta', 'serviceMeta'],
      ['call_sql', 'serviceSqlApi'],
    ]);
    expect(
      JSON.parse(
        (events.find((e) => e.type === 'tool_call' && e.id === 'call_sql') as { input: string }).input,
      ).sqlQuery,
    ).toBe(sql);
    const data = JSON.parse((results[1] as { result: string }).result);
    expect(data.data).toEqual([[String(count)]]);

    // the second request replays the assistant's calls and carries each result as a tool message
    const messages = requests[1].body.messages as {
      role: string;
      content: string | null;
      tool_call_id?: string;
      tool_calls?: { id: string; function: { arguments: string } }[];
    }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(messages[2].tool_calls?.map((c) => c.id)).toEqual(['call_meta', 'call_sql']);
    expect(messages[2].tool_calls?.[1].function.arguments).toBe(args);
    expect(messages[3]).toMatchObject({
      tool_call_id: 'call_meta',
      content: (results[0] as { result: string }).result,
    });
    expect(messages[4]).toMatchObject({
      tool_call_id: 'call_sql',
      content: (results[1] as { result: string }).result,
    });
    expect(messages[4].content).toContain(`"data":[["${count}"]]`);
    expect(answer).toBe('There are 2,000 orders.');
  });

  it('reports each model call with the token counts its server sent, cached tokens apart', async () => {
    const { events, requests } = await run([
      {
        chunks: [
          ...toolCallChunks(0, 'call_meta', 'serviceMeta', '{"searchQuery":"orders"}'),
          chunk({}, 'tool_calls'),
          usageChunk(1200, 40, 1000),
        ],
      },
      // a server that ignores stream_options: the call counts, its tokens are unknown (0)
      { chunks: [chunk({ content: 'Done.' }), chunk({}, 'stop')] },
    ]);
    expect(requests.every((r) => (r.body.stream_options as { include_usage?: boolean })?.include_usage)).toBe(
      true,
    );
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      {
        type: 'usage',
        model: 'test-model',
        inputTokens: 200,
        outputTokens: 40,
        cacheReadTokens: 1000,
        cacheWriteTokens: 0,
      },
      {
        type: 'usage',
        model: 'test-model',
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'final', content: 'Done.' });
  });

  it('sends a tool error back so that the model can correct its query', async () => {
    const bad = JSON.stringify({
      sqlQuery: 'SELECT MEASURE(nope) FROM orders',
      queryTitle: 'x',
      description: 'x',
      userRequest: 'x',
    });
    const good = JSON.stringify({
      sqlQuery: 'SELECT status, MEASURE(count) AS n FROM orders GROUP BY 1 ORDER BY 1',
      queryTitle: 'By status',
      description: 'x',
      userRequest: 'x',
    });
    const { answer, events, requests } = await run([
      { chunks: [...toolCallChunks(0, 'call_1', 'serviceSqlApi', bad), chunk({}, 'tool_calls')] },
      { chunks: [...toolCallChunks(0, 'call_2', 'serviceSqlApi', good), chunk({}, 'tool_calls')] },
      { chunks: [chunk({ content: 'Orders by status are in the table.' }), chunk({}, 'stop')] },
    ]);
    const results = events.filter((e) => e.type === 'tool_result') as { result: string; isError: boolean }[];
    expect(results.map((r) => r.isError)).toEqual([true, false]);
    expect(JSON.parse(results[0].result).error).toMatch(/nope/);
    const toolMessage = (requests[1].body.messages as { role: string; content: string }[]).at(-1)!;
    expect(toolMessage.role).toBe('tool');
    expect(JSON.parse(toolMessage.content).error).toMatch(/nope/);
    expect(JSON.parse(results[1].result).data.map((r: string[]) => r[0])).toContain('completed');
    expect(answer).toBe('Orders by status are in the table.');
  });

  it('turns a refused key into a clear error that never carries the key', async () => {
    const { events } = await run([
      {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${API_KEY}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      },
    ]);
    expect(events).toHaveLength(1);
    const [event] = events as { type: string; message: string }[];
    expect(event.type).toBe('error');
    expect(event.message).toMatch(/refused the agent's credentials \(HTTP 401\)/);
    expect(JSON.stringify(events)).not.toContain(API_KEY);
  });

  it('turns a failing endpoint into a clear error without its internals', async () => {
    const { events } = await run([
      { status: 500, body: { error: { message: 'CUDA out of memory at /srv/vllm/worker.py:88' } } },
    ]);
    expect(events).toEqual([{ type: 'error', message: 'The language model endpoint failed (HTTP 500).' }]);
  });

  it('passes on what a 4xx says, with the key taken out', async () => {
    const { events } = await run([
      { status: 400, body: { error: { message: `model "nope" not found for key ${API_KEY}` } } },
    ]);
    expect(events).toEqual([
      {
        type: 'error',
        message:
          'The language model endpoint rejected the request (HTTP 400): model "nope" not found for key [key]',
      },
    ]);
  });

  it('stops after its step budget when the model keeps calling tools', async () => {
    const call = (id: string): ScriptedReply => ({
      chunks: [...toolCallChunks(0, id, 'serviceMeta', '{"searchQuery":"x"}'), chunk({}, 'tool_calls')],
    });
    const { answer, requests } = await run([call('a'), call('b'), call('c')], 'Loop', 2);
    expect(requests).toHaveLength(2);
    expect(answer).toMatch(/^I could not finish: the model used all 2 steps/);
  });
});
