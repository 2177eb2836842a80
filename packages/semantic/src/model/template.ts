import { intervalSql } from './interval.ts';
import { scanTemplate, type TemplateArg, type TemplateExpr } from './template-scan.ts';
import type { ContextPart, FilterTarget, SqlTemplate, TemplatePart } from './types.ts';

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

export function parseTemplate(
  sql: string,
  self: string,
  index: NameIndex,
  onError: (message: string) => void,
  params: readonly string[] = [],
): SqlTemplate {
  const { tokens, errors } = scanTemplate(sql);
  for (const e of errors) onError(e);
  const parts: TemplatePart[] = [];
  for (const token of tokens) {
    if (typeof token === 'string') {
      parts.push(token);
      continue;
    }
    const param =
      token.expr.kind === 'path' && token.expr.path.length === 1 ? params.indexOf(token.expr.path[0]) : -1;
    if (param >= 0) {
      parts.push(Object.freeze({ ref: 'arg', index: param }));
      continue;
    }
    const part = resolveExpr(token.expr, token.text, { self, index, onError });
    if (typeof part === 'string') {
      onError(part);
      parts.push(token.text);
    } else parts.push(part);
  }
  return Object.freeze(parts);
}

interface Scope {
  readonly self: string;
  readonly index: NameIndex;
  readonly onError: (message: string) => void;
}

function resolveExpr(expr: TemplateExpr, text: string, scope: Scope): TemplatePart | string {
  const [head, ...rest] = expr.path;
  switch (head) {
    case 'FILTER_PARAMS':
      return filterParams(expr, text, scope);
    case 'FILTER_GROUP': {
      if (expr.kind !== 'call' || rest.length > 0 || expr.args.length === 0)
        return `FILTER_GROUP takes FILTER_PARAMS filters: ${text}`;
      const items: Extract<ContextPart, { ref: 'filterParams' }>[] = [];
      for (const arg of expr.args) {
        const item = arg.kind === 'path' || arg.kind === 'call' ? filterParams(arg, text, scope) : null;
        if (item === null || typeof item === 'string')
          return typeof item === 'string' ? item : `FILTER_GROUP takes FILTER_PARAMS filters: ${text}`;
        items.push(item);
      }
      return Object.freeze({ ref: 'filterGroup', items: Object.freeze(items) });
    }
    case 'SECURITY_CONTEXT': {
      const op = rest[rest.length - 1];
      const path = rest.slice(0, -1);
      if (expr.kind !== 'call' || path.length === 0)
        return `SECURITY_CONTEXT is read with .filter(), .requiredFilter() or .unsafeValue(): ${text}`;
      if (op === 'unsafeValue' && expr.args.length === 0)
        return Object.freeze({ ref: 'securityValue', path });
      if ((op === 'filter' || op === 'requiredFilter') && expr.args.length === 1) {
        const target = filterTarget(expr.args[0], scope);
        if (typeof target === 'string') return `${target}: ${text}`;
        return Object.freeze({ ref: 'securityContext', path, required: op === 'requiredFilter', target });
      }
      return `SECURITY_CONTEXT is read with .filter(sql), .requiredFilter(sql) or .unsafeValue(): ${text}`;
    }
    case 'COMPILE_CONTEXT':
      return `COMPILE_CONTEXT is read in JavaScript models or Jinja templates ({{ COMPILE_CONTEXT.x }}), not in SQL: ${text}`;
    case 'SQL_UTILS': {
      // https://cube.dev/docs/product/data-modeling/reference/context-variables#sql_utils
      const arg = expr.kind === 'call' && expr.args.length === 1 ? expr.args[0] : null;
      if (rest.length !== 1 || rest[0] !== 'convertTz' || arg?.kind !== 'string')
        return `SQL_UTILS offers convertTz('sql') only: ${text}`;
      return Object.freeze({
        ref: 'convertTz',
        sql: parseTemplate(arg.value, scope.self, scope.index, scope.onError),
      });
    }
  }
  if (expr.kind === 'call') {
    // `{other.sql()}` / `{CUBE.sql()}`: a cube's own SQL
    if (expr.path.length === 2 && expr.path[1] === 'sql' && expr.args.length === 0) {
      const cube = head === 'CUBE' ? scope.self : head;
      if (scope.index.cubes.has(cube)) return Object.freeze({ ref: 'cubeSql', cube });
      return `Unknown cube ${head} in ${text}`;
    }
    return `Unsupported call in a SQL template: ${text}`;
  }
  return resolve(expr.path.join('.'), scope.self, scope.index);
}

/** `FILTER_PARAMS.cube.member.filter(target)`. */
function filterParams(
  expr: TemplateExpr,
  text: string,
  scope: Scope,
): Extract<ContextPart, { ref: 'filterParams' }> | string {
  const [, cubeName, member, op] = expr.path;
  if (expr.kind !== 'call' || expr.path.length !== 4 || op !== 'filter' || expr.args.length !== 1)
    return `FILTER_PARAMS is written FILTER_PARAMS.cube.member.filter(sql): ${text}`;
  const cube = cubeName === 'CUBE' ? scope.self : cubeName;
  if (!scope.index.cubes.get(cube)?.has(member)) return `Unknown member ${cube}.${member} in ${text}`;
  const target = filterTarget(expr.args[0], scope);
  if (typeof target === 'string') return `${target}: ${text}`;
  return Object.freeze({ ref: 'filterParams', cube, member, target });
}

function filterTarget(arg: TemplateArg, scope: Scope): FilterTarget | string {
  if (arg.kind === 'string')
    return Object.freeze({
      kind: 'column',
      sql: parseTemplate(arg.value, scope.self, scope.index, scope.onError),
    });
  if (arg.kind === 'lambda') {
    const body = parseTemplate(arg.body, scope.self, scope.index, scope.onError, arg.params);
    return Object.freeze({ kind: 'lambda', params: arg.params.length, body });
  }
  return 'A filter takes the SQL it applies to as a quoted string';
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
  } else if (segments.length === 2 && own?.has(head) && !index.cubes.has(head)) {
    // `{created_at.half_year}`: checked to be a time dimension's granularity by validate.ts
    return Object.freeze({ ref: 'granularity', cube: self, member: head, granularity: segments[1] });
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
  if (rest.length === 2 && index.cubes.get(cube)?.has(rest[0]))
    return Object.freeze({ ref: 'granularity', cube, member: rest[0], granularity: rest[1] });
  return `Unsupported reference {${path}}`;
}

/** Member references of a template, for dependency checks (FILTER_PARAMS targets included). */
export function memberRefs(t: SqlTemplate): { cube: string; member: string }[] {
  const out: { cube: string; member: string }[] = [];
  for (const p of walkParts(t))
    if (p.ref === 'member' || p.ref === 'granularity') out.push({ cube: p.cube, member: p.member });
  return out;
}

export function cubeRefs(t: SqlTemplate): string[] {
  const out: string[] = [];
  for (const p of walkParts(t))
    if (p.ref === 'cube' || p.ref === 'member' || p.ref === 'cubeSql' || p.ref === 'granularity')
      out.push(p.cube);
  return out;
}

/** Every reference of a template, descending into the SQL of filters and lambdas. */
export function* walkParts(t: SqlTemplate): Generator<Exclude<TemplatePart, string>> {
  for (const p of t) {
    if (typeof p === 'string') continue;
    yield p;
    if (p.ref === 'filterParams' || p.ref === 'securityContext') yield* walkParts(targetSql(p.target));
    if (p.ref === 'filterGroup') for (const item of p.items) yield* walkParts(targetSql(item.target));
    if (p.ref === 'convertTz' || p.ref === 'castText' || p.ref === 'timeShift') yield* walkParts(p.sql);
  }
}

function targetSql(target: FilterTarget): SqlTemplate {
  return target.kind === 'column' ? target.sql : target.body;
}

/** A template written back in Cube's YAML syntax (for `/v1/meta?extended`). */
export function printTemplate(t: SqlTemplate, params: readonly string[] = []): string {
  const target = (x: FilterTarget): string => {
    if (x.kind === 'column') return JSON.stringify(printTemplate(x.sql));
    const names = Array.from({ length: x.params }, (_, i) => `arg${i}`);
    return `(${names.join(', ')}) => ${JSON.stringify(printTemplate(x.body, names))}`;
  };
  const part = (p: Exclude<TemplatePart, string | { ref: 'timeShift' } | { ref: 'castText' }>): string => {
    switch (p.ref) {
      case 'cube':
        return p.cube;
      case 'member':
        return `${p.cube}.${p.member}`;
      case 'cubeSql':
        return `${p.cube}.sql()`;
      case 'arg':
        return params[p.index] ?? `arg${p.index}`;
      case 'filterParams':
        return `FILTER_PARAMS.${p.cube}.${p.member}.filter(${target(p.target)})`;
      case 'filterGroup':
        return `FILTER_GROUP(${p.items.map(part).join(', ')})`;
      case 'securityContext':
        return `SECURITY_CONTEXT.${p.path.join('.')}.${p.required ? 'requiredFilter' : 'filter'}(${target(p.target)})`;
      case 'securityValue':
        return `SECURITY_CONTEXT.${p.path.join('.')}.unsafeValue()`;
      case 'granularity':
        return `${p.cube}.${p.member}.${p.granularity}`;
      case 'convertTz':
        return `SQL_UTILS.convertTz(${JSON.stringify(printTemplate(p.sql))})`;
    }
  };
  // an interval (time_shift) and a cast (geo) are Tessera's, never written in a model: shown as SQL
  return t
    .map((p) =>
      typeof p === 'string'
        ? p.replace(/\{/g, '\\{')
        : p.ref === 'timeShift'
          ? `(${printTemplate(p.sql, params)}) ${p.forward ? '+' : '-'} INTERVAL '${intervalSql(p.interval)}'`
          : p.ref === 'castText'
            ? `CAST(${printTemplate(p.sql, params)} AS VARCHAR)`
            : `{${part(p)}}`,
    )
    .join('');
}
