import { isObject, type JsonObject } from './normalize.ts';
import { type ResolvedPath, resolvePath, splitUrn } from './paths.ts';
import type { ResourceKind } from './schema-defs.ts';

/** `attributes` / `excludedAttributes` (RFC 7644 sections 3.4.2.5 and 3.9), resolved to canonical names. */
export interface Projection {
  attributes?: Selector[];
  excluded?: Selector[];
}

/** One requested attribute: a top-level key (an extension URN for extension attributes) and its child. */
interface Selector {
  key: string;
  attr?: string;
  sub?: string;
}

/** Splits a comma list (query) or takes a list (search body); brackets are ignored (`emails[type eq "work"]` -> emails). */
export function readProjection(
  kind: ResourceKind,
  attributes?: string | string[],
  excluded?: string | string[],
): Projection {
  return { attributes: selectors(kind, attributes), excluded: selectors(kind, excluded) };
}

function selectors(kind: ResourceKind, raw: string | string[] | undefined): Selector[] | undefined {
  if (raw === undefined) return undefined;
  const names = (Array.isArray(raw) ? raw : raw.split(','))
    .map((n) => n.replace(/\[.*?\]/g, '').trim())
    .filter((n) => n !== '');
  if (names.length === 0) return undefined;
  const out: Selector[] = [];
  for (const name of names) {
    const split = splitUrn(kind, name);
    if (split.urn && split.extension && split.rest === '') {
      out.push({ key: split.urn });
      continue;
    }
    const path: ResolvedPath | undefined = resolvePath(kind, name);
    if (!path) continue; // RFC 7644 section 3.9 asks for no error on unknown attribute names.
    if (path.extension) out.push({ key: path.extension, attr: path.attr.name, sub: path.sub?.name });
    else out.push({ key: path.attr.name, attr: path.sub?.name });
  }
  return out;
}

/** `id` and `schemas` are always returned (RFC 7643 section 7, returned "always"). */
const always = new Set(['id', 'schemas']);

export function project(resource: JsonObject, projection: Projection): JsonObject {
  let out = resource;
  if (projection.attributes) {
    out = {};
    for (const key of Object.keys(resource)) if (always.has(key)) out[key] = resource[key];
    for (const s of projection.attributes) pick(resource, out, s);
  }
  if (projection.excluded) {
    out = structuredClone(out);
    for (const s of projection.excluded) drop(out, s);
  }
  return out;
}

function pick(from: JsonObject, to: JsonObject, s: Selector) {
  const value = from[s.key];
  if (value === undefined) return;
  if (!s.attr) {
    to[s.key] = value;
    return;
  }
  const attr = s.attr;
  if (Array.isArray(value)) {
    // A sub-attribute of a multi-valued attribute: that sub-attribute of every element.
    const picked = Array.isArray(to[s.key]) ? (to[s.key] as JsonObject[]) : [];
    to[s.key] = value.map((e, i) => ({
      ...(picked[i] ?? {}),
      ...(isObject(e) && e[attr] !== undefined ? { [attr]: e[attr] } : {}),
    }));
    return;
  }
  if (!isObject(value) || value[attr] === undefined) return;
  const target: JsonObject = isObject(to[s.key]) ? (to[s.key] as JsonObject) : {};
  to[s.key] = target;
  if (!s.sub) {
    target[attr] = value[attr];
    return;
  }
  const source = value[attr];
  const v = isObject(source) ? source[s.sub] : undefined;
  if (v === undefined) return;
  const inner: JsonObject = isObject(target[attr]) ? (target[attr] as JsonObject) : {};
  inner[s.sub] = v;
  target[attr] = inner;
}

function drop(doc: JsonObject, s: Selector) {
  if (always.has(s.key) && !s.attr) return;
  if (!s.attr) {
    delete doc[s.key];
    return;
  }
  const value = doc[s.key];
  if (Array.isArray(value)) for (const e of value) if (isObject(e)) delete e[s.attr];
  if (!isObject(value)) return;
  if (!s.sub) delete value[s.attr];
  else if (isObject(value[s.attr])) delete (value[s.attr] as JsonObject)[s.sub];
}

/** Whether a projection leaves an attribute out entirely: lets the service skip loading it. */
export function excludes(projection: Projection, key: string): boolean {
  if (projection.excluded?.some((s) => s.key === key && !s.attr)) return true;
  return projection.attributes !== undefined && !projection.attributes.some((s) => s.key === key);
}
