/**
 * The agent chat stream (spec 4.6; reference chat-api.yaml for the terminal frames): the request
 * body, each line as sent, and each message as the client hands it out (tool calls parsed).
 */

export interface ChatSessionSettings {
  /** Lowercase, no spaces; either this or `internalId`. */
  externalId?: string;
  /** Email of an existing internal user; their own permissions apply. */
  internalId?: string;
  email?: string;
  userAttributes?: { name: string; value: string }[];
  groups?: string[];
  securityContext?: Record<string, unknown>;
  isEphemeral?: boolean;
  ephemeralTtlSeconds?: number;
}

export interface ChatRequest {
  /** The user message; omitted, the current state of `chatId` is returned. */
  input?: string;
  /** The thread; omitted, a new one is created (its id comes back on `__cutoff__`). */
  chatId?: string;
  /** `<Unix ms>-message`; generated when `input` is given without one. */
  messageId?: string;
  sessionSettings: ChatSessionSettings;
  activeBranchName?: string;
  isDefaultBranch?: boolean;
}

export interface ChatState {
  chatId?: string;
  isStreaming?: boolean;
  /** On `__state__`: the serialized conversation. */
  messages?: { lc?: number; type?: string; id?: string[]; kwargs?: { content?: unknown } }[];
  suspended?: { messageId: string };
  [key: string]: unknown;
}

export interface ChatUsage {
  models: string[];
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  [key: string]: unknown;
}

/** One line of the stream as the server sends it. */
export interface ChatLine {
  id?: string;
  role?: 'user' | 'assistant';
  content?: string;
  thinking?: string;
  toolCall?: { name: string; input?: string; result?: string };
  graphPath?: string[];
  isDelta?: boolean;
  isInProcess?: boolean;
  isStructuredResponse?: boolean;
  sort?: number;
  state?: ChatState;
  /** Terminal frames: `abort` on `__aborted__`, `suspend` on `__suspended__`, `usage` on `__usage__`. */
  type?: 'abort' | 'suspend' | 'usage';
  code?: string;
  /** An error line has `error` and no `id`; `__aborted__` and `__suspended__` carry one too. */
  error?: string;
  messageId?: string;
  retryable?: boolean;
  usage?: ChatUsage;
}

/** A tool's failure: its result JSON has an `error` field (spec section 7). */
export interface ToolError {
  error: string;
  [key: string]: unknown;
}

export interface ServiceMetaInput {
  searchQuery: string;
}
export interface ServiceMetaResult {
  searchQuery: string;
  cubes: {
    name: string;
    type: string;
    title: string;
    members: { name: string; title: string; description?: string; type: string; aggType?: string }[];
  }[];
}

export interface ServiceSqlApiInput {
  sqlQuery: string;
  queryTitle?: string;
  description?: string;
  userRequest?: string;
  memoryId?: string;
  /** A Vega-Lite v5 spec as JSON text, when a chart is drawn. */
  vegaSpec?: string;
}
export interface ServiceSqlApiResult {
  sqlQuery: string;
  queryTitle?: string;
  description?: string;
  userRequest?: string;
  schema: { name: string; column_type: string }[];
  /** At most 100 rows by default; `totalRows` says how many there are. */
  data: unknown[][];
  totalRows: number;
  uuid?: string;
  vegaSpec?: string;
}

interface ToolCallOf<Name extends string, Input, Result> {
  name: Name;
  /** `input` parsed from its JSON text. */
  input: Input;
  /** `result` parsed from its JSON text; absent while the tool runs. */
  result?: Result | ToolError;
  /** The JSON texts as sent. */
  inputJson?: string;
  resultJson?: string;
}

export type ServiceMetaToolCall = ToolCallOf<'serviceMeta', ServiceMetaInput, ServiceMetaResult>;
export type ServiceSqlApiToolCall = ToolCallOf<'serviceSqlApi', ServiceSqlApiInput, ServiceSqlApiResult>;
export type ToolCall = ServiceMetaToolCall | ServiceSqlApiToolCall | ToolCallOf<string, unknown, unknown>;

/** A message as the iterator yields it: merged with its earlier versions, its tool call parsed. */
export interface ChatMessage extends Omit<ChatLine, 'toolCall'> {
  id: string;
  toolCall?: ToolCall;
}
