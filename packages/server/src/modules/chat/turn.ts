import { randomUUID } from 'node:crypto';
import type { Brain, ChatTools, ConversationMessage } from './brain/index.ts';
import {
  AGENT_NODE,
  type ChatLine,
  errorLine,
  type SerializedMessage,
  serializeMessage,
  stateLine,
} from './wire.ts';

export interface TurnInput {
  brain: Brain;
  tools: ChatTools;
  instructions: string;
  /** Earlier turns of the thread, then this turn's user message last. */
  messages: ConversationMessage[];
  signal: AbortSignal;
  /** Writes one line to the run's log; resolves once it is stored. */
  emit(line: ChatLine): Promise<void>;
  /** The sort of the next new message id (the cutoff and the user echo hold 0 and 1). */
  firstSort: number;
}

export type TurnEnd = { kind: 'done' } | { kind: 'error' } | { kind: 'stopped' };

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
  const reply: { content: string; toolCalls: { id: string; name: string; input: string; result: string }[] } =
    {
      content: '',
      toolCalls: [],
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

  try {
    for await (const event of turn.brain.run({
      messages: turn.messages,
      instructions: turn.instructions,
      tools: turn.tools,
      signal: turn.signal,
    })) {
      if (turn.signal.aborted) break;
      switch (event.type) {
        case 'thinking':
        case 'content':
          await delta(event.type, event.delta);
          break;
        case 'tool_call': {
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
          break;
        }
        case 'final':
          await closeOpen();
          reply.content = event.content;
          await turn.emit({
            id: randomUUID(),
            role: 'assistant',
            content: event.content,
            graphPath: ['final'],
            isDelta: false,
            isInProcess: false,
            sort: sort++,
          });
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
  const conversation: ConversationMessage[] = [
    ...turn.messages,
    { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls },
  ];
  await turn.emit(stateLine(serializeConversation(conversation), sort));
  return { kind: 'done' };
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
