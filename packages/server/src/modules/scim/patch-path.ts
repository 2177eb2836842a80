import type { Filter } from 'scim2-parse-filter';
import { invalidPath, ScimError } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { splitUrn, topLevelDefs } from './paths.ts';
import { type AttributeDef, findAttribute, type ResourceKind } from './schema-defs.ts';

/** What a PATCH `path` designates (RFC 7644 section 3.5.2: attrPath / valuePath [subAttr]). */
export interface PatchTarget {
  extension?: string;
  /** Undefined when the path is an extension URN alone: the whole extension object. */
  attr?: AttributeDef;
  filter?: Filter;
  sub?: AttributeDef;
}

/** Parses and resolves a PATCH path; undefined when it names no attribute of the resource type. */
export function parsePatchPath(kind: ResourceKind, path: string): PatchTarget | undefined {
  const split = splitUrn(kind, path.trim());
  if (/^urn:/i.test(path.trim()) && !split.urn) return undefined;
  const extension = split.extension ? split.urn : undefined;
  if (split.rest === '') return extension ? { extension } : undefined;
  const match = /^([^.[\]]+)(?:\[(.*)\])?(?:\.([^.[\]]+))?$/s.exec(split.rest);
  if (!match) throw invalidPath(`${path} is not a valid attribute path`);
  const [, name, filterText, subName] = match;
  const attr = findAttribute(topLevelDefs(kind, extension), name);
  if (!attr) return undefined;
  let filter: Filter | undefined;
  if (filterText !== undefined) {
    if (!attr.multiValued) throw invalidPath(`${attr.name} is not multi-valued: it cannot take a filter`);
    try {
      filter = parseFilter(filterText);
    } catch (error) {
      throw new ScimError(400, 'invalidPath', `${path}: ${(error as Error).message}`);
    }
  }
  let sub: AttributeDef | undefined;
  if (subName !== undefined) {
    sub = findAttribute(attr.subAttributes, subName);
    if (!sub) return undefined;
  }
  return { extension, attr, filter, sub };
}
