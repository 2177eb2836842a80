import { ChatStreamError } from '../errors.ts';
import { readLines } from '../ndjson.ts';
import { sleep } from '../retry.ts';
import { mergeMessage } from './messages.ts';
import { ReplayFilter } from './replay.ts';
import type { ChatLine, ChatMessage, ChatRequest } from './types.ts';

export interface ChatStreamOptions {
  /** The server, e.g. `https://analytics.example.com`. */
  baseUrl: string;
  accountName: string;
  agentId: string;
  /** Sent as `Authorization: Api-Key <key>` (spec section 5). */
  apiKey: string;
  request: ChatRequest;
  signal?: AbortSignal;
  /** Resubscriptions after a dropped connection before giving up; default 3. */
  maxResubscribes?: number;
  /** Wait before resubscribing; default 500 ms. */
  resubscribeDelayMs?: number;
  fetch?: (request: Request) => Promise<Response>;
}

/** Frames after which the turn is over (spec 4.6 step 6; reference chat-api.yaml). */
const TERMINAL_IDS = new Set(['__state__', '__usage__', '__aborted__']);

/** `<Unix ms>-message`, the messageId format of spec 4.6 (13 or more digits). */
export function newMessageId(now = Date.now()): string {
  return `${now}-message`;
}

/**
 * One chat turn as an async iterator of messages (spec 4.6): each line, merged with the earlier
 * versions of its message id (messages.ts), tool calls parsed. A dropped connection, or a
 * `__suspended__` frame, is resubscribed with the same `messageId` (and the `chatId` from
 * `__cutoff__`): the server follows the same run, and lines it replays that were already read are
 * skipped. An `{"error"}` line throws a ChatStreamError.
 */
export async function* streamChat(options: ChatStreamOptions): AsyncGenerator<ChatMessage, void> {
  const request: ChatRequest = { ...options.request };
  if (request.input !== undefined && request.messageId === undefined) request.messageId = newMessageId();
  const url = `${options.baseUrl.replace(/\/+$/, '')}/api/v1/public/${encodeURIComponent(options.accountName)}/agents/${encodeURIComponent(options.agentId)}/chat/stream-chat-state`;
  const send = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const messages = new Map<string, ChatMessage>();
  const replay = new ReplayFilter();
  let resubscribes = 0;

  for (;;) {
    replay.restart();
    let finished = false;
    let dropped: unknown;
    try {
      const response = await send(
        new Request(url, {
          method: 'POST',
          headers: { Authorization: `Api-Key ${options.apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(request),
          signal: options.signal,
        }),
      );
      if (!response.ok || !response.body) {
        const text = await response.text();
        throw new ChatStreamError(
          errorText(text) ?? `chat answered ${response.status}`,
          response.status,
          false,
        );
      }
      for await (const text of readLines(response.body)) {
        const line = JSON.parse(text) as ChatLine;
        if (!replay.isNew(text, line)) continue;
        if (line.id === undefined) {
          if (line.error !== undefined) throw new ChatStreamError(line.error, response.status, true);
          continue;
        }
        if (line.id === '__cutoff__' && line.state?.chatId) request.chatId ??= line.state.chatId;
        if (line.id === '__suspended__' && line.retryable) break;
        if (TERMINAL_IDS.has(line.id)) finished = true;
        const message = mergeMessage(messages.get(line.id), line as ChatLine & { id: string });
        messages.set(line.id, message);
        yield message;
      }
    } catch (error) {
      if (error instanceof ChatStreamError || options.signal?.aborted) throw error;
      if (error instanceof SyntaxError)
        throw new ChatStreamError(`unreadable line: ${error.message}`, 200, true);
      dropped = error;
    }
    if (finished) return;
    // Resubscribing needs the thread: without a chatId a new request would start a new thread.
    if (!request.chatId || !request.messageId || resubscribes >= (options.maxResubscribes ?? 3)) {
      throw new ChatStreamError(
        `chat stream ended before the turn finished${dropped instanceof Error ? `: ${dropped.message}` : ''}`,
        0,
        true,
      );
    }
    resubscribes++;
    await sleep(options.resubscribeDelayMs ?? 500, options.signal);
  }
}

function errorText(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body);
    if (typeof parsed?.error === 'string') return parsed.error;
    if (typeof parsed?.detail === 'string') return parsed.detail;
  } catch {
    // not JSON: fall through to the status
  }
  return body.trim() || undefined;
}
