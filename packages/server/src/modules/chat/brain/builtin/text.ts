/**
 * Words of a question and of a data model, made comparable: lower case, punctuation gone,
 * abbreviations spelled out, plurals folded by a light stemmer. Questions and member names go
 * through the same steps, so that "Avg Amount" and "average amounts" meet.
 */

const NUMBER_WORDS: Record<string, string> = {
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  twelve: '12',
  fifteen: '15',
  twenty: '20',
  thirty: '30',
};

/** Abbreviations as modellers write them -> the word a question uses. */
const SPELLED_OUT: Record<string, string> = {
  avg: 'average',
  mean: 'average',
  amt: 'amount',
  qty: 'quantity',
  cnt: 'count',
  num: 'number',
  pct: 'percent',
  percentage: 'percent',
  nb: 'number',
  cust: 'customer',
  prod: 'product',
  cat: 'category',
  dt: 'date',
  ts: 'timestamp',
  sum: 'total',
};

/**
 * The question as single-space-separated words: lower case, `-` kept only inside dates and `.`
 * only inside numbers, number words as digits ("top five" -> "top 5").
 */
export function normalizeQuestion(text: string): string {
  const words =
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/'s\b/g, '')
      .match(/\d+(?:[.-]\d+)+|[a-z0-9]+/g) ?? [];
  return words.map((w) => NUMBER_WORDS[w] ?? w).join(' ');
}

/** Splits a model identifier or title into words: `totalAmount`, `total_amount`, `Total Amount`. */
export function identifierWords(text: string): string[] {
  return normalizeQuestion(text.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/[_.]+/g, ' '))
    .split(' ')
    .filter(Boolean);
}

/** Light stemming: plurals and a few suffixes; both sides of a comparison go through it. */
export function stem(word: string): string {
  const w = SPELLED_OUT[word] ?? word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(w)) return w;
  if (/(sses|xes|ches|shes|zes)$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

export const stemAll = (words: readonly string[]): string[] => words.map(stem);

/**
 * Words that carry no meaning of their own in a question about data: they are never reported as
 * not understood. Words that steer the reading (by, top, in, vs, ...) are read by the parser
 * before this list matters.
 */
export const FILLER_WORDS = new Set(
  `a an the of for in on at to by per from with and or is are was were be been being do does did
  what which who whom whose how when where why show me give tell list display get find see plot chart
  draw graph i we you our my your us please can could would will shall should may might let there
  their its it this that these those as about much many number total overall all each every any
  some have has had value values figure figures during within over across split break
  broken down breakdown group grouped grouping between compare compared comparison versus vs
  against than more most less least fewest fewer top bottom best worst highest lowest largest smallest biggest
  whole entire so far up now then just only also both data report look like happened
  dataset table stats statistics summary summarize summarise trend trends over time
  timeline series performance performing kpi metric metrics measure measures
  were was did do done made make makes sold placed got gotten recorded registered
  with without into out today yesterday ago since until till before after last past previous
  this current next year years quarter quarters month months week weeks day days daily
  weekly monthly quarterly yearly annually annual hourly hour hours date dates period`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words that never name a member, even when a model uses them as a name. */
export const STRUCTURAL_WORDS = new Set(
  'a an the of for in on at to by per from with and or is are was were be what which who how when where why me i we you it this that these those as vs versus'.split(
    ' ',
  ),
);

/** Aggregation words in front of a numeric column -> the measure type they ask for. */
export const AGGREGATION_WORDS: Record<string, string> = {
  total: 'sum',
  average: 'avg',
  maximum: 'max',
  max: 'max',
  minimum: 'min',
  min: 'min',
  unique: 'count_distinct',
  distinct: 'count_distinct',
};
