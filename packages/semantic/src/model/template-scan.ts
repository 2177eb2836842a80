/**
 * The references inside a SQL template, read before they are resolved (template.ts). A reference
 * is `{path}` or `${path}` (`{CUBE.status}`), or a call `{path(args)}` whose arguments are quoted
 * strings or references (`{FILTER_PARAMS.orders.created_at.filter('created_at')}`,
 * `{FILTER_GROUP(FILTER_PARAMS.a.x.filter('x'), ...)}`, `{orders.sql()}`). `\{` is a literal
 * brace; a brace that starts neither form (`'{"a": 1}'`) stays text, as in Cube.
 */
export type TemplateExpr =
  | { readonly kind: 'path'; readonly path: readonly string[] }
  | { readonly kind: 'call'; readonly path: readonly string[]; readonly args: readonly TemplateArg[] };

/**
 * An argument: a quoted string, a reference, or a lambda `(a, b) => "SQL with {a} and {b}"` (how
 * JavaScript models' `filter((from, to) => ...)` callbacks are written down, javascript lowering).
 */
export type TemplateArg =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'lambda'; readonly params: readonly string[]; readonly body: string }
  | TemplateExpr;

export type TemplateToken = string | { readonly expr: TemplateExpr; readonly text: string };

const IDENT = /[A-Za-z_]\w*/y;
/** JSON's escapes (JavaScript models write their arguments as JSON strings), `\x` for any other x. */
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
const SPACE = /\s*/y;

export function scanTemplate(sql: string): { tokens: TemplateToken[]; errors: string[] } {
  const tokens: TemplateToken[] = [];
  const errors: string[] = [];
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '\\' && sql[i + 1] === '{') {
      text += '{';
      i += 2;
      continue;
    }
    const open = c === '{' ? i : c === '$' && sql[i + 1] === '{' ? i + 1 : -1;
    if (open < 0) {
      text += c;
      i++;
      continue;
    }
    const parsed = readReference(sql, open + 1);
    if (parsed === null) {
      text += c;
      i++;
      continue;
    }
    if ('error' in parsed) {
      errors.push(`${parsed.error}: ${sql.slice(i, Math.min(sql.length, i + 80))}`);
      text += sql.slice(i);
      break;
    }
    if (text) tokens.push(text);
    text = '';
    tokens.push({ expr: parsed.expr, text: sql.slice(i, parsed.end) });
    i = parsed.end;
  }
  if (text) tokens.push(text);
  return { tokens, errors };
}

type Read<T> = { value: T; end: number } | { error: string } | null;

/** After `{`: an expression then `}`. Null when this brace starts no reference (plain text). */
function readReference(
  sql: string,
  from: number,
): { expr: TemplateExpr; end: number } | { error: string } | null {
  const expr = readExpr(sql, skip(sql, from));
  if (expr === null) return null;
  if ('error' in expr) return expr;
  const end = skip(sql, expr.end);
  if (sql[end] !== '}') {
    // `{name}`-like text that is not a reference: only a call commits to being one
    return expr.value.kind === 'call' ? { error: 'Expected } after the call' } : null;
  }
  return { expr: expr.value, end: end + 1 };
}

function readExpr(sql: string, from: number): Read<TemplateExpr> {
  const path: string[] = [];
  let i = from;
  for (;;) {
    IDENT.lastIndex = i;
    const m = IDENT.exec(sql);
    if (!m) return path.length === 0 ? null : { error: 'Expected a name after .' };
    path.push(m[0]);
    i = IDENT.lastIndex;
    if (sql[i] !== '.') break;
    i++;
  }
  const j = skip(sql, i);
  if (sql[j] !== '(') return { value: { kind: 'path', path }, end: i };
  const args: TemplateArg[] = [];
  let k = skip(sql, j + 1);
  if (sql[k] === ')') return { value: { kind: 'call', path, args }, end: k + 1 };
  for (;;) {
    const arg = readArg(sql, k);
    if (arg === null) return { error: `Expected an argument of ${path.join('.')}()` };
    if ('error' in arg) return arg;
    args.push(arg.value);
    k = skip(sql, arg.end);
    if (sql[k] === ',') {
      k = skip(sql, k + 1);
      continue;
    }
    if (sql[k] === ')') return { value: { kind: 'call', path, args }, end: k + 1 };
    return { error: `Expected , or ) in the arguments of ${path.join('.')}()` };
  }
}

function readArg(sql: string, from: number): Read<TemplateArg> {
  const q = sql[from];
  if (q === '(') return readLambda(sql, from);
  if (q !== "'" && q !== '"') return readExpr(sql, from);
  return readString(sql, from);
}

function readLambda(sql: string, from: number): Read<TemplateArg> {
  const params: string[] = [];
  let i = skip(sql, from + 1);
  while (sql[i] !== ')') {
    IDENT.lastIndex = i;
    const m = IDENT.exec(sql);
    if (!m) return { error: 'Expected a parameter name' };
    params.push(m[0]);
    i = skip(sql, IDENT.lastIndex);
    if (sql[i] === ',') i = skip(sql, i + 1);
    else if (sql[i] !== ')') return { error: 'Expected , or ) after a parameter' };
  }
  i = skip(sql, i + 1);
  if (sql.slice(i, i + 2) !== '=>') return { error: 'Expected => after the parameters' };
  const body = readString(sql, skip(sql, i + 2));
  if (body === null || 'error' in body) return body ?? { error: 'Expected a quoted body' };
  if (body.value.kind !== 'string') return { error: 'Expected a quoted body' };
  return { value: { kind: 'lambda', params, body: body.value.value }, end: body.end };
}

function readString(sql: string, from: number): Read<TemplateArg> {
  const q = sql[from];
  if (q !== "'" && q !== '"') return { error: 'Expected a quoted string' };
  let value = '';
  for (let i = from + 1; i < sql.length; i++) {
    if (sql[i] === '\\' && i + 1 < sql.length) {
      const c = sql[++i];
      const hex = c === 'u' ? /^[0-9a-fA-F]{4}/.exec(sql.slice(i + 1, i + 5)) : null;
      if (hex) {
        value += String.fromCharCode(Number.parseInt(hex[0], 16));
        i += 4;
      } else value += ESCAPES[c] ?? c;
      continue;
    }
    if (sql[i] === q) return { value: { kind: 'string', value }, end: i + 1 };
    value += sql[i];
  }
  return { error: 'Unterminated string' };
}

function skip(sql: string, from: number): number {
  SPACE.lastIndex = from;
  SPACE.exec(sql);
  return SPACE.lastIndex;
}
