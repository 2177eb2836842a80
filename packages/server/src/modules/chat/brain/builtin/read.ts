import type { Catalog, CatalogHit, CatalogMember, CatalogOwner } from './catalog.ts';
import { AGGREGATION_WORDS, FILLER_WORDS, normalizeQuestion, stem } from './text.ts';
import { readTime, type TimeReading } from './time.ts';

/** Members one phrase of the question may mean (the same thing in several cubes or views). */
export interface Choice {
  readonly candidates: readonly CatalogMember[];
  readonly words: string;
}

export interface NumericCondition {
  readonly choice: Choice;
  readonly operator: 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: number;
  readonly words: string;
}

export interface OwnerMention {
  readonly owner: CatalogOwner;
  /** "by product", "top 5 products": group by the owner's label. */
  readonly grouping: boolean;
  readonly words: string;
}

/** Words no member name explains: dimension values to look up ("France", "cancelled"). */
export interface ValueRun {
  readonly words: readonly string[];
  readonly stems: readonly string[];
  /** Set when the words follow a dimension ("status cancelled"). */
  readonly dimension: Choice | null;
}

/** What a question asks, before values are looked up and a cube or view is chosen. */
export interface Reading {
  readonly time: TimeReading;
  readonly top: { readonly n: number; readonly order: 'desc' | 'asc' } | null;
  /** "how many", "number of": count what is mentioned. */
  readonly count: boolean;
  readonly measures: Choice[];
  readonly groups: Choice[];
  readonly timeDimension: Choice | null;
  readonly segments: Choice[];
  readonly numeric: NumericCondition[];
  readonly owners: OwnerMention[];
  readonly values: ValueRun[];
  /** Words read neither as a member, a value nor a filler. */
  readonly unknown: string[];
  /** "average", "maximum" ... that no measure took up ("average order value"). */
  readonly unusedAggregation: { readonly type: string; readonly word: string } | null;
}

const TOP_MARK = 'qqtop';
const NUMBER_MARK = 'qqnum';
const GROUP_CUES = new Set(['by', 'per', 'each', 'across', 'every', 'which', TOP_MARK]);
const COMPARATORS: Record<string, NumericCondition['operator']> = {
  over: 'gt',
  above: 'gt',
  'more than': 'gt',
  'greater than': 'gt',
  'bigger than': 'gt',
  exceeding: 'gt',
  'at least': 'gte',
  under: 'lt',
  below: 'lt',
  'less than': 'lt',
  'smaller than': 'lt',
  'at most': 'lte',
};

type Item =
  | { kind: 'match'; hits: CatalogHit[]; words: string }
  | { kind: 'word'; word: string; stem: string }
  | { kind: 'number'; index: number };

interface DimensionInWaiting {
  choice: Choice;
  tied: boolean;
}

/** Reads a question against the model's catalog (the brain's first step, before any query). */
export function readQuestion(question: string, catalog: Catalog, now: Date): Reading {
  const time = readTime(normalizeQuestion(question), now);
  let text = ` ${time.rest} `;
  const count = /(?<= )(how many|number of|count of)(?= )/.test(text);
  text = text.replace(/(?<= )(how many|number of|count of)(?= )/g, ' ');
  const top = readTop(text);
  text = top.text;
  const numbers: { operator: NumericCondition['operator']; value: number; words: string }[] = [];
  const comparator = Object.keys(COMPARATORS).join('|');
  text = text.replace(
    new RegExp(`(?<= )(${comparator}) (\\d+(?:\\.\\d+)?)(?= )`, 'g'),
    (all, op: string, v: string) => {
      numbers.push({ operator: COMPARATORS[op], value: Number(v), words: all });
      return `${NUMBER_MARK}${numbers.length - 1}`;
    },
  );

  const words = text.split(' ').filter(Boolean);
  const stems = words.map(stem);
  const items: Item[] = [];
  for (let i = 0; i < words.length; ) {
    const mark = new RegExp(`^${NUMBER_MARK}(\\d+)$`).exec(words[i]);
    if (mark) {
      items.push({ kind: 'number', index: Number(mark[1]) });
      i++;
      continue;
    }
    const match = words[i] === TOP_MARK ? null : catalog.longestMatch(stems, i);
    if (match) {
      items.push({ kind: 'match', hits: match.hits, words: words.slice(i, match.end).join(' ') });
      i = match.end;
    } else {
      items.push({ kind: 'word', word: words[i], stem: stems[i] });
      i++;
    }
  }

  const reading: Reading = {
    time,
    top: top.top,
    count,
    measures: [],
    groups: [],
    timeDimension: null,
    segments: [],
    numeric: [],
    owners: [],
    values: [],
    unknown: [...time.unsupported],
    unusedAggregation: null,
  };
  // "US", "IT", "IN": a code in capitals is a value even where the same word is a filler
  const codes = capitalWords(question);
  const weakMeasures = new Set<Choice>();
  const waiting: DimensionInWaiting[] = [];
  let lastDimension: DimensionInWaiting | null = null;
  let cue: 'group' | null = null;
  let aggregation: { type: string; word: string } | null = null;
  let run: { words: string[]; stems: string[] } | null = null;
  // words after a dimension ("status cancelled") are looked up in that dimension first
  const closeRun = () => {
    if (!run) return;
    if (lastDimension) lastDimension.tied = true;
    reading.values.push({ ...run, dimension: lastDimension?.choice ?? null });
    run = null;
  };

  for (const [index, item] of items.entries()) {
    if (item.kind === 'word') {
      if (GROUP_CUES.has(item.word)) {
        closeRun();
        cue = 'group';
      } else if (AGGREGATION_WORDS[item.stem] && !run) {
        aggregation = { type: AGGREGATION_WORDS[item.stem], word: item.word };
      } else if ((FILLER_WORDS.has(item.word) || FILLER_WORDS.has(item.stem)) && !codes.has(item.word)) {
        closeRun();
      } else {
        run ??= { words: [], stems: [] };
        run.words.push(item.word);
        run.stems.push(item.stem);
      }
      continue;
    }
    closeRun();
    if (item.kind === 'number') {
      const n = numbers[item.index];
      if (lastDimension) {
        reading.numeric.push({ choice: lastDimension.choice, ...n });
        lastDimension.tied = true;
      } else {
        reading.unknown.push(n.words);
      }
      continue;
    }
    const members = item.hits.flatMap((h) => (h.kind === 'member' ? [h.member] : []));
    const owners = item.hits.flatMap((h) => (h.kind === 'owner' ? [h.owner] : []));
    const choice = (candidates: CatalogMember[]): Choice => ({ candidates, words: item.words });
    const next = items[index + 1];
    if (members.length === 0) {
      // "product category": the owner qualifies the member right after it, which inherits the cue
      const qualifies =
        next?.kind === 'match' &&
        next.hits.some((h) => h.kind === 'member' && owners.includes(h.member.owner));
      for (const owner of owners)
        reading.owners.push({ owner, grouping: cue === 'group' && !qualifies, words: item.words });
      if (!qualifies) cue = null;
      continue;
    }
    const measures = members.filter((m) => m.kind === 'measure');
    const dimensions = members.filter((m) => m.kind === 'dimension');
    const segments = members.filter((m) => m.kind === 'segment');
    const folded = aggregation ? foldAggregation(aggregation.type, dimensions) : [];
    if (folded.length > 0 || measures.length > 0) aggregation = null;
    lastDimension = null;
    if (folded.length > 0) {
      reading.measures.push(choice(folded));
    } else if (cue === 'group' && dimensions.length > 0) {
      addDimension(reading, choice(dimensions), true, waiting);
    } else if (
      measures.length > 0 &&
      (reading.measures.length === 0 || dimensions.length + segments.length === 0)
    ) {
      const c = choice(measures);
      reading.measures.push(c);
      if (owners.length > 0) {
        weakMeasures.add(c);
        for (const owner of owners) reading.owners.push({ owner, grouping: false, words: item.words });
      }
    } else if (segments.length > 0) {
      reading.segments.push(choice(segments));
    } else if (dimensions.length > 0) {
      lastDimension = addDimension(reading, choice(dimensions), false, waiting);
    }
    cue = null;
  }
  closeRun();
  (reading as { unusedAggregation: Reading['unusedAggregation'] }).unusedAggregation = aggregation;

  // a dimension no value followed is grouped by
  for (const w of waiting) if (!w.tied) reading.groups.push(w.choice);
  // "urgent tickets" when "tickets" also names a count: with another measure, it is the cube
  if (reading.measures.some((m) => !weakMeasures.has(m)))
    reading.measures.splice(
      0,
      reading.measures.length,
      ...reading.measures.filter((m) => !weakMeasures.has(m)),
    );
  return reading;
}

/** Words written in capitals in a question that is not all capitals ("orders in the US"). */
function capitalWords(question: string): Set<string> {
  const words = question.match(/[A-Za-z]+/g) ?? [];
  const capitals = words.filter((w) => w.length >= 2 && w === w.toUpperCase());
  return new Set(capitals.length * 2 < words.length ? capitals.map((w) => w.toLowerCase()) : []);
}

/** A time dimension picks the date to filter or group on; another waits to see if values follow. */
function addDimension(
  reading: Reading,
  choice: Choice,
  grouping: boolean,
  waiting: DimensionInWaiting[],
): DimensionInWaiting | null {
  if (choice.candidates.every((m) => m.type === 'time')) {
    (reading as { timeDimension: Choice | null }).timeDimension = choice;
    if (grouping && reading.time.granularity === null)
      (reading as { time: TimeReading }).time = { ...reading.time, granularity: 'auto' };
    return null;
  }
  const candidates = choice.candidates.filter((m) => m.type !== 'time');
  const entry = { choice: { ...choice, candidates }, tied: false };
  if (grouping) reading.groups.push(entry.choice);
  else waiting.push(entry);
  return grouping ? null : entry;
}

/** "average amount": the owner's avg measure over the `amount` column, found by name. */
function foldAggregation(aggType: string, dimensions: readonly CatalogMember[]): CatalogMember[] {
  const out: CatalogMember[] = [];
  for (const d of dimensions) {
    if (d.type !== 'number') continue;
    const words = d.phrases[0];
    for (const m of d.owner.members) {
      if (m.kind !== 'measure' || m.aggType !== aggType) continue;
      if (words.every((w) => m.phrases.some((p) => p.includes(w)))) out.push(m);
    }
  }
  return out;
}

/** "top 5", "5 largest", "bottom 3", "which ... the most": ranking, marked in the text. */
function readTop(text: string): { text: string; top: Reading['top'] } {
  const desc = 'top|best|highest|largest|biggest|most';
  const asc = 'bottom|worst|lowest|smallest|least|fewest';
  const explicit =
    new RegExp(`(?<= )(${desc}|${asc}) (\\d+)(?= )`).exec(text) ??
    new RegExp(`(?<= )(\\d+) (${desc}|${asc})(?= )`).exec(text);
  if (explicit) {
    const [word, n] = /^\d+$/.test(explicit[1]) ? [explicit[2], explicit[1]] : [explicit[1], explicit[2]];
    const order = new RegExp(`^(${asc})$`).test(word) ? 'asc' : 'desc';
    return {
      text: replaceAt(text, explicit.index, explicit[0].length, TOP_MARK),
      top: { n: Number(n), order },
    };
  }
  const word = new RegExp(`(?<= )(?:the )?(top|bottom|${desc}|${asc})(?= )`).exec(text);
  if (!word) return { text, top: null };
  const order = new RegExp(`^(?:the )?(${asc})$`).test(word[0]) ? 'asc' : 'desc';
  const single = /^ (which|what) /.test(text) && !/^(?:the )?(top|bottom)$/.test(word[0]);
  const marked = /(top|bottom)$/.test(word[0]) ? replaceAt(text, word.index, word[0].length, TOP_MARK) : text;
  return { text: marked, top: { n: single ? 1 : 10, order } };
}

function replaceAt(text: string, index: number, length: number, by: string): string {
  return `${text.slice(0, index)}${by}${text.slice(index + length)}`;
}
