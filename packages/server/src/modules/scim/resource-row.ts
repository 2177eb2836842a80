import type { Selectable, SelectQueryBuilder, Simplify } from 'kysely';
import type { Database } from '../../db/schema.ts';

/** The tables SCIM resources live in: Tessera's users and global groups. */
export type ScimTable = 'users' | 'groups';

type RowWithVersion<T extends ScimTable> = Selectable<Database[T]> & { id: number; version: string };

/** A row with its version, the weak ETag of the resource (RFC 7644 section 3.14), as Kysely returns it. */
export type ScimRow<T extends ScimTable> = Simplify<RowWithVersion<T>>;

/** The rows of a table read as `r` (the alias filters are written against, filter-operands.ts). */
export type ScimRowsQuery<T extends ScimTable> = SelectQueryBuilder<
  Database & { r: Database[T] },
  'r',
  RowWithVersion<T>
>;
