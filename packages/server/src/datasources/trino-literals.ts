import { inlineParams as inline, literalWriter } from './inline-params.ts';

/**
 * The dialect's `$n` placeholders replaced by Trino literals (inline-params.ts). Trino's client
 * protocol binds values only through PREPARE and EXECUTE ... USING (a second request per query);
 * its string literals have no backslash escapes, so doubling `'` is the whole escaping
 * (Trino's "Literals": a single quote in a string is written as two).
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return inline(sql, params, { quotes: `'"`, backslashEscapes: false, hashComments: false, literal });
}

/** One value as a Trino literal: text quoted, numbers as written, NULL, TRUE and FALSE. */
export const literal = literalWriter('Trino', {
  text: (value) => `'${value.replace(/'/g, "''")}'`,
  // a fraction as DOUBLE (1.5E0): Trino reads 1.5 as DECIMAL(2,1), whose arithmetic rounds to its scale
  number: (value) => (Number.isInteger(value) ? String(value) : `${value.toExponential()}`.replace('e', 'E')),
});
