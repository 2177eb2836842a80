import { inlineParams as inline, literalWriter } from './inline-params.ts';

/**
 * The dialect's `$n` placeholders replaced by ClickHouse literals (inline-params.ts). Inlined
 * rather than bound as `{name:Type}` query parameters: the planner's values carry no ClickHouse
 * type, and a zone name must be a constant for toTimeZone. ClickHouse string literals take
 * backslash escapes ("Syntax", String literals), so `\` and `'` are both escaped with one; `#`
 * starts a comment there as in MySQL.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return inline(sql, params, { quotes: `'"\``, backslashEscapes: true, hashComments: true, literal });
}

/** One value as a ClickHouse literal: text quoted and escaped, numbers as written, NULL, true, false. */
export const literal = literalWriter('ClickHouse', {
  text: (value) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  booleans: ['true', 'false'],
});
