import { randomUUID } from 'node:crypto';
import type { Brain, ChatTools, ConversationMessage, StoredToolCall } from './brain/index.ts';
import type { TurnProgress } from './history.ts';
import {
  AGENT_NODE,
  addUsage,
  type ChatLine,
  errorLine,
  type SerializedMessage,
  serializeMessage,
  stateLine,
  type Usage,
} from './wire.ts';

export interface TurnInput {
  brain: Brain;
  tools: ChatTools;
  instructions: string;
  /** Earlier turns of the thread, then this turn's user message last. */
  history: ConversationMessage[];
  /** When a suspended turn resumes: its steps so far and their tool calls (history.ts). */
  progress?: Pick<TurnProgress, 'steps' | 'toolCalls'>;
  signal: AbortSignal;
  /** The clock the brain reads relative dates against; a resumed turn keeps its first one. */
  now?: Date;
  /** Writes one line to the run's log; resolves once it is stored. */
  emit(line: ChatLine): Promise<void>;
  /** The sort of the next new message id (the cutoff and the user echo hold 0 and 1). */
  firstSort: number;
  /**
   * Whether to stop at this step boundary (this process is shutting down): asked before a tool
   * call starts and after one has finished, so that a suspended turn keeps every finished call.
   */
  shouldPause?: () => boolean;
  /** The language-model calls of the turn are added to it as they are reported. */
  usage: Usage;
}

export type TurnEnd = { kind: 'done' } | { kind: 'error' } | { kind: 'stopped' } | { kind: 'paused' };

/**
 * One turn of the brain written as spec 4.6 messages, in order: assistant messages (a start,
 * thinking and content deltas with one id, closed by its complete version), tool calls
 * (`isInProcess` without result, re-emitted with the same id and `result`), the final answer
 * (`graphPath: ["final"]`), then `__state__`. An `error` event becomes an `{"error"}` line.
 */
export async function writeTurn(turn: TurnInput): Promise<TurnEnd> {
  let sort = turn.firstSort;
  let open: { id: string; sort: number; content: string; thinking: string } | null = null;
  const toolIds = new Map<string, { id: string; sort: number; input: string }>();
  const reply: { content: string; toolCalls: StoredToolCall[] } = {
    content: '',
    toolCalls: [...(turn.progress?.toolCalls ?? [])],
  };

  const closeOpen = async () => {
    if (!open) return;
    const { id, sort: s, content, thinking } = open;
    open = null;
    await turn.emit({
      id,
      role: 'assistant',
      content,
      ...(thinking ? { thinking } : {}),
      graphPath: [AGENT_NODE],
      isDelta: false,
      isInProcess: false,
      sort: s,
    });
  };
  const delta = async (field: 'content' | 'thinking', text: string) => {
    if (!open) {
      open = { id: randomUUID(), sort: sort++, content: '', thinking: '' };
      await turn.emit(assistantDelta(open.id, open.sort, { content: '' }));
    }
    open[field] += text;
    await turn.emit(assistantDelta(open.id, open.sort, { [field]: text }));
  };
  const pause = async (): Promise<boolean> => {
    if (!turn.shouldPause?.()) return false;
    await closeOpen();
    return true;
  };

  const events = turn.brain.run({
    messages: [...turn.history, ...(turn.progress?.steps ?? [])],
    instructions: turn.instructions,
    tools: turn.tools,
    signal: turn.signal,
    ...(turn.now ? { now: turn.now } : {}),
  });
  try {
    for await (const event of events) {
      if (turn.signal.aborted) break;
      switch (event.type) {
        case 'thinking':
        case 'content':
          await delta(event.type, event.delta);
          break;
        case 'usage':
          addUsage(turn.usage, event);
          break;
        case 'tool_call': {
          // leaving the loop closes the brain's generator: the call is never made
          if (await pause()) return { kind: 'paused' };
          await closeOpen();
          const call = { id: randomUUID(), sort: sort++, input: event.input };
          toolIds.set(event.id, call);
          await turn.emit(toolLine(call.id, call.sort, { name: event.name, input: event.input }, true));
          break;
        }
        case 'tool_result': {
          const call = toolIds.get(event.id);
          if (!call) break;
          const toolCall = { name: event.name, input: call.input, result: event.result };
          reply.toolCalls.push({ id: call.id, ...toolCall });
          await turn.emit(toolLine(call.id, call.sort, toolCall, false));
          if (await pause()) return { kind: 'paused' };
          break;
        }
        case 'final':
          await closeOpen();
          reply.content = event.content;
          await turn.emit(finalLine(event.content, sort++));
          break;
        case 'error':
          await closeOpen();
          await turn.emit(errorLine(event.message));
          return { kind: 'error' };
      }
    }
  } catch (error) {
    if (!turn.signal.aborted) throw error;
  }
  if (turn.signal.aborted) return { kind: 'stopped' };
  await turn.emit(stateLine(serializeConversation(stateOf(turn.history, reply)), sort));
  return { kind: 'done' };
}

/** The thread after the turn, for `__state__`: the history, then the reply with every tool call. */
export function stateOf(
  history: readonly ConversationMessage[],
  reply: { content: string; toolCalls: StoredToolCall[] },
): ConversationMessage[] {
  return [
    ...history,
    {
      role: 'assistant',
      content: reply.content,
      toolCalls: reply.toolCalls.map(({ interrupted: _, ...call }) => call),
    },
  ];
}

export function finalLine(content: string, sort: number): ChatLine {
  return {
    id: randomUUID(),
    role: 'assistant',
    content,
    graphPath: ['final'],
    isDelta: false,
    isInProcess: false,
    sort,
  };
}

function assistantDelta(id: string, sort: number, part: Record<string, string>): ChatLine {
  return { id, role: 'assistant', ...part, graphPath: [AGENT_NODE], isDelta: true, isInProcess: true, sort };
}

function toolLine(
  id: string,
  sort: number,
  toolCall: { name: string; input: string; result?: string },
  inProcess: boolean,
): ChatLine {
  return {
    id,
    role: 'assistant',
    graphPath: [AGENT_NODE, 'tools'],
    isDelta: false,
    isInProcess: inProcess,
    toolCall,
    sort,
  };
}

/** The thread as LangChain serialises messages (`__state__`): human, AI with tool calls, tool results. */
export function serializeConversation(messages: readonly ConversationMessage[]): SerializedMessage[] {
  return messages.flatMap((m): SerializedMessage[] => {
    if (m.role === 'user') return [serializeMessage('HumanMessage', m.content)];
    const calls = m.toolCalls ?? [];
    return [
      ...calls.flatMap((c) => [
        serializeMessage('AIMessage', '', {
          tool_calls: [{ id: c.id, name: c.name, args: safeParse(c.input), type: 'tool_call' }],
        }),
        serializeMessage('ToolMessage', c.result, { tool_call_id: c.id, name: c.name }),
      ]),
      serializeMessage('AIMessage', m.content),
    ];
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
