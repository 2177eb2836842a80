import { type RawBuilder, sql } from 'kysely';
import { invalidFilter } from './errors.ts';
import type { ResolvedPath } from './paths.ts';
import type { AttributeDef, ResourceKind } from './schema-defs.ts';

/** A value a filter compares: an SQL expression with the attribute definition that types it. */
export interface Operand {
  def: AttributeDef;
  /** text, boolean or timestamptz. */
  value: RawBuilder<unknown>;
  sqlType: 'text' | 'boolean' | 'timestamptz' | 'integer';
  /** RFC 7644 section 3.4.2.2 `pr`: has a non-empty value. */
  present: RawBuilder<boolean>;
}

/** A multi-valued attribute: its elements are tested with `exists (... where cond)`. */
export interface Collection {
  def: AttributeDef;
  exists(cond: RawBuilder<boolean>): RawBuilder<boolean>;
  element(sub: AttributeDef): Operand;
}

/**
 * What filters and sortBy can say about one resource type (RFC 7644 sections 3.4.2.2 and 3.4.2.3):
 * the attributes it holds in columns of the row `r` or in other tables. Every other attribute is
 * read from the row's `scim` document.
 */
export interface Filterable {
  kind: ResourceKind;
  /** Singular attributes by canonical dotted name (`userName`, `name.givenName`). */
  operands: Record<string, (def: AttributeDef) => Operand>;
  /** Multi-valued attributes by name (`emails`, `members`). */
  collections: Record<string, (def: AttributeDef) => Collection>;
}

/** The row of the resource being filtered: `<table> as r` (resource-repository.ts). */
export const column = (name: string) => sql.ref(`r.${name}`);

const jsonPresent = (j: RawBuilder<unknown>) =>
  sql<boolean>`coalesce(${j} not in ('null'::jsonb, '""'::jsonb, '[]'::jsonb, '{}'::jsonb), false)`;

export function textOperand(def: AttributeDef, value: RawBuilder<unknown>): Operand {
  return { def, value, sqlType: 'text', present: sql<boolean>`coalesce(${value} <> '', false)` };
}

/** A boolean column that is never null. */
export function booleanOperand(def: AttributeDef, value: RawBuilder<unknown>): Operand {
  return { def, value, sqlType: 'boolean', present: sql<boolean>`true` };
}

function jsonOperand(def: AttributeDef, doc: RawBuilder<unknown>, keys: string[]): Operand {
  const keyList = sql.join(keys.map((k) => sql.lit(k)));
  return {
    def,
    value: sql`jsonb_extract_path_text(${doc}, ${keyList})`,
    sqlType: 'text',
    present: jsonPresent(sql`jsonb_extract_path(${doc}, ${keyList})`),
  };
}

/** `x` itself when an array, else an empty array: stored documents are never trusted blindly. */
const asArray = (x: RawBuilder<unknown>) =>
  sql`(case when jsonb_typeof(${x}) = 'array' then ${x} else '[]'::jsonb end)`;

/** A multi-valued attribute held as a JSON array. */
export function jsonCollection(def: AttributeDef, array: RawBuilder<unknown>): Collection {
  return {
    def,
    exists: (cond) =>
      sql<boolean>`exists (select 1 from jsonb_array_elements(${asArray(array)}) as e(v) where ${cond})`,
    element: (sub) => jsonOperand(sub, sql.ref('e.v'), [sub.name]),
  };
}

/**
 * A multi-valued attribute held in other tables: `exists (select 1 from <from> where <correlate>
 * and <cond>)`, its sub-attributes being columns of that query.
 */
export function relatedCollection(
  def: AttributeDef,
  query: { from: RawBuilder<unknown>; correlate: RawBuilder<boolean> },
  subAttributes: Record<string, RawBuilder<unknown>>,
): Collection {
  return {
    def,
    exists: (cond) => sql<boolean>`exists (select 1 from ${query.from} where ${query.correlate} and ${cond})`,
    element: (sub) => {
      const value = subAttributes[sub.name];
      if (!value) throw invalidFilter(`${def.name}.${sub.name} cannot be filtered on`);
      return textOperand(sub, value);
    },
  };
}

const documentPath = (keys: string[]) =>
  sql`jsonb_extract_path(${column('scim')}, ${sql.join(keys.map((k) => sql.lit(k)))})`;

/** A multi-valued attribute as a collection of elements, for `attr[filter]` and `attr.sub op value`. */
export function collectionOf(target: Filterable, path: ResolvedPath): Collection {
  const { attr, extension } = path;
  const own = extension ? undefined : target.collections[attr.name];
  if (own) return own(attr);
  return jsonCollection(attr, documentPath(extension ? [extension, attr.name] : [attr.name]));
}

/** A singular attribute (or sub-attribute of a singular complex one) as an SQL operand. */
export function operandOf(target: Filterable, path: ResolvedPath): Operand {
  const name = path.sub ? `${path.attr.name}.${path.sub.name}` : path.attr.name;
  const def = path.sub ?? path.attr;
  if (!path.extension) {
    // Attributes every resource has (RFC 7643 section 3.1).
    switch (name) {
      case 'id':
        return { def, value: sql`${column('id')}::text`, sqlType: 'text', present: sql<boolean>`true` };
      case 'externalId':
        return textOperand(def, column('external_id'));
      case 'meta.created':
        return { def, value: column('created_at'), sqlType: 'timestamptz', present: sql<boolean>`true` };
      case 'meta.lastModified':
        return { def, value: column('updated_at'), sqlType: 'timestamptz', present: sql<boolean>`true` };
      case 'meta.resourceType':
        return textOperand(def, sql`${target.kind}::text`);
    }
    if (name.startsWith('meta.')) throw invalidFilter(`${name} cannot be filtered on`);
    const own = target.operands[name];
    if (own) return own(def);
  }
  const keys = [
    ...(path.extension ? [path.extension] : []),
    path.attr.name,
    ...(path.sub ? [path.sub.name] : []),
  ];
  return jsonOperand(def, column('scim'), keys);
}
