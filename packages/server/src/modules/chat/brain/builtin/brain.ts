import { randomUUID } from 'node:crypto';
import { pickChart } from '../../chart.ts';
import { invokeTool, type ToolOutcome } from '../invoke.ts';
import type {
  Brain,
  BrainEvent,
  BrainTurn,
  ChatTools,
  ConversationMessage,
  ServiceMetaInput,
  ServiceMetaResult,
  ServiceSqlApiInput,
  ServiceSqlApiResult,
  StoredToolCall,
  ToolName,
} from '../types.ts';
import { measureName, scopeText, writeAnswer } from './answer.ts';
import { Catalog, type CatalogMember } from './catalog.ts';
import { joinWords, quoted } from './format.ts';
import { type Choice, type Reading, readQuestion } from './read.ts';
import { lookupOrder, measureChoices, type QueryPlan, resolvePlan } from './resolve.ts';
import { buildSql, valuesSql } from './sql.ts';
import { stem } from './text.ts';
import { matchValues, type ValueMatch } from './values.ts';

/** Dimensions whose values one turn may list while looking for the question's words. */
const MAX_LOOKUPS = 8;

type Events<T> = AsyncGenerator<BrainEvent, T, undefined>;

/**
 * The built-in brain (DESIGN.md "Chat agent"): maps a question onto the semantic model without
 * any external service. It reads the model through `serviceMeta`, looks values up and runs one
 * query through `serviceSqlApi`, and answers with the figures of the result. Words it cannot
 * place are named in a plain "I could not ..." answer; it never states a number it did not read.
 * It calls no language model and spends no token, so it emits no `usage` event: its turns end
 * with a `__usage__` of zeros and no model, which is the truth, not a placeholder.
 */
export class BuiltinBrain implements Brain {
  async *run(turn: BrainTurn): Events<void> {
    const signal = turn.signal ?? new AbortController().signal;
    const lastUser = turn.messages.findLastIndex((m) => m.role === 'user');
    const question = lastUser === -1 ? '' : turn.messages[lastUser].content.trim();
    // a resumed turn (BrainTurn): what this turn already said and the calls it already made
    const replay = new Replay(turn.messages.slice(lastUser + 1));
    const tools = new ToolSession(turn.tools, signal, replay);
    try {
      for await (const event of this.turn(question, tools, turn.now ?? new Date(), signal))
        if (!replay.said(event)) yield event;
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }

  private async *turn(question: string, tools: ToolSession, now: Date, signal: AbortSignal): Events<void> {
    const answer = question
      ? yield* this.answer(question, tools, now)
      : 'Ask me a question about your data, for example "how many orders were placed last month".';
    if (signal.aborted) return;
    for (const line of answer.split('\n')) yield { type: 'content', delta: `${line}\n` };
    yield { type: 'final', content: answer };
  }

  private async *answer(question: string, tools: ToolSession, now: Date): Events<string> {
    yield { type: 'thinking', delta: 'Reading the data model.\n' };
    const meta = yield* tools.meta({ searchQuery: question });
    if ('error' in meta) return `I could not read the data model: ${meta.error}.`;
    const catalog = new Catalog(meta);
    if (catalog.owners.length === 0)
      return 'I could not find any cube or view you may query, so I cannot answer.';

    const reading = readQuestion(question, catalog, now);
    const measures = measureChoices(reading, catalog);
    // without a measure there is nothing to filter: the words are reported, not looked up
    const values =
      measures.length > 0
        ? yield* this.findValues(reading, measures, catalog, tools)
        : matchRuns(reading.values, []);
    const unknown = [...reading.unknown, ...values.unknown];
    if (measures.length === 0 && values.unknown.length > 0) {
      // words no name explains may still be a measure's description ("sales" in "Sum of sale prices")
      const described = catalog.describedBy(values.unknownStems).filter((m) => m.kind === 'measure');
      if (described.length > 0) {
        measures.push({ candidates: described, words: values.unknown.join(' ') });
        unknown.splice(0, unknown.length, ...reading.unknown);
      }
    }
    yield { type: 'thinking', delta: describeReading(reading, measures, values.matches) };
    if (unknown.length > 0) return couldNotUnderstand(unknown, catalog);

    const resolution = resolvePlan(reading, measures, values.matches, catalog);
    if (!resolution.ok) return resolution.problem;
    return yield* this.runPlan(resolution.plan, question, tools);
  }

  /** Runs the plan; a failing query is retried once without its filters, saying so. */
  private async *runPlan(plan: QueryPlan, question: string, tools: ToolSession): Events<string> {
    const first = yield* this.query(plan, question, tools);
    if (!('error' in first)) return writeAnswer(plan, first.query, first.result);
    const conditions = [...plan.filters.map((f) => f.label), ...plan.segments.map((s) => `${s.title} only`)];
    if (conditions.length === 0) return `I could not run the query for this question: ${first.error}`;
    const relaxed: QueryPlan = { ...plan, filters: [], segments: [] };
    const second = yield* this.query(relaxed, question, tools);
    if ('error' in second)
      return `I could not run the query for this question: ${first.error}. Without ${joinWords(conditions)} it failed too: ${second.error}`;
    const without = conditions.length > 1 ? 'these conditions' : 'this condition';
    return [
      `I could not apply ${joinWords(conditions)} (${first.error}), so the figures below are without ${without}.`,
      writeAnswer(relaxed, second.query, second.result),
    ].join('\n');
  }

  private async *query(plan: QueryPlan, question: string, tools: ToolSession) {
    const query = buildSql(plan);
    const title = `${joinWords(plan.measures.map(measureName))}${plan.groups.length > 0 ? ` by ${joinWords(plan.groups.map((g) => g.title))}` : ''}`;
    const scope = scopeText(plan);
    const chart = pickChart(
      query.columns.map((c) => ({
        name: c.name,
        role: c.role,
        title:
          c.role === 'measure' ? measureName(c.member) : c.role === 'time' ? c.member.title : c.member.title,
        ...(c.role === 'time' && plan.time?.granularity ? { granularity: plan.time.granularity } : {}),
        ...(c.role === 'measure' && c.member.format ? { format: c.member.format } : {}),
      })),
      {
        title,
        rowCount: query.columns.some((c) => c.role !== 'measure') ? 2 : 1,
        comparePeriods: plan.compare !== null,
      },
    );
    const input: ServiceSqlApiInput = {
      sqlQuery: query.sql,
      queryTitle: title,
      description: scope ? `${title}, ${scope}` : title,
      userRequest: question,
      ...(chart ? { vegaSpec: JSON.stringify(chart) } : {}),
    };
    const outcome = yield* tools.sql(input);
    if ('error' in outcome) return { error: String(outcome.error) };
    return { query, result: outcome };
  }

  /**
   * Looks the question's unexplained words up among dimension values, listing one dimension's
   * values per `serviceSqlApi` call, likeliest dimensions first, until every word is placed.
   */
  private async *findValues(
    reading: Reading,
    measures: readonly Choice[],
    catalog: Catalog,
    tools: ToolSession,
  ) {
    const found: { dimension: CatalogMember; values: string[] }[] = [];
    const runs = [...reading.values];
    let result = matchRuns(runs, found);
    for (const dimension of lookupOrder(reading, measures, catalog).slice(0, MAX_LOOKUPS)) {
      if (runs.length === 0 || result.unknown.length === 0) break;
      const outcome = yield* tools.sql({
        sqlQuery: valuesSql(dimension),
        queryTitle: `Values of ${dimension.title}`,
        description: `The values of ${dimension.path}, to match the words ${quoted(result.unknown)}`,
        userRequest: joinWords(result.unknown),
      });
      if ('error' in outcome) continue;
      const values = outcome.data.flatMap((row) => (typeof row[0] === 'string' ? [row[0]] : []));
      found.push({ dimension, values });
      result = matchRuns(runs, found);
    }
    // "completed and cancelled": a segment's words that are also a value of a dimension matched here
    const matchedDims = found.filter((f) => result.matches.some((m) => m.dimension === f.dimension));
    const asValues = reading.segments.filter((segment) => {
      const words = segment.words.split(' ');
      const again = matchValues(words, words.map(stem), matchedDims);
      if (again.matches.length === 0 || again.unmatched.length > 0) return false;
      result.matches.push(...again.matches);
      return true;
    });
    reading.segments.splice(
      0,
      reading.segments.length,
      ...reading.segments.filter((s) => !asValues.includes(s)),
    );
    return result;
  }
}

function matchRuns(
  runs: Reading['values'],
  found: readonly { dimension: CatalogMember; values: readonly string[] }[],
): { matches: ValueMatch[]; unknown: string[]; unknownStems: string[] } {
  const matches: ValueMatch[] = [];
  const unknown: string[] = [];
  const unknownStems: string[] = [];
  for (const run of runs) {
    const tied = run.dimension?.candidates ?? [];
    const ordered = [...found].sort(
      (a, b) => Number(tied.includes(b.dimension)) - Number(tied.includes(a.dimension)),
    );
    const r = matchValues(run.words, run.stems, ordered);
    matches.push(...r.matches);
    for (const i of r.unmatched) {
      unknown.push(run.words[i]);
      unknownStems.push(run.stems[i]);
    }
  }
  return { matches, unknown, unknownStems };
}

function couldNotUnderstand(words: readonly string[], catalog: Catalog): string {
  const about = joinWords(catalog.owners.map((o) => o.title));
  return `I could not understand ${quoted(words)} in your question: ${words.length > 1 ? 'they match' : 'it matches'} no measure, dimension or value of the data model, so I did not run a query. I can answer questions about ${about}.`;
}

function describeReading(
  reading: Reading,
  measures: readonly Choice[],
  values: readonly ValueMatch[],
): string {
  const parts = [
    `measures: ${measures.map((m) => m.candidates.map((c) => c.path).join(' | ')).join(', ') || 'none'}`,
    reading.groups.length > 0 ? `grouped by: ${reading.groups.map((g) => g.words).join(', ')}` : '',
    reading.time.range ? `period: ${reading.time.range.label}` : '',
    reading.time.compare ? `comparing: ${reading.time.compare.map((p) => p.label).join(' and ')}` : '',
    reading.time.granularity ? `granularity: ${reading.time.granularity}` : '',
    values.length > 0 ? `values: ${values.map((v) => `${v.dimension.path} = ${v.value}`).join(', ')}` : '',
    reading.top ? `ranking: ${reading.top.order === 'asc' ? 'bottom' : 'top'} ${reading.top.n}` : '',
  ];
  return `I read the question as ${parts.filter(Boolean).join('; ')}.\n`;
}

/**
 * What a resumed turn already streamed (BrainTurn): the brain is deterministic for a question,
 * a model and a clock, so it walks the same path again; the thinking and content it already
 * said are not said twice, and a tool call it already finished returns its stored result
 * without running again. Once the path departs from the stored one, everything is new.
 */
class Replay {
  private thinking: string;
  private content: string;
  private readonly calls: StoredToolCall[];

  constructor(progress: readonly ConversationMessage[]) {
    const steps = progress.filter((m) => m.role === 'assistant');
    this.thinking = steps.map((m) => m.thinking ?? '').join('');
    this.content = steps.map((m) => m.content).join('');
    this.calls = steps.flatMap((m) => m.toolCalls ?? []);
  }

  /** Whether the event repeats text the turn already streamed. */
  said(event: BrainEvent): boolean {
    if (event.type !== 'thinking' && event.type !== 'content') return false;
    const said = this[event.type];
    if (said.startsWith(event.delta)) {
      this[event.type] = said.slice(event.delta.length);
      return true;
    }
    this[event.type] = '';
    return false;
  }

  /** The stored result of this call when it is the next one the turn finished, else undefined. */
  finished(name: string, input: string): string | undefined {
    const next = this.calls[0];
    if (next && !next.interrupted && next.name === name && next.input === input) {
      this.calls.shift();
      return next.result;
    }
    this.calls.length = 0;
    return undefined;
  }
}

/** Tool calls of one turn, streamed as `tool_call` then `tool_result` events. */
class ToolSession {
  constructor(
    private readonly tools: ChatTools,
    private readonly signal: AbortSignal,
    private readonly replay: Replay,
  ) {}

  meta(input: ServiceMetaInput): Events<ServiceMetaResult | { error: string }> {
    return this.call('serviceMeta', input) as Events<ServiceMetaResult | { error: string }>;
  }

  sql(input: ServiceSqlApiInput): Events<ServiceSqlApiResult | { error: string }> {
    return this.call('serviceSqlApi', input) as Events<ServiceSqlApiResult | { error: string }>;
  }

  private async *call(name: ToolName, input: object): Events<ToolOutcome['value']> {
    this.signal.throwIfAborted();
    const text = JSON.stringify(input);
    const stored = this.replay.finished(name, text);
    if (stored !== undefined) return JSON.parse(stored) as ToolOutcome['value'];
    const id = randomUUID();
    yield { type: 'tool_call', id, name, input: text };
    const outcome = await invokeTool(this.tools, name, text, this.signal);
    this.signal.throwIfAborted();
    yield { type: 'tool_result', id, name, result: outcome.result, isError: outcome.isError };
    return outcome.value;
  }
}
