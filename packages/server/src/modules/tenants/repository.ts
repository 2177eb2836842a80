import type { Db } from '../../db/database.ts';
import type { TenantRow } from '../../db/schema.ts';

export class TenantsRepository {
  constructor(private readonly db: Db) {}

  list(): Promise<TenantRow[]> {
    return this.db.selectFrom('tenants').selectAll().orderBy('id').execute();
  }

  findByName(name: string): Promise<TenantRow | undefined> {
    return this.db.selectFrom('tenants').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async create(input: {
    name: string;
    displayName: string;
    customDomain?: string | null;
  }): Promise<TenantRow> {
    return this.db
      .insertInto('tenants')
      .values({
        name: input.name,
        display_name: input.displayName,
        custom_domain: input.customDomain ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
