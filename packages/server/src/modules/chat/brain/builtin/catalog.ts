import type { ServiceMetaCube, ServiceMetaMember, ServiceMetaResult } from '../types.ts';
import { identifierWords, STRUCTURAL_WORDS, stemAll } from './text.ts';

export type MemberKind = 'measure' | 'dimension' | 'segment';

export interface CatalogMember {
  /** `cube.member`, as `serviceMeta` names it. */
  readonly path: string;
  readonly owner: CatalogOwner;
  /** The column name in SQL-API queries over the owner. */
  readonly field: string;
  readonly kind: MemberKind;
  /** `number`, `string`, `time`, `boolean`; `segment` for segments. */
  readonly type: string;
  readonly aggType: string | null;
  /** The model's format (`currency`, `percent`), which the answer states the figures in. */
  readonly format: string | null;
  /** The member's own title, without its cube's ("Total Amount"). */
  readonly title: string;
  readonly description: string | null;
  /** Word sequences (stemmed) that name it: name, title, synonyms. */
  readonly phrases: readonly (readonly string[])[];
}

export interface CatalogOwner {
  readonly name: string;
  readonly type: 'cube' | 'view';
  readonly title: string;
  readonly phrases: readonly (readonly string[])[];
  readonly members: readonly CatalogMember[];
}

export type CatalogHit = { kind: 'member'; member: CatalogMember } | { kind: 'owner'; owner: CatalogOwner };

/** Longest phrase considered, in words. */
const MAX_PHRASE = 5;

/**
 * The model as the built-in brain reads it from `serviceMeta`: every cube and view with the
 * phrases that name it and its members. Lookup is by exact word sequence, or by the same words
 * in another order for phrases of two words or more ("quantity total" = "total quantity").
 */
export class Catalog {
  readonly owners: readonly CatalogOwner[];
  private readonly exact = new Map<string, CatalogHit[]>();
  private readonly unordered = new Map<string, CatalogHit[]>();

  constructor(meta: ServiceMetaResult) {
    const ownerWords = meta.cubes.map((c) => stemAll(identifierWords(c.name)));
    this.owners = meta.cubes.map((cube) => buildOwner(cube, ownerWords));
    for (const owner of this.owners) {
      for (const p of owner.phrases) this.add(p, { kind: 'owner', owner });
      for (const member of owner.members)
        for (const p of member.phrases) this.add(p, { kind: 'member', member });
    }
  }

  get members(): CatalogMember[] {
    return this.owners.flatMap((o) => o.members);
  }

  owner(name: string): CatalogOwner | undefined {
    return this.owners.find((o) => o.name === name);
  }

  /** The longest phrase starting at `start` among `words` (stemmed), and what it names. */
  longestMatch(
    words: readonly string[],
    start: number,
    limit = words.length,
  ): { end: number; hits: CatalogHit[] } | null {
    for (let end = Math.min(limit, start + MAX_PHRASE); end > start; end--) {
      const slice = words.slice(start, end);
      const hits =
        this.exact.get(slice.join(' ')) ??
        (slice.length > 1 ? this.unordered.get(sortedKey(slice)) : undefined);
      if (hits) return { end, hits };
    }
    return null;
  }

  /** Members whose description holds these words in this order (weaker than a name). */
  describedBy(words: readonly string[]): CatalogMember[] {
    const needle = ` ${words.join(' ')} `;
    return this.members.filter((m) => {
      if (!m.description) return false;
      return ` ${stemAll(identifierWords(m.description)).join(' ')} `.includes(needle);
    });
  }

  private add(phrase: readonly string[], hit: CatalogHit): void {
    if (phrase.length === 0 || phrase.every((w) => STRUCTURAL_WORDS.has(w))) return;
    push(this.exact, phrase.join(' '), hit);
    if (phrase.length > 1) push(this.unordered, sortedKey(phrase), hit);
  }
}

function push(map: Map<string, CatalogHit[]>, key: string, hit: CatalogHit): void {
  const list = map.get(key) ?? [];
  const same = (h: CatalogHit) =>
    h.kind === hit.kind &&
    (h.kind === 'member' ? h.member === (hit as typeof h).member : h.owner === (hit as typeof h).owner);
  if (!list.some(same)) list.push(hit);
  map.set(key, list);
}

const sortedKey = (words: readonly string[]) => [...words].sort().join(' ');

function buildOwner(cube: ServiceMetaCube, ownerWords: readonly string[][]): CatalogOwner {
  const members: CatalogMember[] = [];
  const owner: CatalogOwner = {
    name: cube.name,
    type: cube.type,
    title: cube.title,
    phrases: unique([stemAll(identifierWords(cube.name)), stemAll(identifierWords(cube.title))]),
    members,
  };
  for (const m of cube.members) members.push(buildMember(m, owner, ownerWords));
  return owner;
}

function buildMember(
  m: ServiceMetaMember,
  owner: CatalogOwner,
  ownerWords: readonly string[][],
): CatalogMember {
  const field = m.name.includes('.') ? m.name.slice(m.name.indexOf('.') + 1) : m.name;
  const kind: MemberKind = m.type === 'segment' ? 'segment' : m.aggType ? 'measure' : 'dimension';
  const title = ownTitle(m.title, owner.title);
  const nameWords = stemAll(identifierWords(field));
  const phrases: string[][] = [nameWords, stemAll(identifierWords(title))];
  // a view's prefixed member (`customers_country`) is also named without its cube's prefix
  for (const prefix of ownerWords) {
    if (prefix.length < nameWords.length && prefix.every((w, i) => nameWords[i] === w))
      phrases.push(nameWords.slice(prefix.length));
  }
  // `created_at`, `opened_on`, `signup_date` are also named by their verb: "orders created in 2024"
  if (m.type === 'time' && nameWords.length > 1 && ['at', 'on', 'date', 'time'].includes(nameWords.at(-1)!))
    phrases.push(nameWords.slice(0, -1));
  for (const synonym of synonyms(m.meta)) phrases.push(stemAll(identifierWords(synonym)));
  return {
    path: m.name,
    owner,
    field,
    kind,
    type: m.type,
    aggType: m.aggType ?? null,
    format: m.format ?? null,
    title,
    description: m.description ?? null,
    phrases: unique(phrases),
  };
}

/** "Orders Total Amount" -> "Total Amount": member titles in meta carry their cube's title. */
function ownTitle(title: string, ownerTitle: string): string {
  return title.toLowerCase().startsWith(`${ownerTitle.toLowerCase()} `)
    ? title.slice(ownerTitle.length + 1)
    : title;
}

/** `meta.synonyms` as a list or a comma-separated text. */
function synonyms(meta: Record<string, unknown> | undefined): string[] {
  const value = meta?.synonyms;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  if (typeof value === 'string') return value.split(',').map((s) => s.trim());
  return [];
}

function unique(phrases: string[][]): string[][] {
  const seen = new Set<string>();
  return phrases.filter((p) => {
    const key = p.join(' ');
    if (p.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
