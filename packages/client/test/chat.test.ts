import { describe, expect, it } from 'vitest';
import { ReplayFilter } from '../src/chat/replay.ts';
import {
  type ChatLine,
  finalAnswer,
  isServiceSqlApiCall,
  isToolError,
  LineSplitter,
  mergeChatMessages,
  newMessageId,
  readLines,
} from '../src/index.ts';

/** The pure parts of the chat stream (spec 4.6), on literal data; the end-to-end test comes with the chat server. */

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readLines(stream)) lines.push(line);
  return lines;
}

describe('NDJSON line splitting', () => {
  it('hands out a line only once its newline arrived, wherever chunks end', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('{"id":"a","con')).toEqual([]);
    expect(splitter.push('tent":"x"}\n{"id"')).toEqual(['{"id":"a","content":"x"}']);
    expect(splitter.push(':"b"}\r\n\n{"id":"c"}')).toEqual(['{"id":"b"}']);
    expect(splitter.flush()).toEqual(['{"id":"c"}']);
    expect(splitter.flush()).toEqual([]);
  });

  it('keeps a multi-byte character split across two chunks whole', async () => {
    const bytes = new TextEncoder().encode('{"content":"café ☕"}\n{"content":"ok"}\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of ☕
    const lines = await collect(streamOf([bytes.slice(0, 5), bytes.slice(5, cut), bytes.slice(cut)]));
    expect(lines.map((l) => JSON.parse(l).content)).toEqual(['café ☕', 'ok']);
  });

  it('reads a last line that has no newline', async () => {
    expect(await collect(streamOf(['{"a":1}\n', '{"a":2}']))).toEqual(['{"a":1}', '{"a":2}']);
  });
});

const turn: ChatLine[] = [
  { id: '__cutoff__', role: 'assistant', sort: 0, state: { chatId: 'thread-1', isStreaming: true } },
  { id: '1732512345678-message', role: 'user', content: 'Revenue by month?', isDelta: false, sort: 1 },
  {
    id: 'a1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent'],
    content: '',
    isDelta: true,
    isInProcess: true,
    sort: 2,
  },
  {
    id: 'a1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent'],
    content: 'Looking',
    isDelta: true,
    isInProcess: true,
  },
  {
    id: 'a1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent'],
    content: ' it up',
    isDelta: true,
    isInProcess: true,
  },
  {
    id: 't1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent', 'tools'],
    isInProcess: true,
    toolCall: { name: 'serviceSqlApi', input: '{"sqlQuery":"SELECT 1","queryTitle":"Revenue"}' },
    sort: 3,
  },
  {
    id: 't1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent', 'tools'],
    isInProcess: false,
    toolCall: {
      name: 'serviceSqlApi',
      input: '{"sqlQuery":"SELECT 1","queryTitle":"Revenue"}',
      result:
        '{"sqlQuery":"SELECT 1","schema":[{"name":"n","column_type":"Int64"}],"data":[["1"]],"totalRows":1}',
    },
  },
  {
    id: 't2',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent', 'tools'],
    isInProcess: false,
    toolCall: { name: 'serviceMeta', input: '{"searchQuery":"x"}', result: '{"error":"model not loaded"}' },
  },
  {
    id: 'a1',
    role: 'assistant',
    graphPath: ['service_data_analyst_agent'],
    content: 'Looking it up',
    isDelta: false,
    isInProcess: false,
  },
  {
    id: 'f1',
    role: 'assistant',
    graphPath: ['final'],
    content: 'Revenue grew',
    isDelta: false,
    isInProcess: false,
    sort: 8,
  },
  { id: 'f2', role: 'assistant', graphPath: ['final', 'summary', 'deep'], content: 'not an answer', sort: 9 },
  { id: 'f3', role: 'assistant', graphPath: ['final', 'summary'], content: 'Revenue grew 12%', sort: 10 },
  { id: 'u2', role: 'user', graphPath: ['final'], content: 'a user message is never the answer', sort: 11 },
  { id: '__state__', role: 'assistant', isDelta: false, sort: 12, state: { messages: [] } },
];

describe('chat messages', () => {
  it('merges a re-emitted id: deltas append, complete versions replace, first-seen order kept', () => {
    const messages = mergeChatMessages(turn);
    expect(messages.map((m) => m.id)).toEqual([
      '__cutoff__',
      '1732512345678-message',
      'a1',
      't1',
      't2',
      'f1',
      'f2',
      'f3',
      'u2',
      '__state__',
    ]);
    const assistant = messages.find((m) => m.id === 'a1')!;
    expect(assistant.content).toBe('Looking it up');
    expect(assistant.isInProcess).toBe(false);
    expect(assistant.sort).toBe(2);
  });

  it('parses tool calls: input and result from their JSON strings, a failed result as an error', () => {
    const messages = mergeChatMessages(turn);
    const sql = messages.find((m) => m.id === 't1')!.toolCall;
    expect(isServiceSqlApiCall(sql)).toBe(true);
    if (!isServiceSqlApiCall(sql)) return;
    expect(sql.input).toEqual({ sqlQuery: 'SELECT 1', queryTitle: 'Revenue' });
    expect(sql.result).toEqual({
      sqlQuery: 'SELECT 1',
      schema: [{ name: 'n', column_type: 'Int64' }],
      data: [['1']],
      totalRows: 1,
    });
    const meta = messages.find((m) => m.id === 't2')!.toolCall!;
    expect(isToolError(meta.result)).toBe(true);
    expect(meta.result).toEqual({ error: 'model not loaded' });
  });

  it('keeps a running tool call without a result until the same id brings it', () => {
    const running = mergeChatMessages(turn.slice(0, 6)).find((m) => m.id === 't1')!;
    expect(running.isInProcess).toBe(true);
    expect(running.toolCall?.result).toBeUndefined();
  });

  it('finds the final answer: last assistant message with graphPath[0] final and at most two long', () => {
    expect(finalAnswer(mergeChatMessages(turn))?.content).toBe('Revenue grew 12%');
    expect(finalAnswer(mergeChatMessages(turn.slice(0, 10)))?.content).toBe('Revenue grew');
    expect(finalAnswer(mergeChatMessages(turn.slice(0, 8)))).toBeUndefined();
  });

  it('generates message ids as <Unix ms>-message', () => {
    expect(newMessageId(1732512345678)).toBe('1732512345678-message');
    expect(newMessageId()).toMatch(/^\d{13,}-message$/);
  });
});

describe('resubscription replay', () => {
  const lines = turn.slice(0, 5).map((l) => JSON.stringify(l));
  const apply = (filter: ReplayFilter, texts: string[]) =>
    texts.filter((t) => filter.isNew(t, JSON.parse(t)));

  it('skips the lines a replaying server repeats and applies what follows', () => {
    const filter = new ReplayFilter();
    filter.restart();
    expect(apply(filter, lines.slice(0, 4))).toEqual(lines.slice(0, 4));
    filter.restart();
    expect(apply(filter, lines)).toEqual([lines[4]]);
  });

  it('applies everything when the server continues from its current point', () => {
    const filter = new ReplayFilter();
    filter.restart();
    apply(filter, lines.slice(0, 3));
    filter.restart();
    expect(apply(filter, lines.slice(3))).toEqual(lines.slice(3));
  });

  it('lets a changed complete frame through but never applies a delta twice', () => {
    const filter = new ReplayFilter();
    filter.restart();
    apply(filter, lines.slice(0, 4));
    filter.restart();
    const cutoffNow = JSON.stringify({ ...turn[0], state: { chatId: 'thread-1', isStreaming: false } });
    expect(apply(filter, [cutoffNow, ...lines.slice(1)])).toEqual([cutoffNow, lines[4]]);
  });
});
