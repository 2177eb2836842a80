import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { UserAttributeRow, UserAttributeType } from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

export interface DefinitionInput {
  name: string;
  type: UserAttributeType;
  defaultValue: string | null;
  description: string | null;
  displayName: string | null;
}

export interface DefinitionFilter {
  name?: string;
  type?: UserAttributeType;
}

export type DefinitionWithValue = UserAttributeRow & { value: unknown };

/** `user_attributes` and `user_attribute_values`: plain Kysely, no rules. */
export class UserAttributesRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  private filtered(tenantId: number, filter: DefinitionFilter) {
    let q = this.db.selectFrom('user_attributes').where('tenant_id', '=', tenantId);
    if (filter.name) q = q.where(sql<boolean>`strpos(lower(name), lower(${filter.name})) > 0`);
    if (filter.type) q = q.where('type', '=', filter.type);
    return q;
  }

  /** Newest first, as the reference lists them. */
  list(tenantId: number, filter: DefinitionFilter, window: PageWindow): Promise<UserAttributeRow[]> {
    let q = this.filtered(tenantId, filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('id', '<', cursorId(window.after));
    return q.execute();
  }

  async count(tenantId: number, filter: DefinitionFilter): Promise<number> {
    const row = await this.filtered(tenantId, filter)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  find(tenantId: number, id: number, db: Db = this.db): Promise<UserAttributeRow | undefined> {
    return db
      .selectFrom('user_attributes')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  named(tenantId: number, names: string[], db: Db = this.db): Promise<UserAttributeRow[]> {
    if (names.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('user_attributes')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name', 'in', names)
      .execute();
  }

  insert(tenantId: number, input: DefinitionInput, db: Db = this.db): Promise<UserAttributeRow> {
    return db
      .insertInto('user_attributes')
      .values({
        tenant_id: tenantId,
        name: input.name,
        type: input.type,
        default_value: input.defaultValue,
        description: input.description,
        display_name: input.displayName,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Creates the definitions not stored yet; the stored ones stay as they are (concurrent callers: one row). */
  async insertMissing(tenantId: number, inputs: DefinitionInput[], db: Db = this.db): Promise<void> {
    if (inputs.length === 0) return;
    await db
      .insertInto('user_attributes')
      .values(
        inputs.map((input) => ({
          tenant_id: tenantId,
          name: input.name,
          type: input.type,
          default_value: input.defaultValue,
          description: input.description,
          display_name: input.displayName,
        })),
      )
      .onConflict((oc) => oc.columns(['tenant_id', 'name']).doNothing())
      .execute();
  }

  update(
    tenantId: number,
    id: number,
    patch: Partial<Pick<DefinitionInput, 'defaultValue' | 'description' | 'displayName'>>,
    db: Db = this.db,
  ): Promise<UserAttributeRow | undefined> {
    return db
      .updateTable('user_attributes')
      .set({
        ...(patch.defaultValue !== undefined ? { default_value: patch.defaultValue } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.displayName !== undefined ? { display_name: patch.displayName } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  /** Every definition of the account, with `userId`'s own value where they have one (else null). */
  withValuesOf(tenantId: number, userId: number, db: Db = this.db): Promise<DefinitionWithValue[]> {
    return db
      .selectFrom('user_attributes as a')
      .leftJoin('user_attribute_values as v', (join) =>
        join.onRef('v.user_attribute_id', '=', 'a.id').on('v.user_id', '=', userId),
      )
      .selectAll('a')
      .select('v.value')
      .where('a.tenant_id', '=', tenantId)
      .orderBy('a.name')
      .execute() as Promise<DefinitionWithValue[]>;
  }

  async setValue(userId: number, attributeId: number, value: unknown, db: Db = this.db): Promise<void> {
    const json = JSON.stringify(value);
    await db
      .insertInto('user_attribute_values')
      .values({ user_id: userId, user_attribute_id: attributeId, value: json })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'user_attribute_id'])
          .doUpdateSet({ value: json, updated_at: sql<Date>`now()` }),
      )
      .execute();
  }

  async removeValue(userId: number, attributeId: number, db: Db = this.db): Promise<void> {
    await db
      .deleteFrom('user_attribute_values')
      .where('user_id', '=', userId)
      .where('user_attribute_id', '=', attributeId)
      .execute();
  }
}
