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

const jsonPresent = (j: RawBuilder<unknown>) =>
  sql<boolean>`coalesce(${j} not in ('null'::jsonb, '""'::jsonb, '[]'::jsonb, '{}'::jsonb), false)`;

function textOperand(def: AttributeDef, value: RawBuilder<unknown>): Operand {
  return { def, value, sqlType: 'text', present: sql<boolean>`coalesce(${value} <> '', false)` };
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

function jsonCollection(def: AttributeDef, array: RawBuilder<unknown>): Collection {
  return {
    def,
    exists: (cond) =>
      sql<boolean>`exists (select 1 from jsonb_array_elements(${asArray(array)}) as e(v) where ${cond})`,
    element: (sub) => jsonOperand(sub, sql.ref('e.v'), [sub.name]),
  };
}

/** Users' emails: the stored list, or the Tessera email for users created outside SCIM (see mapping). */
const userEmails = sql`coalesce(u.scim->'emails', case when u.email like '%@scim.invalid' then '[]'::jsonb
  else jsonb_build_array(jsonb_build_object('value', u.email, 'type', 'work', 'primary', true)) end)`;

function membership(kind: ResourceKind, def: AttributeDef): Collection {
  if (kind === 'Group') {
    return {
      def,
      exists: (cond) =>
        sql<boolean>`exists (select 1 from group_members gm join users mu on mu.id = gm.user_id where gm.group_id = g.id and ${cond})`,
      element: (sub) => {
        if (sub.name === 'value') return textOperand(sub, sql`gm.user_id::text`);
        if (sub.name === 'type') return textOperand(sub, sql`'User'`);
        if (sub.name === 'display') {
          return textOperand(
            sub,
            sql`coalesce(g.scim->'memberDisplay'->>(gm.user_id::text), mu.scim->>'displayName', mu.username)`,
          );
        }
        throw invalidFilter(`members.${sub.name} cannot be filtered on`);
      },
    };
  }
  return {
    def,
    exists: (cond) =>
      sql<boolean>`exists (select 1 from group_members gm join groups mg on mg.id = gm.group_id where gm.user_id = u.id and ${cond})`,
    element: (sub) => {
      if (sub.name === 'value') return textOperand(sub, sql`gm.group_id::text`);
      if (sub.name === 'display') return textOperand(sub, sql`mg.name`);
      if (sub.name === 'type') return textOperand(sub, sql`'direct'`);
      throw invalidFilter(`groups.${sub.name} cannot be filtered on`);
    },
  };
}

/** A multi-valued attribute as a collection of elements, for `attr[filter]` and `attr.sub op value`. */
export function collectionOf(kind: ResourceKind, path: ResolvedPath): Collection {
  const { attr, extension } = path;
  if (
    !path.extension &&
    ((kind === 'Group' && attr.name === 'members') || (kind === 'User' && attr.name === 'groups'))
  ) {
    return membership(kind, attr);
  }
  if (kind === 'User' && !extension && attr.name === 'emails') return jsonCollection(attr, userEmails);
  const alias = kind === 'User' ? 'u' : 'g';
  const keys = extension ? [extension, attr.name] : [attr.name];
  return jsonCollection(
    attr,
    sql`jsonb_extract_path(${sql.ref(`${alias}.scim`)}, ${sql.join(keys.map((k) => sql.lit(k)))})`,
  );
}

/** A singular attribute (or sub-attribute of a singular complex one) as an SQL operand. */
export function operandOf(kind: ResourceKind, path: ResolvedPath): Operand {
  const alias = kind === 'User' ? 'u' : 'g';
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  const name = path.sub ? `${path.attr.name}.${path.sub.name}` : path.attr.name;
  const def = path.sub ?? path.attr;
  if (!path.extension) {
    switch (name) {
      case 'id':
        return { def, value: sql`${col('id')}::text`, sqlType: 'text', present: sql<boolean>`true` };
      case 'externalId':
        return textOperand(def, col('external_id'));
      case 'meta.created':
        return { def, value: col('created_at'), sqlType: 'timestamptz', present: sql<boolean>`true` };
      case 'meta.lastModified':
        return { def, value: col('updated_at'), sqlType: 'timestamptz', present: sql<boolean>`true` };
      case 'meta.resourceType':
        return textOperand(def, sql`${kind}::text`);
    }
    if (name.startsWith('meta.')) throw invalidFilter(`${name} cannot be filtered on`);
    if (kind === 'User') {
      if (name === 'userName') return textOperand(def, col('username'));
      if (name === 'name.givenName') return textOperand(def, col('first_name'));
      if (name === 'name.familyName') return textOperand(def, col('last_name'));
      if (name === 'active')
        return {
          def,
          value: sql`not ${col('is_deactivated')}`,
          sqlType: 'boolean',
          present: sql<boolean>`true`,
        };
    } else if (name === 'displayName') {
      return textOperand(def, col('name'));
    }
  }
  const keys = [
    ...(path.extension ? [path.extension] : []),
    path.attr.name,
    ...(path.sub ? [path.sub.name] : []),
  ];
  return jsonOperand(def, col('scim'), keys);
}
