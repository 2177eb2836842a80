import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { PreAggregationTableRow } from '../../../db/schema.ts';

/** `pre_aggregation_tables` and `pre_aggregation_leases` (migration 0014); plain Kysely, no rules. */
export class PreAggregationRepository {
  constructor(private readonly db: Db) {}

  tables(deploymentId: number): Promise<PreAggregationTableRow[]> {
    return this.db
      .selectFrom('pre_aggregation_tables')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .execute();
  }

  /** Points the partition at its new table; the previous table name, if any, is returned. */
  async swap(row: Omit<PreAggregationTableRow, 'built_at'>): Promise<string | null> {
    return this.db.transaction().execute(async (tx) => {
      const before = await tx
        .selectFrom('pre_aggregation_tables')
        .select('table_name')
        .where('deployment_id', '=', row.deployment_id)
        .where('cube', '=', row.cube)
        .where('name', '=', row.name)
        .where('partition', '=', row.partition)
        .forUpdate()
        .executeTakeFirst();
      await tx
        .insertInto('pre_aggregation_tables')
        .values({ ...row, built_at: new Date() })
        .onConflict((oc) =>
          oc.columns(['deployment_id', 'cube', 'name', 'partition']).doUpdateSet((eb) => ({
            table_name: eb.ref('excluded.table_name'),
            build_sql: eb.ref('excluded.build_sql'),
            refresh_key_value: eb.ref('excluded.refresh_key_value'),
            range_start: eb.ref('excluded.range_start'),
            range_end: eb.ref('excluded.range_end'),
            built_at: eb.ref('excluded.built_at'),
          })),
        )
        .execute();
      await tx
        .updateTable('pre_aggregation_leases')
        .set((eb) => ({ builds: eb('builds', '+', 1) }))
        .where('deployment_id', '=', row.deployment_id)
        .execute();
      return before?.table_name ?? null;
    });
  }

  /** Rows of rollups or partitions the model no longer has; their tables are the caller's to drop. */
  async removeExcept(deploymentId: number, keep: readonly string[]): Promise<string[]> {
    const rows = await this.tables(deploymentId);
    const gone = rows.filter((r) => !keep.includes(`${r.cube}.${r.name}.${r.partition}`));
    for (const r of gone) {
      await this.db
        .deleteFrom('pre_aggregation_tables')
        .where('deployment_id', '=', deploymentId)
        .where('cube', '=', r.cube)
        .where('name', '=', r.name)
        .where('partition', '=', r.partition)
        .where('table_name', '=', r.table_name)
        .execute();
    }
    return gone.map((r) => r.table_name);
  }

  /**
   * Takes (or renews) the deployment's refresh lease for `owner` until `until`, in one statement:
   * the row is inserted, or updated only when its lease has passed or is already `owner`'s, so two
   * replicas racing for it cannot both win. True when `owner` holds it.
   */
  async acquire(deploymentId: number, owner: string, until: Date): Promise<boolean> {
    const row = await this.db
      .insertInto('pre_aggregation_leases')
      .values({ deployment_id: deploymentId, owner, expires_at: until })
      .onConflict((oc) =>
        oc
          .column('deployment_id')
          .doUpdateSet({ owner, expires_at: until })
          .where((eb) =>
            eb.or([
              eb('pre_aggregation_leases.expires_at', '<', sql<Date>`now()`),
              eb('pre_aggregation_leases.owner', '=', owner),
            ]),
          ),
      )
      .returning('owner')
      .executeTakeFirst();
    return row?.owner === owner;
  }

  async release(deploymentId: number, owner: string): Promise<void> {
    await this.db
      .updateTable('pre_aggregation_leases')
      .set({ expires_at: new Date(0) })
      .where('deployment_id', '=', deploymentId)
      .where('owner', '=', owner)
      .execute();
  }

  async builds(deploymentId: number): Promise<number> {
    const row = await this.db
      .selectFrom('pre_aggregation_leases')
      .select('builds')
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirst();
    return row?.builds ?? 0;
  }

  deployments() {
    return this.db.selectFrom('deployments').selectAll().orderBy('id').execute();
  }
}
