import type { ChatRunRow } from '../../db/schema.ts';
import type { ConversationMessage, StoredToolCall } from './brain/index.ts';
import type { ChatLine } from './wire.ts';

const SENTINELS = new Set(['__cutoff__', '__state__', '__usage__', '__aborted__', '__suspended__']);

/** A run's messages from its log: one per id, re-emitted versions applied (spec 3), deltas appended. */
export function messagesOfLog(lines: readonly string[]): ChatLine[] {
  const byId = new Map<string, ChatLine>();
  for (const text of lines) {
    const line = JSON.parse(text) as ChatLine;
    const id = line.id;
    if (typeof id !== 'string' || SENTINELS.has(id)) continue;
    const earlier = byId.get(id);
    if (earlier && line.isDelta) {
      byId.set(id, {
        ...earlier,
        ...line,
        content: `${earlier.content ?? ''}${line.content ?? ''}`,
        ...(line.thinking !== undefined || earlier.thinking !== undefined
          ? { thinking: `${earlier.thinking ?? ''}${line.thinking ?? ''}` }
          : {}),
      });
    } else byId.set(id, { ...earlier, ...line });
  }
  return [...byId.values()];
}

/** A finished turn as the brain reads the thread: the question, the tool calls and the answer. */
export function turnOfRun(run: ChatRunRow, lines: readonly string[]): ConversationMessage[] {
  const messages = messagesOfLog(lines);
  const toolCalls: StoredToolCall[] = messages.flatMap((m) => {
    const call = m.toolCall as { name: string; input: string; result?: string } | undefined;
    return call?.result !== undefined
      ? [{ id: String(m.id), name: call.name, input: call.input, result: call.result }]
      : [];
  });
  const answer = messages.filter((m) => (m.graphPath as string[] | undefined)?.[0] === 'final').at(-1);
  return [
    { role: 'user', content: run.input },
    { role: 'assistant', content: String(answer?.content ?? ''), toolCalls },
  ];
}
