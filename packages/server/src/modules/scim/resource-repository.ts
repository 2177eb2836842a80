import { type Insertable, type RawBuilder, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Sort, Window } from './list.ts';
import type { ScimRow, ScimRowsQuery, ScimTable } from './resource-row.ts';

/** Microsecond `updated_at`: the weak ETag of a resource (RFC 7644 section 3.14). */
const version = sql<string>`(extract(epoch from r.updated_at) * 1000000)::bigint::text`;
const tenantOf = sql.ref<number>('r.tenant_id');
const idOf = sql.ref<number>('r.id');

/** Each table's rows, typed: Kysely cannot name the columns of a table chosen at run time. */
const rowsOf: { [T in ScimTable]: (db: Db) => ScimRowsQuery<T> } = {
  users: (db) => db.selectFrom('users as r').selectAll('r').select(version.as('version')),
  groups: (db) => db.selectFrom('groups as r').selectAll('r').select(version.as('version')),
};

/**
 * The rows of one SCIM resource type, read as `<table> as r` (the row filters are written
 * against, filter-operands.ts). Plain Kysely, no rules.
 */
export class ScimResourceRepository<T extends ScimTable> {
  constructor(
    private readonly db: Db,
    readonly table: T,
  ) {}

  /** The table as `r`, for queries that need no row type. */
  private from(db: Db) {
    return db.dynamic.table(this.table).as('r');
  }

  private rows(db: Db, tenantId: number) {
    return rowsOf[this.table](db).where(tenantOf, '=', tenantId);
  }

  async find(tenantId: number, id: number, db: Db = this.db, lock = false): Promise<ScimRow<T> | undefined> {
    let q = this.rows(db, tenantId).where(idOf, '=', id);
    if (lock) q = q.forUpdate();
    const [row] = await q.execute();
    return row;
  }

  async count(tenantId: number, where: RawBuilder<boolean> | undefined): Promise<number> {
    let q = this.db
      .selectFrom(this.from(this.db))
      .select(sql<number>`count(*)::int`.as('n'))
      .where(tenantOf, '=', tenantId);
    if (where) q = q.where(where);
    return (await q.executeTakeFirstOrThrow()).n;
  }

  list(
    tenantId: number,
    where: RawBuilder<boolean> | undefined,
    sort: Sort | undefined,
    window: Window,
  ): Promise<ScimRow<T>[]> {
    let q = this.rows(this.db, tenantId);
    if (where) q = q.where(where);
    if (sort) q = q.orderBy(sql`${sort.expr} ${sql.raw(sort.descending ? 'desc' : 'asc')} nulls last`);
    return q.orderBy(idOf).offset(window.offset).limit(window.limit).execute();
  }

  async insert(values: Insertable<Database[T]>, db: Db): Promise<number> {
    const row = await db.insertInto(this.table).values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /** Also moves `updated_at`, hence the version. */
  async update(tenantId: number, id: number, values: Updateable<Database[T]>, db: Db): Promise<void> {
    const table: ScimTable = this.table;
    const changes: Updateable<Database[ScimTable]> = values;
    await db
      .updateTable(table)
      .set(changes)
      .set({ updated_at: sql<Date>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
  }

  async delete(tenantId: number, id: number, db: Db): Promise<boolean> {
    const r = await db
      .deleteFrom(this.from(db))
      .where(tenantOf, '=', tenantId)
      .where(idOf, '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Whether another row of the tenant holds this value, compared as the unique indexes do (`lower`). */
  async taken(
    tenantId: number,
    column: keyof Database[T] & string,
    value: string,
    exceptId?: number,
    db: Db = this.db,
  ): Promise<boolean> {
    let q = db
      .selectFrom(this.from(db))
      .select(idOf.as('id'))
      .where(tenantOf, '=', tenantId)
      .where(sql`lower(${sql.ref(`r.${column}`)})`, '=', value.toLowerCase());
    if (exceptId !== undefined) q = q.where(idOf, '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }
}
