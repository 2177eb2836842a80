import type { Catalog, CatalogMember, CatalogOwner } from './catalog.ts';
import { joinWords } from './format.ts';
import type { Choice, Reading } from './read.ts';
import { autoGranularity, type Period, type Unit } from './time.ts';
import type { ValueMatch } from './values.ts';

export interface PlanFilter {
  readonly member: CatalogMember;
  readonly operator: 'equals' | 'in' | 'gt' | 'gte' | 'lt' | 'lte';
  readonly values: readonly string[];
  /** How the answer names it: "Country is France (FR)". */
  readonly label: string;
}

/** One SQL-API query to run, in the model's terms. */
export interface QueryPlan {
  readonly measures: readonly CatalogMember[];
  readonly groups: readonly CatalogMember[];
  readonly time: { readonly member: CatalogMember; readonly granularity: Unit | null } | null;
  readonly range: Period | null;
  readonly compare: readonly Period[] | null;
  readonly filters: readonly PlanFilter[];
  readonly segments: readonly CatalogMember[];
  readonly top: Reading['top'];
  /** Things the answer must say: parts of the question that were not applied. */
  readonly notes: readonly string[];
}

export type Resolution = { ok: true; plan: QueryPlan } | { ok: false; problem: string };

/**
 * The measures asked for: named ones, else a count of the cube mentioned ("how many orders",
 * "orders by month"), else measures whose description holds the unexplained words.
 */
export function measureChoices(reading: Reading, catalog: Catalog): Choice[] {
  if (reading.measures.length > 0) return reading.measures;
  // "average order value": an average of something unnamed is not a count
  if (reading.unusedAggregation && reading.unusedAggregation.type !== 'sum') return [];
  const mention = reading.owners.find((o) => !o.grouping) ?? reading.owners[0];
  if (mention) {
    const counts = countMeasures(mention.owner, catalog);
    if (counts.length > 0) {
      (mention as { grouping: boolean }).grouping = false;
      return [{ candidates: counts, words: mention.words }];
    }
  }
  return [];
}

/** The owner's plain count, and counts elsewhere named after it (`line_item_count` in a view). */
function countMeasures(owner: CatalogOwner, catalog: Catalog): CatalogMember[] {
  const own = owner.members.filter((m) => m.aggType === 'count');
  const plain = own.filter((m) => m.field === 'count');
  const words = owner.phrases[0];
  const named = catalog.members.filter(
    (m) =>
      m.owner !== owner &&
      m.aggType === 'count' &&
      m.phrases.some((p) => p.includes('count') && words.every((w) => p.includes(w))),
  );
  return [...(plain.length > 0 ? plain : own.slice(0, 1)), ...named];
}

/**
 * String dimensions to look values up in, likeliest first: the dimension the words followed,
 * then those of cubes and views holding the measure, then the rest. Identifiers are skipped.
 */
export function lookupOrder(
  reading: Reading,
  measures: readonly Choice[],
  catalog: Catalog,
): CatalogMember[] {
  const searchable = (m: CatalogMember) =>
    m.kind === 'dimension' && m.type === 'string' && !/(^|_)id$/.test(m.field);
  const owners = new Set(measures.flatMap((c) => c.candidates.map((m) => m.owner)));
  const tied = reading.values.flatMap((v) => v.dimension?.candidates ?? []).filter(searchable);
  const near = catalog.members.filter((m) => owners.has(m.owner) && searchable(m));
  // views first among the rest: they are the joins the modeller meant to be queried together
  const far = catalog.members
    .filter((m) => !owners.has(m.owner) && searchable(m))
    .sort((a, b) => Number(b.owner.type === 'view') - Number(a.owner.type === 'view'));
  const order: CatalogMember[] = [];
  for (const m of [...tied, ...near, ...far]) {
    // the same column in another cube or view lists the same values
    if (!order.some((o) => o === m || sameColumn(o, m))) order.push(m);
  }
  return order;
}

function sameColumn(a: CatalogMember, b: CatalogMember): boolean {
  return a.type === b.type && a.phrases.some((p) => b.phrases.some((q) => p.join(' ') === q.join(' ')));
}

/** Chooses one cube or view (or cubes to join) holding every member asked for, and builds the plan. */
export function resolvePlan(
  reading: Reading,
  measures: readonly Choice[],
  values: readonly ValueMatch[],
  catalog: Catalog,
): Resolution {
  if (measures.length === 0 && reading.unusedAggregation) {
    const { word, type } = reading.unusedAggregation;
    const near = reading.owners.flatMap((o) => o.owner.members.filter((m) => m.aggType === type));
    const hint =
      near.length > 0
        ? ` Measures of that kind here: ${joinWords(near.map((m) => `${m.title} (${m.owner.title})`))}.`
        : '';
    return {
      ok: false,
      problem: `I could not tell what "${word}" applies to: the question names no measure or numeric column for it.${hint}`,
    };
  }
  if (measures.length === 0) {
    const owners = catalog.owners.map((o) => o.title);
    return {
      ok: false,
      problem: `I could not find a measure in your question to compute. This model has ${joinWords(owners)}; ask for one of their measures, for example "how many ${catalog.owners[0]?.title.toLowerCase() ?? 'rows'}".`,
    };
  }
  const groups: Choice[] = [...reading.groups];
  for (const mention of reading.owners) {
    if (!mention.grouping) continue;
    const label = nameDimension(mention.owner);
    if (label) groups.push({ candidates: [label], words: mention.words });
  }
  const valueDims = [...new Set(values.map((v) => v.dimension))];
  for (const d of valueDims) {
    // several values of one dimension ("completed and cancelled") are compared side by side
    if (values.filter((v) => v.dimension === d).length > 1 && !groups.some((g) => g.candidates.includes(d)))
      groups.push({ candidates: [d], words: d.title });
  }
  const valueChoices: Choice[] = valueDims.map((d) => ({
    candidates: equivalents(d, catalog),
    words: d.title,
  }));
  const concepts: Choice[] = [
    ...measures,
    ...groups,
    ...reading.segments,
    ...reading.numeric.map((n) => n.choice),
    ...valueChoices,
    ...(reading.timeDimension ? [reading.timeDimension] : []),
  ];
  const wantsTime =
    reading.time.range !== null || reading.time.compare !== null || reading.time.granularity !== null;
  const mentioned = new Set(reading.owners.map((o) => o.owner));
  const pick =
    pickOwner(concepts, wantsTime, mentioned, catalog) ?? pickCubes(concepts, wantsTime, mentioned, catalog);
  if (!pick) {
    const missing = wantsTime ? ' with a date to filter or group by' : '';
    return {
      ok: false,
      problem: `I could not find one cube or view holding ${joinWords(concepts.map((c) => `"${c.words}"`))}${missing}, so I could not answer this.`,
    };
  }
  const member = (c: Choice) => pick.choose(c);
  const valueFilters: PlanFilter[] = valueDims.map((d) => {
    const matched = values.filter((v) => v.dimension === d);
    const target = member(valueChoices[valueDims.indexOf(d)]);
    const shown = matched.map((v) => (v.display === v.value ? v.value : `${v.display} (${v.value})`));
    return {
      member: target,
      operator: matched.length > 1 ? 'in' : 'equals',
      values: matched.map((v) => v.value),
      label: `${target.title} is ${joinWords(shown)}`,
    };
  });
  const numericFilters: PlanFilter[] = reading.numeric.map((n) => ({
    member: member(n.choice),
    operator: n.operator,
    values: [String(n.value)],
    label: `${member(n.choice).title} ${n.words.replace(/ \S+$/, '')} ${n.value}`,
  }));
  const notes: string[] = [];
  let granularity: Unit | null =
    reading.time.granularity === 'auto' ? autoGranularity(reading.time.range) : reading.time.granularity;
  if (reading.time.compare) {
    if (granularity && granularity !== reading.time.compare[0].unit)
      notes.push(`I compared the periods as wholes rather than by ${granularity}.`);
    granularity = reading.time.compare[0].unit;
  }
  const groupMembers = groups.map(member).filter((m, i, all) => all.indexOf(m) === i);
  if (reading.top && granularity && !reading.time.compare && groupMembers.length > 0)
    notes.push(
      `I did not rank the top ${reading.top.n} over time; the chart shows every ${groupMembers[0].title}.`,
    );
  return {
    ok: true,
    plan: {
      measures: measures.map(member),
      groups: groupMembers,
      time: pick.time ? { member: pick.time, granularity } : null,
      range: reading.time.range,
      compare: reading.time.compare,
      filters: [...valueFilters, ...numericFilters],
      segments: reading.segments.map(member),
      top: reading.top,
      notes,
    },
  };
}

interface Pick {
  choose(choice: Choice): CatalogMember;
  time: CatalogMember | null;
}

/** The one cube or view holding every concept: mentioned first, then cubes, then the smallest. */
function pickOwner(
  concepts: Choice[],
  wantsTime: boolean,
  mentioned: Set<CatalogOwner>,
  catalog: Catalog,
): Pick | null {
  const explicitTime = concepts.some((c) => c.candidates.every((m) => m.type === 'time'));
  const fits = catalog.owners.filter(
    (o) =>
      concepts.every((c) => c.candidates.some((m) => m.owner === o)) &&
      (!wantsTime || explicitTime || o.members.some((m) => m.type === 'time')),
  );
  if (fits.length === 0) return null;
  const score = (o: CatalogOwner) =>
    (mentioned.has(o) ? 1000 : 0) + (o.type === 'cube' ? 500 : 0) - o.members.length;
  const owner = fits.sort((a, b) => score(b) - score(a))[0];
  const choose = (c: Choice) => c.candidates.find((m) => m.owner === owner)!;
  const timeChoice = concepts.find((c) => c.candidates.every((m) => m.type === 'time'));
  const time = timeChoice ? choose(timeChoice) : wantsTime ? timeDimension(owner) : null;
  return { choose, time };
}

/** Cubes joined on their model joins (`__cubeJoinField`): a member of a cube per concept. */
function pickCubes(
  concepts: Choice[],
  wantsTime: boolean,
  mentioned: Set<CatalogOwner>,
  catalog: Catalog,
): Pick | null {
  const chosen = new Map<Choice, CatalogMember>();
  const tables = new Set<CatalogOwner>();
  for (const c of concepts) {
    const cubes = c.candidates.filter((m) => m.owner.type === 'cube');
    if (cubes.length === 0) return null;
    const m = cubes.find((x) => tables.has(x.owner)) ?? cubes.find((x) => mentioned.has(x.owner)) ?? cubes[0];
    chosen.set(c, m);
    tables.add(m.owner);
  }
  let time: CatalogMember | null = [...chosen.values()].find((m) => m.type === 'time') ?? null;
  if (wantsTime && !time) {
    // a cube the chosen ones point at (`line_items.order_id` -> `orders`) is the likeliest join
    const pointed = catalog.owners.filter((o) =>
      [...tables].some((t) => t.members.some((m) => m.kind === 'dimension' && pointsAt(m, o))),
    );
    const owners = [...tables, ...pointed, ...mentioned, ...catalog.owners.filter((o) => o.type === 'cube')];
    time = owners.map(timeDimension).find((m) => m !== null) ?? null;
    if (!time) return null;
  }
  return { choose: (c) => chosen.get(c)!, time: wantsTime ? time : null };
}

/** `order_id` points at the cube named `orders` (or `order`). */
function pointsAt(m: CatalogMember, owner: CatalogOwner): boolean {
  const words = m.phrases[0];
  return (
    words.length > 1 && words.at(-1) === 'id' && owner.phrases[0].join(' ') === words.slice(0, -1).join(' ')
  );
}

function timeDimension(owner: CatalogOwner): CatalogMember | null {
  return owner.members.find((m) => m.kind === 'dimension' && m.type === 'time') ?? null;
}

/** What "by product" groups by: the cube's name-like dimension; without one the cube is context. */
function nameDimension(owner: CatalogOwner): CatalogMember | null {
  return (
    owner.members.find(
      (m) => m.kind === 'dimension' && m.type === 'string' && ['name', 'title', 'label'].includes(m.field),
    ) ?? null
  );
}

/** The same column in other cubes and views (`sales.customers_country` ~ `customers.country`). */
function equivalents(d: CatalogMember, catalog: Catalog): CatalogMember[] {
  return [d, ...catalog.members.filter((m) => m !== d && m.kind === 'dimension' && sameColumn(d, m))];
}
