import { scimPrefix } from './constants.ts';
import { isObject, type Json, type JsonObject } from './normalize.ts';
import type { ResourceKind } from './schema-defs.ts';

export const etagOf = (version: string) => `W/"${version}"`;

/** Where a resource lives: `meta.location` and the `Location` header (RFC 7644 section 3.1). */
export const locationOf = (baseUrl: string, kind: ResourceKind, id: number) =>
  `${baseUrl}${scimPrefix}/${kind}s/${id}`;

/** `meta` of a resource (RFC 7643 section 3.1), from the row's timestamps and version. */
export function metaOf(
  kind: ResourceKind,
  row: { id: number; created_at: Date; updated_at: Date; version: string },
  baseUrl: string,
): JsonObject {
  return {
    resourceType: kind,
    created: row.created_at.toISOString(),
    lastModified: row.updated_at.toISOString(),
    location: locationOf(baseUrl, kind, row.id),
    version: etagOf(row.version),
  };
}

/** Drops nulls and empty containers: unassigned attributes are not returned (RFC 7643 section 2.5). */
export function compact(value: Json): Json | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(compact).filter((v) => v !== undefined) as Json[];
    return items.length === 0 ? undefined : items;
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const c = compact(v);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}
