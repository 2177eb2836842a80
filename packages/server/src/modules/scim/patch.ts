import { urn } from './constants.ts';
import { elementFromEquality, matchesElement } from './element-filter.ts';
import { invalidPath, invalidValue, noTarget, ScimError } from './errors.ts';
import { isObject, type Json, type JsonObject, normalizeResource, normalizeValue } from './normalize.ts';
import { type PatchTarget, parsePatchPath } from './patch-path.ts';
import type { AttributeDef, ResourceKind } from './schema-defs.ts';

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path?: string;
  value?: Json;
  /** Expanded from a path-less value: an unknown attribute is ignored, as in a POST body. */
  lenient?: boolean;
}

/**
 * Reads a PatchOp body (RFC 7644 section 3.5.2) as identity providers send it: op names in any
 * case (Entra: "Replace"), and path-less values split into one operation per attribute, so that
 * dotted keys (`{"name.givenName": "x"}`) and URN-qualified keys work like paths.
 */
export function readOperations(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a PatchOp object');
  const schemas = body.schemas;
  if (
    Array.isArray(schemas) &&
    !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === urn.patchOp.toLowerCase())
  ) {
    throw new ScimError(400, 'invalidSyntax', `schemas must contain ${urn.patchOp}`);
  }
  const list = Object.entries(body).find(([k]) => k.toLowerCase() === 'operations')?.[1];
  if (!Array.isArray(list) || list.length === 0)
    throw new ScimError(400, 'invalidSyntax', 'Operations must be a non-empty array');
  const out: PatchOperation[] = [];
  for (const [i, raw] of list.entries()) {
    if (!isObject(raw)) throw new ScimError(400, 'invalidSyntax', `Operations[${i}] must be an object`);
    const field = (name: string) => Object.entries(raw).find(([k]) => k.toLowerCase() === name)?.[1];
    const op = String(field('op') ?? '').toLowerCase();
    if (op !== 'add' && op !== 'remove' && op !== 'replace')
      throw new ScimError(400, 'invalidSyntax', `Operations[${i}].op must be add, remove or replace`);
    const path = field('path');
    if (path !== undefined && path !== null && typeof path !== 'string')
      throw invalidPath(`Operations[${i}].path must be a string`);
    const value = field('value');
    if (path) {
      out.push({ op, path, value });
    } else if (op === 'remove') {
      throw noTarget(`Operations[${i}]: remove needs a path (RFC 7644 section 3.5.2.2)`);
    } else {
      if (!isObject(value))
        throw invalidValue(`Operations[${i}].value must be an object when there is no path`);
      for (const [key, v] of Object.entries(value)) out.push({ op, path: key, value: v, lenient: true });
    }
  }
  return out;
}

/** Applies operations to a copy of a resource (canonical keys); the caller stores it or nothing. */
export function applyPatch(
  kind: ResourceKind,
  resource: JsonObject,
  operations: PatchOperation[],
): JsonObject {
  const doc = structuredClone(resource);
  for (const operation of operations) {
    const target = operation.path === undefined ? undefined : parsePatchPath(kind, operation.path);
    if (!target) {
      if (operation.lenient) continue;
      throw invalidPath(`${operation.path} is not an attribute of ${kind}`);
    }
    if (target.attr && target.attr.mutability === 'readOnly') {
      if (operation.lenient) continue;
      throw new ScimError(400, 'mutability', `${target.attr.name} is read-only`);
    }
    applyOne(kind, doc, target, operation);
  }
  return doc;
}

function applyOne(kind: ResourceKind, doc: JsonObject, target: PatchTarget, operation: PatchOperation) {
  const { op, value } = operation;
  if (!target.attr) {
    // A whole extension object, e.g. path "urn:...:enterprise:2.0:User".
    const ext = target.extension as string;
    if (op === 'remove') delete doc[ext];
    else {
      const normalized = normalizeResource(kind, { [ext]: value ?? null })[ext];
      doc[ext] =
        op === 'replace'
          ? (normalized ?? {})
          : { ...(isObject(doc[ext]) ? doc[ext] : {}), ...(isObject(normalized) ? normalized : {}) };
    }
    return;
  }
  const container = containerOf(doc, target.extension);
  const attr = target.attr;
  if (op !== 'remove' && value === undefined) throw invalidValue(`${operation.path}: ${op} needs a value`);
  if (!attr.multiValued) return applySingle(container, attr, target.sub, operation);
  const elements = (Array.isArray(container[attr.name]) ? container[attr.name] : []) as JsonObject[];
  const selected = target.filter
    ? elements.filter((e) => matchesElement(attr, e, target.filter!))
    : undefined;

  if (op === 'remove') {
    if (target.sub) for (const e of selected ?? elements) delete e[target.sub.name];
    else if (selected) container[attr.name] = elements.filter((e) => !selected.includes(e));
    else if (value !== undefined && value !== null)
      container[attr.name] = withoutValues(attr, elements, value);
    else delete container[attr.name];
    return tidy(container, attr.name);
  }
  if (target.sub) {
    const subValue = normalizeValue(target.sub, value as Json, `${attr.name}.${target.sub.name}`);
    let targets = selected ?? elements;
    if (targets.length === 0) {
      const created = target.filter ? elementFromEquality(attr, target.filter) : {};
      if (!created) throw noTarget(`No ${attr.name} value matches ${operation.path}`);
      elements.push(created);
      targets = [created];
    }
    for (const e of targets) {
      if (subValue === undefined) delete e[target.sub.name];
      else e[target.sub.name] = subValue;
    }
    if (target.sub.name === 'primary' && subValue === true)
      keepOnePrimary(elements, targets[targets.length - 1]);
    container[attr.name] = elements;
    return tidy(container, attr.name);
  }
  const incoming = (normalizeValue(attr, value as Json, attr.name) ?? []) as JsonObject[];
  if (selected) {
    if (selected.length === 0) {
      const base = elementFromEquality(attr, target.filter!);
      if (!base) throw noTarget(`No ${attr.name} value matches ${operation.path}`);
      elements.push(...incoming.map((v) => ({ ...base, ...v })));
    } else {
      for (const e of selected) {
        const merged = op === 'replace' ? { ...(incoming[0] ?? {}) } : { ...e, ...(incoming[0] ?? {}) };
        elements[elements.indexOf(e)] = merged;
      }
    }
    container[attr.name] = elements;
  } else if (op === 'replace') {
    container[attr.name] = incoming;
  } else {
    const added = incoming.filter((v) => !elements.some((e) => sameElement(attr, e, v)));
    container[attr.name] = [...elements, ...added];
  }
  const list = container[attr.name] as JsonObject[];
  const primary = [...incoming].reverse().find((v) => v.primary === true);
  if (primary)
    keepOnePrimary(
      list,
      list.find((e) => sameElement(attr, e, primary)),
    );
  tidy(container, attr.name);
}

function applySingle(
  container: JsonObject,
  attr: AttributeDef,
  sub: AttributeDef | undefined,
  operation: PatchOperation,
) {
  const { op, value } = operation;
  if (op === 'remove') {
    if (attr.required && !sub)
      throw new ScimError(400, 'mutability', `${attr.name} is required and cannot be removed`);
    if (sub && isObject(container[attr.name])) delete (container[attr.name] as JsonObject)[sub.name];
    else if (!sub) delete container[attr.name];
    return tidy(container, attr.name);
  }
  if (sub) {
    const current = isObject(container[attr.name]) ? (container[attr.name] as JsonObject) : {};
    const normalized = normalizeValue(sub, value as Json, `${attr.name}.${sub.name}`);
    if (normalized === undefined) delete current[sub.name];
    else current[sub.name] = normalized;
    container[attr.name] = current;
    return tidy(container, attr.name);
  }
  const normalized = normalizeValue(attr, value as Json, attr.name);
  if (normalized === undefined) delete container[attr.name];
  else if (attr.type === 'complex' && isObject(normalized) && isObject(container[attr.name])) {
    // RFC 7644 section 3.5.2.1 and 3.5.2.3: the sub-attributes given are set, the others kept.
    container[attr.name] = { ...(container[attr.name] as JsonObject), ...normalized };
  } else container[attr.name] = normalized;
}

function containerOf(doc: JsonObject, extension: string | undefined): JsonObject {
  if (!extension) return doc;
  if (!isObject(doc[extension])) doc[extension] = {};
  return doc[extension] as JsonObject;
}

/** Elements are the same when their `value` is (RFC 7644 section 3.5.2.1: no duplicates on add). */
function sameElement(attr: AttributeDef, a: JsonObject, b: JsonObject): boolean {
  if (a.value === undefined || b.value === undefined) return JSON.stringify(a) === JSON.stringify(b);
  const fold = (v: Json) => (attr.name === 'members' ? String(v).trim() : String(v).toLowerCase());
  return (
    fold(a.value) === fold(b.value) && (a.type === undefined || b.type === undefined || a.type === b.type)
  );
}

/** Okta and Entra remove members with `{"op":"remove","path":"members","value":[{"value":"id"}]}`. */
function withoutValues(attr: AttributeDef, elements: JsonObject[], value: Json): JsonObject[] {
  const doomed = (normalizeValue(attr, value, attr.name) ?? []) as JsonObject[];
  return elements.filter((e) => !doomed.some((d) => sameElement(attr, e, { value: d.value } as JsonObject)));
}

/** RFC 7643 section 2.4: at most one element is primary. */
function keepOnePrimary(elements: JsonObject[], keep: JsonObject | undefined) {
  if (!keep) return;
  for (const e of elements) if (e !== keep && e.primary === true) e.primary = false;
}

function tidy(container: JsonObject, key: string) {
  const v = container[key];
  if ((Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0))
    delete container[key];
}
