import type { Filter } from 'scim2-parse-filter';
import { invalidFilter } from './errors.ts';
import { isObject, type Json, type JsonObject } from './normalize.ts';
import { type AttributeDef, findAttribute } from './schema-defs.ts';

/**
 * Evaluates a value filter (`emails[type eq "work"]`, `members[value eq "42"]`) against one element
 * of a multi-valued attribute, in memory: PATCH paths select elements of the resource being
 * changed (RFC 7644 section 3.5.2). Case rules as for list filters (RFC 7643 section 2.1).
 */
export function matchesElement(def: AttributeDef, element: Json, f: Filter): boolean {
  if (!isObject(element)) return false;
  switch (f.op) {
    case 'and':
      return f.filters.every((x) => matchesElement(def, element, x));
    case 'or':
      return f.filters.some((x) => matchesElement(def, element, x));
    case 'not':
      return !matchesElement(def, element, f.filter);
    case '[]':
      throw invalidFilter('Value filters cannot be nested');
    default: {
      const sub = findAttribute(def.subAttributes, f.attrPath);
      if (!sub) throw invalidFilter(`${f.attrPath} is not a sub-attribute of ${def.name}`);
      const actual = element[sub.name];
      if (f.op === 'pr') return actual !== undefined && actual !== null && actual !== '';
      return compareValues(sub, actual, f.op, f.compValue);
    }
  }
}

function compareValues(
  sub: AttributeDef,
  actual: Json | undefined,
  op: string,
  expected: string | number | boolean | null,
): boolean {
  if (expected === null)
    return op === 'eq' ? actual === undefined || actual === null : actual !== undefined && actual !== null;
  if (actual === undefined || actual === null) return op === 'ne';
  if (sub.type === 'boolean') {
    const want = String(expected).toLowerCase() === 'true';
    return op === 'ne' ? actual !== want : op === 'eq' && actual === want;
  }
  const fold = (v: Json | string | number | boolean) => (sub.caseExact ? String(v) : String(v).toLowerCase());
  const a = fold(actual);
  const e = fold(expected);
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    case 'le':
      return a <= e;
  }
  return false;
}

/** `type eq "work"` and `type eq "work" and primary eq true`: the element such a filter describes. */
export function elementFromEquality(def: AttributeDef, f: Filter): JsonObject | undefined {
  if (f.op === 'eq') {
    const sub = findAttribute(def.subAttributes, f.attrPath);
    return sub && f.compValue !== null
      ? { [sub.name]: sub.type === 'boolean' ? String(f.compValue).toLowerCase() === 'true' : f.compValue }
      : undefined;
  }
  if (f.op !== 'and') return undefined;
  const parts = f.filters.map((x) => elementFromEquality(def, x));
  return parts.every((p) => p !== undefined) ? Object.assign({}, ...parts) : undefined;
}
