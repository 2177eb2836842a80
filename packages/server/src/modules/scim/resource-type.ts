import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Filterable } from './filter-operands.ts';
import type { JsonObject } from './normalize.ts';
import type { ScimContext } from './preconditions.ts';
import type { ScimResourceRepository } from './resource-repository.ts';
import type { ScimRow, ScimTable } from './resource-row.ts';

/** One write of a record, inside its transaction. */
export interface ScimWrite<T extends ScimTable, R> {
  ctx: ScimContext;
  record: R;
  /** The locked row a PUT or PATCH replaces; undefined on create. */
  current: ScimRow<T> | undefined;
  rows: ScimResourceRepository<T>;
  tx: Db;
}

/**
 * What tells one SCIM resource type from another (RFC 7643 section 6): its table, its mapping
 * to and from the SCIM resource, the attributes filters reach in columns (Filterable), its
 * uniqueness key, its PATCH rules and its rules around writes. The shared service
 * (resource-service.ts) and repository (resource-repository.ts) do everything else.
 * `R` is what a resource is stored as; `Related` what is rendered beside its row.
 */
export interface ScimResourceType<T extends ScimTable, R, Related> extends Filterable {
  table: T;
  /** The attribute unique per account, case-insensitive by the store's unique index on `column`. */
  unique: { attribute: string; column: keyof Database[T] & string; of(record: R): string };
  /** Loaded for rendering unless the projection leaves `attribute` out (a user's groups, a group's members). */
  related: { attribute: string; load(ids: number[], db: Db): Promise<Map<number, Related[]>> };
  toResource(row: ScimRow<T>, related: Related[] | undefined, baseUrl: string): JsonObject;
  /** A normalised resource (normalize.ts) as stored; 400 invalidValue when it cannot be. */
  toRecord(resource: JsonObject): R;
  /** PATCH: the resource the operations apply to (RFC 7644 section 3.5.2), read in the transaction. */
  patchBase(row: ScimRow<T>, tx: Db): Promise<JsonObject>;
  /** RFC 7644 section 3.5.2: a PATCH answers 200 with the resource, or 204. */
  patchAnswer: 200 | 204;
  /** Stores a record (insert when there is no current row) with the type's rules; returns the id. */
  write(write: ScimWrite<T, R>): Promise<number>;
  /** The type's rules before a delete, in its transaction. */
  beforeDelete?(ctx: ScimContext, row: ScimRow<T>, tx: Db): Promise<void>;
  /** After a change to an existing resource (PUT, PATCH, DELETE) commits. */
  afterChange?(): void;
  /** A create refused by a unique index other than the key's: the record to try once more, if any. */
  retryCreate?(record: R): R | undefined;
}
