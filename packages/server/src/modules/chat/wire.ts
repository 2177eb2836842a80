/**
 * The lines of the chat stream (spec 4.6; reference chat-api.yaml for the sentinel frames): one
 * JSON object per line. Only this file knows their shapes.
 */

/** The graph node of the agent's own messages; tool calls add `tools`, the answer is `final`. */
export const AGENT_NODE = 'service_data_analyst_agent';

export type ChatLine = Record<string, unknown>;

export function cutoffLine(chatId: string, isStreaming: boolean, suspendedMessageId?: string): ChatLine {
  return {
    id: '__cutoff__',
    role: 'assistant',
    sort: 0,
    state: {
      chatId,
      isStreaming,
      ...(suspendedMessageId ? { suspended: { messageId: suspendedMessageId } } : {}),
    },
  };
}

export function userLine(messageId: string, content: string, sort: number): ChatLine {
  return { id: messageId, role: 'user', content, isDelta: false, sort };
}

/** The serialised conversation on `__state__`, as LangChain serialises messages. */
export interface SerializedMessage {
  lc: 1;
  type: 'constructor';
  id: string[];
  kwargs: Record<string, unknown>;
}

export function serializeMessage(
  kind: 'HumanMessage' | 'AIMessage' | 'ToolMessage',
  content: string,
  extra: Record<string, unknown> = {},
): SerializedMessage {
  return {
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', kind],
    kwargs: { content, ...extra },
  };
}

export function stateLine(messages: SerializedMessage[], sort: number): ChatLine {
  return { id: '__state__', role: 'assistant', isDelta: false, sort, state: { messages } };
}

export interface Usage {
  models: string[];
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
  totalTokens: number;
}

export const noUsage = (): Usage => ({
  models: [],
  llmCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheWriteTokens: 0,
  cacheReadTokens: 0,
  totalTokens: 0,
});

/**
 * Adds one language-model call (reference: `totalTokens` sums input, output, cache-write and
 * cache-read tokens; `models` lists each model once). The built-in brain makes no such call, so
 * its turns report zeros and no model: it reads the model and writes SQL without a language model.
 */
export function addUsage(
  usage: Usage,
  call: {
    model: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
  },
): void {
  if (call.model && !usage.models.includes(call.model)) usage.models.push(call.model);
  usage.llmCalls += 1;
  usage.inputTokens += call.inputTokens;
  usage.outputTokens += call.outputTokens;
  usage.cacheReadTokens += call.cacheReadTokens;
  usage.cacheWriteTokens += call.cacheWriteTokens;
  usage.totalTokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** The usage a `__usage__` line carried (a suspended run's first part), or none. */
export function usageOfLine(text: string): Usage | undefined {
  const line = JSON.parse(text) as ChatLine;
  return line.id === '__usage__' ? ({ ...noUsage(), ...(line.usage as Usage) } as Usage) : undefined;
}

/** Always the last frame of a stream, however it ended (reference: `__usage__`). */
export function usageLine(usage: Usage): ChatLine {
  return { id: '__usage__', type: 'usage', usage };
}

export function abortedLine(): ChatLine {
  return { id: '__aborted__', type: 'abort', code: 'chat_aborted', error: 'The run was aborted' };
}

export function suspendedLine(messageId: string): ChatLine {
  return {
    id: '__suspended__',
    type: 'suspend',
    code: 'chat_suspended',
    retryable: true,
    messageId,
    error: 'The server restarted before the agent finished responding; retry the same request to resume',
  };
}

/** A failure once the stream has started: a line with `error` and no message fields. */
export function errorLine(message: string): ChatLine {
  return { error: message };
}
