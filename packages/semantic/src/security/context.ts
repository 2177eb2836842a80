/**
 * The security context is the JWT payload of a data-API token. `serviceCloud.groups` and
 * `serviceCloud.userAttributes` feed access policies (Cube Cloud's `cubeCloud.*`, renamed).
 */
export interface SecurityContext {
  readonly [key: string]: unknown;
  readonly serviceCloud?: {
    readonly groups?: readonly string[];
    readonly userAttributes?: Readonly<Record<string, unknown>>;
  };
}

export function groupsOf(ctx: SecurityContext): readonly string[] {
  const groups = ctx.serviceCloud?.groups ?? ctx.groups;
  return Array.isArray(groups) ? groups.map(String) : [];
}

const MISSING = Symbol('missing');

/** Looks up `securityContext.a.b`, `userAttributes.a` or `groups`. */
function lookup(path: string, ctx: SecurityContext): unknown {
  const parts = path.split('.');
  let value: unknown;
  if (parts[0] === 'securityContext' || parts[0] === 'security_context') value = ctx;
  else if (parts[0] === 'userAttributes' || parts[0] === 'user_attributes')
    value = ctx.serviceCloud?.userAttributes;
  else if (parts[0] === 'groups' && parts.length === 1) return groupsOf(ctx);
  else return MISSING;
  for (const p of parts.slice(1)) {
    if (typeof value !== 'object' || value === null || !(p in value)) return MISSING;
    value = (value as Record<string, unknown>)[p];
  }
  return value === undefined ? MISSING : value;
}

const whole = /^\s*\$?\{\s*([\w.]+)\s*\}\s*$/;
const inner = /\$?\{\s*([\w.]+)\s*\}/g;

/**
 * Resolves a policy filter value. A value that is exactly one placeholder expands to the
 * context value (arrays spread into several values); placeholders inside text are substituted.
 * Returns null when the context lacks the value, so that the caller denies instead of guessing.
 */
export function interpolate(value: unknown, ctx: SecurityContext): unknown[] | null {
  if (typeof value !== 'string') return [value];
  const w = whole.exec(value);
  if (w) {
    const v = lookup(w[1], ctx);
    if (v === MISSING || v === null) return null;
    return Array.isArray(v) ? v : [v];
  }
  let missing = false;
  const out = value.replace(inner, (_, path: string) => {
    const v = lookup(path, ctx);
    if (v === MISSING) missing = true;
    return String(v);
  });
  return missing ? null : [out];
}

const comparison = /^\s*(!?)\s*([\w.]+)\s*(?:(===?|!==?)\s*(.+?))?\s*$/;

/**
 * Evaluates a policy condition `{ securityContext.flag }`, `{ !userAttributes.x }` or
 * `{ securityContext.region == 'EU' }`. Anything else evaluates to false: a condition we cannot
 * read must not grant access.
 */
export function evaluateCondition(condition: string, ctx: SecurityContext): boolean {
  const body = condition.trim().replace(/^\$?\{\s*|\s*\}$/g, '');
  if (body === 'true') return true;
  if (body === 'false') return false;
  const m = comparison.exec(body);
  if (!m) return false;
  const value = lookup(m[2], ctx);
  const actual = value === MISSING ? undefined : value;
  if (!m[3]) return m[1] === '!' ? !actual : Boolean(actual);
  const expected = literal(m[4]);
  const equal = String(actual) === String(expected);
  return m[3].startsWith('!') ? !equal : equal;
}

function literal(text: string): unknown {
  const t = text.trim();
  if (/^(['"]).*\1$/.test(t)) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  return t;
}
