import { inlineParams as inline } from './inline-params.ts';

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
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`A parameter is not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  throw new Error(`A parameter of type ${typeof value} cannot be written as a Snowflake literal`);
}
