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

/** The result of a tool call the log left without one: its process stopped while it ran. */
export const INTERRUPTED_TOOL_ERROR =
  'The server stopped while this call ran, before it finished; it may be made again';

/** What a suspended run's log holds of its turn, for it to continue (reference "Suspensions"). */
export interface TurnProgress {
  /** This turn's assistant steps so far (content, thinking, then the tool calls they made). */
  steps: ConversationMessage[];
  /** Lines that complete what the log left open: a message cut mid-stream, a call without result. */
  closing: ChatLine[];
  /** Every tool call of the turn so far, with its result (an interrupted one's says so). */
  toolCalls: StoredToolCall[];
  /** The sort of the next new message. */
  nextSort: number;
  /** The final answer, when the log reached it. */
  final?: string;
}

/** A run's progress from its log (the terminal frames of its suspension removed). */
export function progressOfLog(lines: readonly string[]): TurnProgress {
  let nextSort = 0;
  for (const text of lines) {
    const sort = (JSON.parse(text) as ChatLine).sort;
    if (typeof sort === 'number') nextSort = Math.max(nextSort, sort + 1);
  }
  type Step = { role: 'assistant'; content: string; thinking?: string; toolCalls: StoredToolCall[] };
  const steps: Step[] = [];
  const progress: TurnProgress = { steps, closing: [], toolCalls: [], nextSort };
  const newStep = () => {
    const step: Step = { role: 'assistant', content: '', toolCalls: [] };
    steps.push(step);
    return step;
  };
  for (const m of messagesOfLog(lines)) {
    if (m.role !== 'assistant') continue;
    const graphPath = m.graphPath as string[] | undefined;
    if (graphPath?.[0] === 'final') {
      progress.final = String(m.content ?? '');
      continue;
    }
    const call = m.toolCall as { name: string; input: string; result?: string } | undefined;
    if (call) {
      const interrupted = call.result === undefined;
      const stored: StoredToolCall = {
        id: String(m.id),
        name: call.name,
        input: call.input,
        result: call.result ?? JSON.stringify({ error: INTERRUPTED_TOOL_ERROR }),
        ...(interrupted ? { interrupted } : {}),
      };
      if (interrupted)
        progress.closing.push({
          ...m,
          isDelta: false,
          isInProcess: false,
          toolCall: { name: call.name, input: call.input, result: stored.result },
        });
      const step = steps.at(-1) ?? newStep();
      step.toolCalls.push(stored);
      progress.toolCalls.push(stored);
      continue;
    }
    if (m.isDelta || m.isInProcess) {
      const { id, role, content, thinking, graphPath: path, sort } = m;
      progress.closing.push({
        id,
        role,
        content: content ?? '',
        ...(thinking ? { thinking } : {}),
        graphPath: path,
        isDelta: false,
        isInProcess: false,
        sort,
      });
    }
    const step = newStep();
    step.content = String(m.content ?? '');
    if (typeof m.thinking === 'string' && m.thinking) step.thinking = m.thinking;
  }
  return progress;
}
