import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DataSourceSettings, DeploymentRow, EnvironmentRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { DeploymentChanges } from './records.ts';

export type { DeploymentChanges } from './records.ts';

export interface NewDeployment {
  tenantId: number;
  name: string;
  dataSource: DataSourceSettings;
  apiSecretEnc: string;
  basePath: string;
  creationStep: string;
}

/** Deployments and their environments; plain Kysely, no rules. */
export class DeploymentsRepository {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction; pass the `Db` it receives to the methods below. */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Deployments of a tenant, narrowed to `scope` when the credential is deployment-scoped. */
  private scoped(tenantId: number, scope: number[] | null) {
    let q = this.db.selectFrom('deployments').where('tenant_id', '=', tenantId);
    if (scope !== null) q = q.where('id', scope.length > 0 ? 'in' : '=', scope.length > 0 ? scope : [-1]);
    return q;
  }

  list(tenantId: number, scope: number[] | null, window: PageWindow): Promise<DeploymentRow[]> {
    const q = this.scoped(tenantId, scope).selectAll().orderBy('id');
    return pageById(q, window, 'id').execute();
  }

  async count(tenantId: number, scope: number[] | null): Promise<number> {
    const row = await this.scoped(tenantId, scope)
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  find(tenantId: number, id: number, db: Db = this.db): Promise<DeploymentRow | undefined> {
    return db
      .selectFrom('deployments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  insert(input: NewDeployment, db: Db = this.db): Promise<DeploymentRow> {
    return db
      .insertInto('deployments')
      .values({
        tenant_id: input.tenantId,
        name: input.name,
        data_source: JSON.stringify(input.dataSource),
        api_secret_enc: input.apiSecretEnc,
        base_path: input.basePath,
        creation_step: input.creationStep,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async addEnvironment(
    env: { deploymentId: number; type: EnvironmentRow['type']; branch: string; userId: number | null },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .insertInto('environments')
      .values({ deployment_id: env.deploymentId, type: env.type, branch: env.branch, user_id: env.userId })
      .execute();
  }

  /** The deployment that seeding created for the sample data (bootstrap/seed.ts marks it `demo`). */
  async demoDeploymentId(db: Db = this.db): Promise<number | null> {
    const row = await db
      .selectFrom('deployments')
      .select('id')
      .where('creation_step', '=', 'demo')
      .orderBy('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  update(
    tenantId: number,
    id: number,
    changes: DeploymentChanges,
    db: Db = this.db,
  ): Promise<DeploymentRow | undefined> {
    return db
      .updateTable('deployments')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.dataSource !== undefined ? { data_source: JSON.stringify(changes.dataSource) } : {}),
        ...(changes.apiSecretEnc !== undefined ? { api_secret_enc: changes.apiSecretEnc } : {}),
        ...(changes.basePath !== undefined ? { base_path: changes.basePath } : {}),
        ...(changes.creationStep !== undefined ? { creation_step: changes.creationStep } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number, db: Db = this.db): Promise<boolean> {
    const result = await db
      .deleteFrom('deployments')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  listEnvironments(
    deploymentId: number,
    type: string | undefined,
    window: PageWindow,
  ): Promise<EnvironmentRow[]> {
    let q = this.db
      .selectFrom('environments')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('id');
    if (type !== undefined) q = q.where('type', '=', type as EnvironmentRow['type']);
    return pageById(q, window, 'id').execute();
  }

  async countEnvironments(deploymentId: number, type: string | undefined): Promise<number> {
    let q = this.db.selectFrom('environments').where('deployment_id', '=', deploymentId);
    if (type !== undefined) q = q.where('type', '=', type as EnvironmentRow['type']);
    const row = await q.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    return row.n;
  }
}
