import { inlineParams as inline, literalWriter } from './inline-params.ts';

/**
 * The dialect's `$n` placeholders replaced by Databricks literals (inline-params.ts), as the other
 * HTTP drivers inline theirs: one statement text per query, whose repeated `$n` and LIMIT need no
 * typed parameter markers. Databricks' string literals read backslash escapes ("STRING type",
 * Literals: `\'` is a quote), and two quotes in a row have been two adjacent literals, concatenated
 * (`'a''b'` is `ab`; Spark's SPARK-52545 reads them as a quote in newer runtimes only): a backslash
 * is written `\\` and a quote `\'`, which every runtime reads alike, never `''`.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return inline(sql, params, { quotes: '\'`"', backslashEscapes: true, hashComments: false, literal });
}

/** One value as a Databricks literal: text quoted, numbers as written, NULL, TRUE and FALSE. */
export const literal = literalWriter('Databricks', {
  text: (value) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
});
