import { invalidValue } from './errors.ts';
import { splitUrn, topLevelDefs } from './paths.ts';
import { type AttributeDef, findAttribute, type ResourceKind, resourceSchemas } from './schema-defs.ts';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Booleans as identity providers send them: Entra sends "True"/"False" (RFC 7643 section 2.3.2 wants JSON booleans). */
export function toBoolean(value: Json, where: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === 'true';
  throw invalidValue(`${where} must be a boolean`);
}

/**
 * Coerces one attribute value to its definition: canonical sub-attribute names, booleans from
 * strings, a single complex value wrapped into a list for multi-valued attributes. Unknown
 * sub-attributes and nulls are dropped (null means unassigned, RFC 7643 section 2.5).
 * Returns undefined for an unassigned value.
 */
export function normalizeValue(
  def: AttributeDef,
  value: Json,
  where: string,
  multiOk = true,
): Json | undefined {
  if (value === null) return undefined;
  if (def.multiValued && multiOk) {
    const list = Array.isArray(value) ? value : [value];
    const items = list
      .map((v, i) => normalizeValue(def, v, `${where}[${i}]`, false))
      .filter((v) => v !== undefined);
    return items.length === 0 ? undefined : (items as Json[]);
  }
  switch (def.type) {
    case 'complex': {
      if (!isObject(value)) {
        // `"members": "id"` and `"emails": "a@b"`: a bare value stands for the `value` sub-attribute.
        if (typeof value === 'string' && findAttribute(def.subAttributes, 'value')) return { value };
        throw invalidValue(`${where} must be an object`);
      }
      const out: JsonObject = {};
      for (const [key, v] of Object.entries(value)) {
        const sub = findAttribute(def.subAttributes, aliasOf(def, key));
        if (!sub) continue;
        const normalized = normalizeValue(sub, v, `${where}.${sub.name}`);
        if (normalized !== undefined) out[sub.name] = normalized;
      }
      return Object.keys(out).length === 0 ? undefined : out;
    }
    case 'boolean':
      return toBoolean(value, where);
    case 'integer':
    case 'decimal': {
      const n = typeof value === 'string' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n) || (def.type === 'integer' && !Number.isInteger(n))) {
        throw invalidValue(`${where} must be a number`);
      }
      return n;
    }
    default:
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      if (typeof value !== 'string') throw invalidValue(`${where} must be a string`);
      return value;
  }
}

/** The Microsoft collection names a member's display `displayName`; read it as `display`. */
function aliasOf(def: AttributeDef, key: string): string {
  return def.name === 'members' && key.toLowerCase() === 'displayname' ? 'display' : key;
}

/**
 * Canonicalises a resource body: known attributes of the core schema and of the extensions under
 * their canonical names, readOnly attributes dropped (RFC 7643 section 2.2: ignored on input),
 * unknown attributes dropped. `schemas` is recomputed on output, so it is not kept.
 */
export function normalizeResource(kind: ResourceKind, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const split = splitUrn(kind, key);
    if (split.urn && split.rest === '') {
      if (!split.extension) continue;
      if (!isObject(value)) {
        if (value === null) continue;
        throw invalidValue(`${split.urn} must be an object`);
      }
      const ext = normalizeAttributes(topLevelDefs(kind, split.urn) ?? [], value, split.urn);
      if (Object.keys(ext).length > 0) out[split.urn] = ext;
      continue;
    }
    const def = findAttribute(topLevelDefs(kind), key);
    if (!def || def.mutability === 'readOnly' || def.mutability === 'writeOnly') continue;
    const normalized = normalizeValue(def, value, def.name);
    if (normalized !== undefined) out[def.name] = normalized;
  }
  return out;
}

function normalizeAttributes(defs: AttributeDef[], body: JsonObject, where: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const def = findAttribute(defs, key);
    if (!def || def.mutability === 'readOnly') continue;
    const normalized = normalizeValue(def, value, `${where}:${def.name}`);
    if (normalized !== undefined) out[def.name] = normalized;
  }
  return out;
}

export const extensionUrns = (kind: ResourceKind) => resourceSchemas[kind].extensions.map((e) => e.id);
