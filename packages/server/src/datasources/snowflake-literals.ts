import { inlineParams as inline, literalWriter } from './inline-params.ts';

/**
 * The dialect's `$n` placeholders replaced by Snowflake literals (inline-params.ts). The SQL API's
 * `bindings` take `?`, one value per occurrence, where the dialect repeats a `$n`; inlining keeps
 * one statement per query. Snowflake's single-quoted strings read backslash escapes ("String &
 * binary data types", escape sequences), so `\` is doubled as well as `'`.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  return inline(sql, params, {
    quotes: `'"`,
    backslashEscapes: true,
    hashComments: false,
    // "Dollar-quoted string constants" and `//` comments (Snowflake's SQL reference): a `$1`
    // inside either is model text, not a placeholder
    dollarStrings: true,
    literal,
  });
}

/** One value as a Snowflake literal: text quoted, numbers as written, NULL, TRUE and FALSE. */
export const literal = literalWriter('Snowflake', {
  text: (value) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
});
