/** How an engine writes quoted text and comments, and a value as one of its literals. */
export interface LiteralSyntax {
  /** Characters that open quoted text or a quoted identifier (closed by the same, doubled to escape). */
  quotes: string;
  /** Whether `\` escapes the next character inside single-quoted text (MySQL's default mode). */
  backslashEscapes: boolean;
  /** Whether `#` starts a comment to the end of the line (MySQL). */
  hashComments: boolean;
  /** Whether `$$…$$` is a string and `//` starts a comment to the end of the line (Snowflake). */
  dollarStrings?: boolean;
  literal(value: unknown): string;
}

/**
 * The dialect's `$n` placeholders replaced by the engine's literals, skipping quoted text, quoted
 * identifiers and comments (so that a `$1` in model SQL's literals stays). For the engines whose
 * drivers inline values rather than bind them (mysql-driver.ts and trino-driver.ts say why).
 */
export function inlineParams(sql: string, params: readonly unknown[], syntax: LiteralSyntax): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (syntax.quotes.includes(c)) {
      let j = i + 1;
      while (j < sql.length) {
        if (syntax.backslashEscapes && c === "'" && sql[j] === '\\') j += 2;
        else if (sql[j] === c && sql[j + 1] === c) j += 2;
        else if (sql[j] === c) break;
        else j++;
      }
      out += sql.slice(i, j + 1);
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const j = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, j);
      i = j - 1;
    } else if (syntax.dollarStrings && c === '$' && sql[i + 1] === '$') {
      const end = sql.indexOf('$$', i + 2);
      const j = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, j);
      i = j - 1;
    } else if (
      (c === '-' && sql[i + 1] === '-') ||
      (syntax.hashComments && c === '#') ||
      (syntax.dollarStrings && c === '/' && sql[i + 1] === '/')
    ) {
      const end = sql.indexOf('\n', i);
      const j = end < 0 ? sql.length : end;
      out += sql.slice(i, j);
      i = j - 1;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      const digits = /^[0-9]+/.exec(sql.slice(i + 1))![0];
      const n = Number(digits);
      if (n < 1 || n > params.length) throw new Error(`No parameter for placeholder $${n}`);
      out += syntax.literal(params[n - 1]);
      i += digits.length;
    } else out += c;
  }
  return out;
}

/** How an engine writes the values that are not NULL, a boolean or a whole bigint. */
export interface LiteralForms {
  /** Quoted text, its quotes (and backslashes, where they escape) escaped the engine's way. */
  text(value: string): string;
  /** A finite number; absent: as JavaScript writes it. */
  number?(value: number): string;
  /** The words for true and false; absent: TRUE and FALSE. */
  booleans?: readonly [string, string];
}

/**
 * One value as `engine`'s literal: NULL, its booleans, a bigint as written, a number and text by
 * `forms`. A number that is not finite, or a value of another type, is an error (never SQL).
 */
export function literalWriter(engine: string, forms: LiteralForms): (value: unknown) => string {
  const [yes, no] = forms.booleans ?? ['TRUE', 'FALSE'];
  return (value) => {
    if (value === null || value === undefined) return 'NULL';
    if (typeof value === 'boolean') return value ? yes : no;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`A parameter is not a finite number: ${value}`);
      return forms.number ? forms.number(value) : String(value);
    }
    if (typeof value === 'string') return forms.text(value);
    throw new Error(`A parameter of type ${typeof value} cannot be written as a ${engine} literal`);
  };
}
