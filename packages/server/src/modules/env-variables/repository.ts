import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';

/** `env_variables`: a deployment's variables, values sealed; plain Kysely, no rules. */
export class EnvVariablesRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  list(deploymentId: number, window: PageWindow, db: Db = this.db) {
    return pageById(
      db
        .selectFrom('env_variables')
        .select(['id', 'name'])
        .where('deployment_id', '=', deploymentId)
        .orderBy('id'),
      window,
      'id',
    ).execute();
  }

  all(deploymentId: number, db: Db = this.db) {
    return db
      .selectFrom('env_variables')
      .select(['name', 'value_enc'])
      .where('deployment_id', '=', deploymentId)
      .orderBy('id')
      .execute();
  }

  /** Insert or replace by name: concurrent writers of one name leave one row (the unique key). */
  async upsert(deploymentId: number, name: string, valueEnc: string, db: Db = this.db): Promise<void> {
    await db
      .insertInto('env_variables')
      .values({ deployment_id: deploymentId, name, value_enc: valueEnc })
      .onConflict((oc) =>
        oc
          .columns(['deployment_id', 'name'])
          .doUpdateSet({ value_enc: valueEnc, updated_at: sql<Date>`now()` }),
      )
      .execute();
  }

  async remove(deploymentId: number, names: string[], db: Db = this.db): Promise<void> {
    if (names.length === 0) return;
    await db
      .deleteFrom('env_variables')
      .where('deployment_id', '=', deploymentId)
      .where('name', 'in', names)
      .execute();
  }
}
