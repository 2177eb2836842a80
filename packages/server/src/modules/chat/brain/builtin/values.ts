import type { CatalogMember } from './catalog.ts';
import { normalizeQuestion, stemAll } from './text.ts';

/** A value of a dimension found in the question ("France" for `country` = `FR`). */
export interface ValueMatch {
  readonly dimension: CatalogMember;
  /** The value as stored, used in the query. */
  readonly value: string;
  /** The question's words that named it. */
  readonly words: string;
  /** How an answer names it: the region's name for a code ("United Kingdom" for GB), else the value. */
  readonly display: string;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** Names people use for a few regions besides the English name of their ISO 3166 code. */
const REGION_ALIASES: Record<string, string[]> = {
  GB: ['uk', 'britain', 'great britain', 'england'],
  US: ['usa', 'america', 'united states of america'],
  AE: ['uae'],
};

/**
 * The ways a question may name a stored value, as stemmed word sequences: the value itself and,
 * for a two-letter upper-case code, the English name of that ISO 3166 region ("FR" -> France).
 */
export function valueNames(value: string): string[][] {
  const names = [value];
  const region = regionName(value);
  if (region) names.push(region, ...(REGION_ALIASES[value] ?? []));
  return names
    .map((n) => stemAll(normalizeQuestion(n).split(' ').filter(Boolean)))
    .filter((w) => w.length > 0);
}

/** The English name of a two-letter region code, or null. */
function regionName(value: string): string | null {
  if (!/^[A-Z]{2}$/.test(value)) return null;
  const name = safeRegionName(value);
  return name && name !== value ? name : null;
}

function safeRegionName(code: string): string | undefined {
  try {
    return regionNames.of(code);
  } catch {
    return undefined;
  }
}

/**
 * Finds dimension values in a run of question words (stemmed), longest first. Returns the
 * matches and the positions of the words left unmatched.
 */
export function matchValues(
  words: readonly string[],
  stems: readonly string[],
  dimensions: readonly { dimension: CatalogMember; values: readonly string[] }[],
): { matches: ValueMatch[]; unmatched: number[] } {
  const index = new Map<string, { dimension: CatalogMember; value: string }[]>();
  for (const { dimension, values } of dimensions) {
    for (const value of values) {
      for (const name of valueNames(value)) {
        const key = name.join(' ');
        const list = index.get(key) ?? [];
        if (!list.some((x) => x.dimension === dimension && x.value === value))
          list.push({ dimension, value });
        index.set(key, list);
      }
    }
  }
  const matches: ValueMatch[] = [];
  const unmatched: number[] = [];
  let i = 0;
  while (i < stems.length) {
    let found = false;
    for (let end = Math.min(stems.length, i + 6); end > i; end--) {
      const hits = index.get(stems.slice(i, end).join(' '));
      if (!hits) continue;
      // the same words in several dimensions: the first listed wins (the caller lists the likeliest first)
      const said = words.slice(i, end).join(' ');
      const display =
        said.toLowerCase() === hits[0].value.toLowerCase()
          ? hits[0].value
          : (regionName(hits[0].value) ?? said);
      matches.push({ ...hits[0], words: said, display });
      i = end;
      found = true;
      break;
    }
    if (!found) unmatched.push(i++);
  }
  return { matches, unmatched };
}
