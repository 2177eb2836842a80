import { isRecord, type Raw, str } from './raw.ts';
import { type ErrorReporter, locate } from './reporter.ts';
import type { AccessPolicy, PolicyFilter, SourceLocation } from './types.ts';

/**
 * Cube's `access_policy` (https://cube.dev/docs/product/auth/data-access-policies): a list of
 * policies, each for a `group` / `groups` (`*` for everyone), optional `conditions: [{if}]`,
 * `member_level: {includes, excludes}` and `row_level: {filters, allow_all}`.
 * Member names are checked against `known` (the cube's or view's own members).
 */
export function buildPolicies(
  value: unknown,
  owner: string,
  known: ReadonlySet<string>,
  loc: SourceLocation,
  reporter: ErrorReporter,
): AccessPolicy[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    reporter.error(loc, owner, null, 'access_policy must be a list of policies');
    return null;
  }
  return value.filter(isRecord).map((raw) => buildPolicy(raw, owner, known, locate(raw, loc), reporter));
}

function buildPolicy(
  raw: Raw,
  owner: string,
  known: ReadonlySet<string>,
  loc: SourceLocation,
  reporter: ErrorReporter,
) {
  const report = (m: string) => reporter.error(loc, owner, null, `access_policy: ${m}`);
  const groupsRaw = raw.groups ?? raw.group ?? raw.role ?? '*';
  const groups = (Array.isArray(groupsRaw) ? groupsRaw : [groupsRaw]).map(String);
  const conditions: string[] = [];
  for (const c of Array.isArray(raw.conditions) ? raw.conditions : []) {
    const cond = isRecord(c) ? c.if : undefined;
    if (typeof cond === 'string' || typeof cond === 'boolean') conditions.push(String(cond));
    else report('conditions entries must be {if: "..."}');
  }
  const checkMember = (written: string) => {
    // Cube writes a member of the policy's own cube as `{CUBE}.x` (YAML) or `${CUBE}.x` (JavaScript,
    // which the sandbox hands over as `CUBE.x`): https://cube.dev/docs/product/auth/data-access-policies
    const name = written.replace(/^(?:\$?\{\s*CUBE\s*\}|CUBE)\./, `${owner}.`);
    const short = name.startsWith(`${owner}.`) ? name.slice(owner.length + 1) : name;
    if (!known.has(short)) report(`unknown member ${written}`);
    return short;
  };
  let memberLevel: AccessPolicy['memberLevel'] = null;
  if (isRecord(raw.member_level)) {
    const inc = raw.member_level.includes ?? '*';
    const includes =
      inc === '*' ? '*' : (Array.isArray(inc) ? inc : [inc]).map((m) => checkMember(String(m)));
    const exc = raw.member_level.excludes ?? [];
    const excludes =
      exc === '*' ? [...known] : (Array.isArray(exc) ? exc : [exc]).map((m) => checkMember(String(m)));
    memberLevel = { includes, excludes };
  }
  let rowLevel: AccessPolicy['rowLevel'] = null;
  if (isRecord(raw.row_level)) {
    const filters = Array.isArray(raw.row_level.filters) ? raw.row_level.filters : [];
    rowLevel = {
      allowAll: raw.row_level.allow_all === true,
      filters: filters.map((f) => policyFilter(f, checkMember, report)).filter((f) => f !== null),
    };
  }
  return Object.freeze({ groups, conditions, memberLevel, rowLevel, loc });
}

function policyFilter(
  f: unknown,
  checkMember: (m: string) => string,
  report: (m: string) => void,
): PolicyFilter | null {
  if (!isRecord(f)) {
    report('row_level filters must be objects');
    return null;
  }
  for (const op of ['and', 'or'] as const) {
    const list = f[op];
    if (Array.isArray(list)) {
      const items = list.map((x) => policyFilter(x, checkMember, report)).filter((x) => x !== null);
      return op === 'and' ? { and: items } : { or: items };
    }
  }
  const member = str(f.member);
  const operator = str(f.operator);
  if (member === null || operator === null) {
    report('row_level filters need member and operator');
    return null;
  }
  const values = f.values === undefined ? [] : Array.isArray(f.values) ? f.values : [f.values];
  return { member: checkMember(member), operator, values };
}
