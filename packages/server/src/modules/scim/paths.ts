import {
  type AttributeDef,
  commonAttributes,
  findAttribute,
  type ResourceKind,
  resourceSchemas,
} from './schema-defs.ts';

/** An attribute path resolved against a resource type's schemas (RFC 7644 section 3.10). */
export interface ResolvedPath {
  /** The extension URN when the attribute belongs to an extension schema (its key in the resource). */
  extension?: string;
  attr: AttributeDef;
  sub?: AttributeDef;
}

/** Splits a leading schema URN (case-insensitive) off a path: `urn:...:User:userName` -> userName. */
export function splitUrn(
  kind: ResourceKind,
  path: string,
): { urn?: string; rest: string; extension: boolean } {
  if (!/^urn:/i.test(path)) return { rest: path, extension: false };
  const { core, extensions } = resourceSchemas[kind];
  const lower = path.toLowerCase();
  for (const schema of [core, ...extensions]) {
    const id = schema.id.toLowerCase();
    if (lower === id) return { urn: schema.id, rest: '', extension: schema !== core };
    if (lower.startsWith(`${id}:`))
      return { urn: schema.id, rest: path.slice(id.length + 1), extension: schema !== core };
  }
  return { rest: path, extension: false, urn: undefined };
}

/** Definitions an extension URN or the core schema offers at the top level. */
export function topLevelDefs(kind: ResourceKind, extension?: string): AttributeDef[] | undefined {
  const { core, extensions } = resourceSchemas[kind];
  if (!extension) return [...commonAttributes, ...core.attributes];
  return extensions.find((e) => e.id === extension)?.attributes;
}

/**
 * Resolves `attr`, `attr.sub`, `urn:...:attr` and `urn:...:attr.sub` to definitions with their
 * canonical names (attribute names are case-insensitive, RFC 7643 section 2.1). Undefined when the
 * path names no attribute of the resource type.
 */
export function resolvePath(kind: ResourceKind, path: string): ResolvedPath | undefined {
  const split = splitUrn(kind, path);
  if (/^urn:/i.test(path) && !split.urn) return undefined;
  if (split.rest === '') return undefined;
  const extension = split.extension ? split.urn : undefined;
  const [name, subName, ...more] = split.rest.split('.');
  if (more.length > 0 || name === undefined) return undefined;
  const attr = findAttribute(topLevelDefs(kind, extension), name);
  if (!attr) return undefined;
  if (subName === undefined) return { extension, attr };
  const sub = findAttribute(attr.subAttributes, subName);
  return sub ? { extension, attr, sub } : undefined;
}

/** The canonical dotted name of a resolved path, e.g. `name.givenName` or `urn:...:User:manager.value`. */
export function pathName(path: ResolvedPath): string {
  const local = path.sub ? `${path.attr.name}.${path.sub.name}` : path.attr.name;
  return path.extension ? `${path.extension}:${local}` : local;
}
