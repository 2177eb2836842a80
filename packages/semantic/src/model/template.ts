import { scanTemplate, type TemplateExpr } from './template-scan.ts';
import type { SqlTemplate, TemplatePart } from './types.ts';

/**
 * SQL templates: Cube lets member SQL reference `{CUBE}`, `{CUBE.member}`, `{member}` (same cube),
 * `{other_cube}` and `{other_cube.member}`, and the JS forms `${CUBE}` / `${other.member}`.
 * References are resolved once at model compile time so planning never re-parses SQL.
 * See https://cube.dev/docs/product/data-modeling/syntax#references
 */
export interface NameIndex {
  /** cube name -> its member names (measures, dimensions, segments). */
  readonly cubes: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Cube's context variables, each a model error until supported (file, line, member). */
const CONTEXT_VARIABLES = new Set([
  'FILTER_PARAMS',
  'FILTER_GROUP',
  'SECURITY_CONTEXT',
  'SQL_UTILS',
  'COMPILE_CONTEXT',
]);

export function parseTemplate(
  sql: string,
  self: string,
  index: NameIndex,
  onError: (message: string) => void,
): SqlTemplate {
  const { tokens, errors } = scanTemplate(sql);
  for (const e of errors) onError(e);
  const parts: TemplatePart[] = [];
  for (const token of tokens) {
    if (typeof token === 'string') {
      parts.push(token);
      continue;
    }
    const part = resolveExpr(token.expr, token.text, self, index);
    if (typeof part === 'string') {
      onError(part);
      parts.push(token.text);
    } else parts.push(part);
  }
  return Object.freeze(parts);
}

function resolveExpr(
  expr: TemplateExpr,
  text: string,
  self: string,
  index: NameIndex,
): TemplatePart | string {
  const head = expr.path[0];
  if (CONTEXT_VARIABLES.has(head)) return `${head} is not supported in SQL templates: ${text}`;
  if (expr.kind === 'call') return `Unsupported call in a SQL template: ${text}`;
  return resolve(expr.path.join('.'), self, index);
}

function resolve(path: string, self: string, index: NameIndex): TemplatePart | string {
  const segments = path.split('.');
  const head = segments[0];
  const own = index.cubes.get(self);
  let cube: string;
  let rest: string[];
  if (head === 'CUBE' || head === self) {
    cube = self;
    rest = segments.slice(1);
  } else if (segments.length === 1 && own?.has(head)) {
    return Object.freeze({ ref: 'member', cube: self, member: head });
  } else if (index.cubes.has(head)) {
    cube = head;
    rest = segments.slice(1);
  } else {
    return `Unknown reference {${path}}: '${head}' is neither a member of ${self} nor a cube`;
  }
  if (rest.length === 0) return Object.freeze({ ref: 'cube', cube });
  if (rest.length === 1 && index.cubes.get(cube)?.has(rest[0])) {
    return Object.freeze({ ref: 'member', cube, member: rest[0] });
  }
  if (rest.length === 1) return `Unknown member reference {${path}}: ${cube}.${rest[0]} does not exist`;
  return `Unsupported reference {${path}}`;
}

/** Member references of a template, for dependency checks. */
export function memberRefs(t: SqlTemplate): { cube: string; member: string }[] {
  const out: { cube: string; member: string }[] = [];
  for (const p of t) if (typeof p !== 'string' && p.ref === 'member') out.push(p);
  return out;
}

export function cubeRefs(t: SqlTemplate): string[] {
  const out: string[] = [];
  for (const p of t) if (typeof p !== 'string') out.push(p.cube);
  return out;
}
