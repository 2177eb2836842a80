import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { invokeTool } from '../invoke.ts';
import type { Brain, BrainEvent, BrainTurn } from '../types.ts';
import { describeModelError } from './errors.ts';
import { historyMessages, systemPrompt, TOOL_DEFINITIONS } from './protocol.ts';

/** Per agent: any OpenAI-compatible endpoint (hosted, Ollama, vLLM). */
export interface OpenAiBrainConfig {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  model: string;
  apiKey: string;
  /** Model calls in one turn; each tool round is one. Default 8. */
  maxSteps?: number;
  /** Retries of a failed request (the client's backoff). Default 2. */
  maxRetries?: number;
  /** Per request. Default 120 s. */
  timeoutMs?: number;
  temperature?: number;
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** Some servers (DeepSeek, vLLM, llama.cpp) stream reasoning beside the content. */
type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & {
  reasoning_content?: string | null;
  reasoning?: string | null;
};

/**
 * The chat-completions brain (DESIGN.md "Chat agent"): streams the model's tokens, runs the tool
 * calls it makes (`serviceMeta`, `serviceSqlApi`) and sends their results back as tool messages,
 * until the model answers without calling a tool or the step budget is spent.
 */
export class OpenAiBrain implements Brain {
  private readonly client: OpenAI;

  constructor(private readonly config: OpenAiBrainConfig) {
    this.client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey,
      maxRetries: config.maxRetries ?? 2,
      timeout: config.timeoutMs ?? 120_000,
    });
  }

  async *run(turn: BrainTurn): AsyncGenerator<BrainEvent, void, undefined> {
    const signal = turn.signal ?? new AbortController().signal;
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: systemPrompt(turn.instructions, turn.now ?? new Date()) },
      ...historyMessages(turn.messages),
    ];
    const maxSteps = this.config.maxSteps ?? 8;
    try {
      for (let step = 0; step < maxSteps; step++) {
        const { content, calls } = yield* this.complete(messages, signal, step);
        if (calls.length === 0) {
          yield { type: 'final', content };
          return;
        }
        messages.push({
          role: 'assistant',
          content: content || null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        });
        for (const call of calls) {
          yield { type: 'tool_call', id: call.id, name: call.name, input: call.arguments || '{}' };
          const outcome = await invokeTool(turn.tools, call.name, call.arguments, signal);
          signal.throwIfAborted();
          yield {
            type: 'tool_result',
            id: call.id,
            name: call.name,
            result: outcome.result,
            isError: outcome.isError,
          };
          messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.result });
        }
      }
      yield {
        type: 'final',
        content: `I could not finish: the model used all ${maxSteps} steps of this turn without giving an answer.`,
      };
    } catch (error) {
      if (signal.aborted) return;
      yield { type: 'error', message: describeModelError(error, this.config.apiKey) };
    }
  }

  /** One streamed completion: content and reasoning as deltas, tool calls put together by index. */
  private async *complete(messages: ChatCompletionMessageParam[], signal: AbortSignal, step: number) {
    const stream = await this.client.chat.completions.create(
      {
        model: this.config.model,
        messages,
        tools: TOOL_DEFINITIONS,
        stream: true,
        // the last chunk then carries the call's token counts (reference `__usage__`)
        stream_options: { include_usage: true },
        ...(this.config.temperature !== undefined ? { temperature: this.config.temperature } : {}),
      },
      { signal },
    );
    let content = '';
    const calls: PendingCall[] = [];
    let model = this.config.model;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices?.[0]?.delta as Delta | undefined;
      if (!delta) continue;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) yield { type: 'thinking', delta: reasoning } satisfies BrainEvent;
      if (delta.content) {
        content += delta.content;
        yield { type: 'content', delta: delta.content } satisfies BrainEvent;
      }
      // a call arrives in pieces: its id and name first, its JSON arguments over several chunks
      for (const piece of delta.tool_calls ?? []) {
        const index = piece.index ?? calls.length;
        calls[index] ??= { id: '', name: '', arguments: '' };
        const call = calls[index];
        if (piece.id) call.id = piece.id;
        const name = piece.function?.name;
        if (name && name !== call.name) call.name += name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
      }
    }
    // A server that reports no usage (some ignore stream_options) leaves the call counted with
    // zero tokens: the counts are the server's, never estimated.
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
    yield {
      type: 'usage',
      model,
      inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
      outputTokens: usage?.completion_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    } satisfies BrainEvent;
    const complete = calls.filter(Boolean).map((c, i) => ({ ...c, id: c.id || `call_${step}_${i}` }));
    return { content, calls: complete };
  }
}
