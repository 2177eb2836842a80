/**
 * The dialect's `$n` placeholders replaced by SQL literals, skipping quoted text, quoted
 * identifiers and comments (so that a `$1` in model SQL's literals stays). Trino's client
 * protocol binds values only through PREPARE and EXECUTE ... USING (a second request per query);
 * its string literals have no backslash escapes, so doubling `'` is the whole escaping
 * (Trino's "Literals": a single quote in a string is written as two).
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length) {
        if (sql[j] === c && sql[j + 1] === c) j += 2;
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
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const j = end < 0 ? sql.length : end;
      out += sql.slice(i, j);
      i = j - 1;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      const digits = /^[0-9]+/.exec(sql.slice(i + 1))![0];
      const n = Number(digits);
      if (n < 1 || n > params.length) throw new Error(`No parameter for placeholder $${n}`);
      out += literal(params[n - 1]);
      i += digits.length;
    } else out += c;
  }
  return out;
}

/** One value as a Trino literal: text quoted, numbers as written, NULL, TRUE and FALSE. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`A parameter is not a finite number: ${value}`);
    // a fraction as DOUBLE (1.5E0): Trino reads 1.5 as DECIMAL(2,1), whose arithmetic rounds to its scale
    return Number.isInteger(value) ? String(value) : `${value.toExponential()}`.replace('e', 'E');
  }
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  throw new Error(`A parameter of type ${typeof value} cannot be written as a Trino literal`);
}
