/**
 * The chat panel's model of a conversation (spec 4.6): one turn per question, each holding the
 * messages its stream produced so far, merged by id as `streamChat` hands them out. What the
 * panel draws of a turn (`viewOf`) is derived from them: the reasoning, the tool calls, the
 * narration between them, the final answer and the charts of the query results.
 */

/**
 * The fields of a streamed message the panel reads: `@tessera/client`'s PanelMessage has them
 * (tool calls parsed). Declared here so that this model needs nothing but its input.
 */
export interface PanelMessage {
  id: string;
  role?: 'user' | 'assistant';
  content?: string;
  thinking?: string;
  graphPath?: string[];
  isInProcess?: boolean;
  toolCall?: ToolCall;
}

/** A tool call with its `input` and `result` parsed from their JSON texts (spec 4.6). */
export interface ToolCall {
  name: string;
  input?: unknown;
  result?: unknown;
}

/** The `serviceSqlApi` result fields the panel draws from (spec 4.6). */
interface SqlResult {
  queryTitle?: string;
  schema: { name: string; column_type: string }[];
  data: unknown[][];
  vegaSpec?: string;
}

export type TurnStatus = 'streaming' | 'done' | 'stopped' | 'error';

export interface Turn {
  /** A key for React, unique in the conversation. */
  key: string;
  question: string;
  /** The assistant's messages in the order their ids first came, each in its latest version. */
  messages: PanelMessage[];
  status: TurnStatus;
  /** Why the turn failed, in words (an `{"error"}` line, a refused request, a lost connection). */
  error?: string;
}

/** Frames that carry no message to show (reference chat-api.yaml). */
const SENTINELS = new Set(['__cutoff__', '__state__', '__usage__', '__aborted__', '__suspended__']);

/** The turn after one message of its stream. */
export function applyMessage(turn: Turn, message: PanelMessage): Turn {
  if (message.id === '__aborted__') return { ...turn, status: 'stopped' };
  if (message.id === '__usage__') return turn.status === 'streaming' ? { ...turn, status: 'done' } : turn;
  if (SENTINELS.has(message.id) || message.role === 'user') return turn;
  const at = turn.messages.findIndex((m) => m.id === message.id);
  const messages =
    at === -1 ? [...turn.messages, message] : turn.messages.map((m, i) => (i === at ? message : m));
  return { ...turn, messages };
}

/** A query result drawn as a chart: its Vega-Lite spec (no data, spec 4.6) and its rows. */
export interface ChartItem {
  key: string;
  title: string;
  spec: Record<string, unknown>;
  rows: Record<string, unknown>[];
}

export type ToolItem = {
  kind: 'tool';
  key: string;
  call: ToolCall;
  running: boolean;
};

export type TextItem = { kind: 'text'; key: string; text: string; streaming: boolean };

export interface TurnView {
  /** The brain's reasoning, in order (shown collapsed). */
  thinking: string;
  /** Tool calls and the assistant's words between them, in the order they came. */
  steps: (ToolItem | TextItem)[];
  /** The final answer (`graphPath[0] = "final"`), or the words streaming towards it. */
  answer: TextItem | null;
  charts: ChartItem[];
}

const isFinal = (m: PanelMessage) => m.graphPath?.[0] === 'final' && m.graphPath.length <= 2;

/** What the panel draws of a turn. */
export function viewOf(turn: Turn): TurnView {
  const finals = turn.messages.filter((m) => m.role === 'assistant' && isFinal(m));
  const final = finals.at(-1);
  const thinking = turn.messages.map((m) => m.thinking ?? '').join('');
  const steps: (ToolItem | TextItem)[] = [];
  let streamingText: TextItem | null = null;
  for (const m of turn.messages) {
    if (isFinal(m)) continue;
    if (m.toolCall) {
      steps.push({ kind: 'tool', key: m.id, call: m.toolCall, running: m.isInProcess === true });
      continue;
    }
    const text = (m.content ?? '').trim();
    if (!text) continue;
    // the words that became the answer are shown once, as the answer
    if (final && sameWords(text, final.content ?? '')) continue;
    const item: TextItem = { kind: 'text', key: m.id, text, streaming: m.isInProcess === true };
    if (!final && turn.status === 'streaming' && m === lastText(turn.messages)) streamingText = item;
    else steps.push(item);
  }
  const answer: TextItem | null = final
    ? { kind: 'text', key: final.id, text: (final.content ?? '').trim(), streaming: false }
    : streamingText;
  return { thinking: thinking.trim(), steps, answer, charts: chartsOf(turn.messages) };
}

function lastText(messages: readonly PanelMessage[]): PanelMessage | undefined {
  return [...messages].reverse().find((m) => !m.toolCall && !isFinal(m) && (m.content ?? '').trim());
}

function sameWords(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}

/** Charts of the finished `serviceSqlApi` calls that carry a `vegaSpec`, drawn from their rows. */
export function chartsOf(messages: readonly PanelMessage[]): ChartItem[] {
  const charts: ChartItem[] = [];
  for (const m of messages) {
    const call = m.toolCall;
    if (call?.name !== 'serviceSqlApi' || !call.result || 'error' in (call.result as object)) continue;
    const result = call.result as SqlResult;
    if (!result.vegaSpec) continue;
    let spec: Record<string, unknown>;
    try {
      spec = JSON.parse(result.vegaSpec) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!spec || typeof spec !== 'object') continue;
    charts.push({
      key: m.id,
      title: String(spec.title ?? result.queryTitle ?? 'Chart'),
      spec,
      rows: rowsOf(result),
    });
  }
  return charts;
}

/** Numeric column types of the SQL API's schema (`Int64`, `Float64`, `Decimal(38,2)`, ...). */
const NUMERIC = /^(Int|UInt|Float|Decimal|Double|Numeric)/i;

/**
 * A result's rows as objects keyed by column name, for Vega: numbers come as text on the wire
 * (exact decimals and 64-bit integers), and become numbers here, for scales and axes.
 */
export function rowsOf(result: Pick<SqlResult, 'schema' | 'data'>): Record<string, unknown>[] {
  return result.data.map((row) =>
    Object.fromEntries(
      result.schema.map((column, i) => {
        const value = row[i];
        const numeric = NUMERIC.test(column.column_type) && value !== null && value !== '';
        return [column.name, numeric ? Number(value) : value];
      }),
    ),
  );
}

/** What a tool call is, in a few words, for its collapsed line. */
export function toolLabel(call: ToolCall, running: boolean): string {
  if (call.name === 'serviceMeta') return running ? 'Reading the data model…' : 'Read the data model';
  if (call.name === 'serviceSqlApi') {
    const title = (call.input as { queryTitle?: string } | undefined)?.queryTitle;
    return `${running ? 'Running' : 'Ran'} a query${title ? `: ${title}` : ''}`;
  }
  return `${running ? 'Calling' : 'Called'} ${call.name}`;
}

/** The figures a finished tool call reports: rows, or its error. */
export function toolOutcome(call: ToolCall): { error?: string; rows?: number; totalRows?: number } {
  const result = call.result as Record<string, unknown> | undefined;
  if (!result) return {};
  if (typeof result.error === 'string') return { error: result.error };
  if (call.name === 'serviceSqlApi')
    return {
      rows: Array.isArray(result.data) ? result.data.length : 0,
      totalRows: typeof result.totalRows === 'number' ? result.totalRows : undefined,
    };
  return {};
}

/** `**bold**` runs of the agent's text (the only markup the built-in brain writes). */
export function boldRuns(text: string): { text: string; bold: boolean }[] {
  return text
    .split(/(\*\*[^*]+\*\*)/g)
    .filter(Boolean)
    .map((part) =>
      part.startsWith('**') && part.endsWith('**') && part.length > 4
        ? { text: part.slice(2, -2), bold: true }
        : { text: part, bold: false },
    );
}
