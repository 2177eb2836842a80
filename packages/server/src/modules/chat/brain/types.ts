/**
 * The agent's reasoning ("brain", DESIGN.md "Chat agent"): a turn in, a stream of events out.
 * The chat module owns runs, threads and the wire format (spec 4.6); a brain only decides what
 * to say and which tools to call. Tool inputs and results carry exactly spec 4.6's fields.
 */

/** `serviceMeta` input (spec 4.6). */
export interface ServiceMetaInput {
  searchQuery: string;
}

/**
 * One member in a `serviceMeta` result: spec 4.6's `{name, title, description, type, aggType}`.
 * `type` is the member type (`number`, `string`, `time`, `boolean`), or `segment` for a segment;
 * `aggType` (the measure's type: `count`, `sum`, `avg`, ...) is present on measures only. `meta`
 * is the model's own `meta` block when it has one (synonyms live there: `meta.synonyms`).
 */
export interface ServiceMetaMember {
  name: string;
  title: string;
  description?: string;
  type: string;
  aggType?: string;
  /** The model's `format` of the member (`currency`, `percent`, ...), when it declares one. */
  format?: string;
  meta?: Record<string, unknown>;
}

export interface ServiceMetaCube {
  name: string;
  type: 'cube' | 'view';
  title: string;
  description?: string;
  members: ServiceMetaMember[];
}

/** Every cube and view the session may see; `searchQuery` is echoed (spec 4.6). */
export interface ServiceMetaResult {
  cubes: ServiceMetaCube[];
  searchQuery: string;
}

/** `serviceSqlApi` input (spec 4.6); `vegaSpec` is a Vega-Lite v5 spec as a JSON string, without data. */
export interface ServiceSqlApiInput {
  sqlQuery: string;
  queryTitle: string;
  description: string;
  userRequest: string;
  memoryId?: string;
  vegaSpec?: string;
}

/** `serviceSqlApi` result (spec 4.6, 8): at most 100 rows in `data`, `totalRows` the full count. */
export interface ServiceSqlApiResult {
  sqlQuery: string;
  queryTitle: string;
  description: string;
  userRequest: string;
  schema: { name: string; column_type: string }[];
  data: (string | null)[][];
  totalRows: number;
  uuid: string;
  vegaSpec?: string;
}

/** A tool that failed reports it in the result (spec 7 "Chat tool failure"). */
export type ToolFailure<T> = T & { error: string };

export type ServiceSqlApiOutcome = ServiceSqlApiResult | ToolFailure<ServiceSqlApiInput>;
export type ServiceMetaOutcome = ServiceMetaResult | ToolFailure<ServiceMetaInput>;

/**
 * The two tools, implemented by the chat module over the data service under the session's
 * security context. They report a bad query as `{..., error}` (a message fit for the user); a
 * thrown error is reported to the brain as a generic failure, and an abort ends the turn.
 * `serviceMeta` returns every member the session may see: `searchQuery` may order but not hide.
 */
export interface ChatTools {
  serviceMeta(input: ServiceMetaInput, signal: AbortSignal): Promise<ServiceMetaOutcome>;
  serviceSqlApi(input: ServiceSqlApiInput, signal: AbortSignal): Promise<ServiceSqlApiOutcome>;
}

export type ToolName = keyof ChatTools;
export const TOOL_NAMES: readonly ToolName[] = ['serviceMeta', 'serviceSqlApi'];

/** A finished tool call of an earlier turn, as the thread stored it (`input`/`result` JSON strings). */
export interface StoredToolCall {
  id: string;
  name: string;
  input: string;
  result: string;
  /**
   * The process running the call stopped before it finished (a crash); `result` then says so
   * with an `error`. Such a call was not completed: a brain may make it again.
   */
  interrupted?: boolean;
}

export type ConversationMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; thinking?: string; toolCalls?: StoredToolCall[] };

/**
 * One turn: the thread so far, ending with the new user message. When a suspended turn resumes
 * (reference chat-api.yaml "Suspensions"), the assistant messages of this turn's progress follow
 * that user message, one per step (its content and thinking, then the tool calls it made, with
 * their results): the brain continues from there and never makes a finished tool call again.
 */
export interface BrainTurn {
  messages: readonly ConversationMessage[];
  /** The agent's instructions (its system prompt). */
  instructions?: string;
  tools: ChatTools;
  /** Aborting ends the stream without a final event; tools in flight receive the signal. */
  signal?: AbortSignal;
  /** The clock for relative dates ("last quarter"); defaults to the current time. */
  now?: Date;
}

/**
 * What a brain streams, in order: thinking and content deltas, tool calls (`tool_call` with the
 * input, later `tool_result` with the same `id`), then exactly one `final` or `error`. `input` and
 * `result` are JSON strings, as `toolCall.input` and `toolCall.result` on the wire (spec 4.6).
 * `final.content` is the complete answer (the message with `graphPath[0] = "final"`); content
 * deltas before it may include narration between tool calls. A brain that calls a language model
 * reports each call with a `usage` event, at any point.
 */
export type BrainEvent =
  | { type: 'thinking'; delta: string }
  | { type: 'content'; delta: string }
  | { type: 'tool_call'; id: string; name: string; input: string }
  | { type: 'tool_result'; id: string; name: string; result: string; isError: boolean }
  | { type: 'final'; content: string }
  | { type: 'error'; message: string }
  | UsageEvent;

/**
 * One language-model call and its tokens, as the model's server reported them (reference
 * chat-api.yaml `__usage__`). `inputTokens` excludes the cached tokens counted apart.
 */
export interface UsageEvent {
  type: 'usage';
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface Brain {
  run(turn: BrainTurn): AsyncGenerator<BrainEvent, void, undefined>;
}
