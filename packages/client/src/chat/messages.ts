import type { ChatLine, ChatMessage, ServiceMetaToolCall, ServiceSqlApiToolCall, ToolCall } from './types.ts';

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { error: `unreadable JSON: ${text.slice(0, 200)}` };
  }
}

/** Parses a tool call's `input` and `result` JSON texts (spec 4.6, "Tool calls"). */
export function parseToolCall(raw: NonNullable<ChatLine['toolCall']>): ToolCall {
  return {
    name: raw.name,
    input: parseJson(raw.input),
    ...(raw.result === undefined ? {} : { result: parseJson(raw.result) }),
    inputJson: raw.input,
    resultJson: raw.result,
  } as ToolCall;
}

export function isServiceMetaCall(call: ToolCall | undefined): call is ServiceMetaToolCall {
  return call?.name === 'serviceMeta';
}

export function isServiceSqlApiCall(call: ToolCall | undefined): call is ServiceSqlApiToolCall {
  return call?.name === 'serviceSqlApi';
}

/** Whether a tool call's result is a failure (`{ error }`). */
export function isToolError(result: unknown): result is { error: string } {
  return (
    typeof result === 'object' && result !== null && typeof (result as { error?: unknown }).error === 'string'
  );
}

/**
 * A message re-emitted with the same id, applied to its earlier version (spec section 3): a delta
 * (`isDelta: true`) appends its `content` and `thinking`; any other field replaces the earlier
 * value, so `isInProcess` turns false and a finished tool call gains its `result`.
 */
export function mergeMessage(earlier: ChatMessage | undefined, line: ChatLine & { id: string }): ChatMessage {
  const toolCall = line.toolCall
    ? parseToolCall({ ...rawToolCall(earlier?.toolCall), ...line.toolCall })
    : undefined;
  const next: ChatMessage = { ...earlier, ...line, toolCall: toolCall ?? earlier?.toolCall };
  if (next.toolCall === undefined) delete next.toolCall;
  if (earlier && line.isDelta) {
    if (line.content !== undefined) next.content = (earlier.content ?? '') + line.content;
    if (line.thinking !== undefined) next.thinking = (earlier.thinking ?? '') + line.thinking;
  }
  return next;
}

function rawToolCall(call: ToolCall | undefined) {
  return call ? { name: call.name, input: call.inputJson, result: call.resultJson } : {};
}

/** The messages of a list of lines, one per id, in the order each id first appeared. */
export function mergeChatMessages(lines: readonly ChatLine[]): ChatMessage[] {
  const byId = new Map<string, ChatMessage>();
  for (const line of lines) {
    if (line.id === undefined) continue;
    byId.set(line.id, mergeMessage(byId.get(line.id), line as ChatLine & { id: string }));
  }
  return [...byId.values()];
}

/**
 * The final answer (spec 4.6): of the assistant messages whose `graphPath` starts with `final` and
 * is at most two long, the last one.
 */
export function finalAnswer(messages: readonly ChatMessage[]): ChatMessage | undefined {
  const finals = messages.filter(
    (m) => m.role === 'assistant' && m.graphPath?.[0] === 'final' && m.graphPath.length <= 2,
  );
  return finals.at(-1);
}
