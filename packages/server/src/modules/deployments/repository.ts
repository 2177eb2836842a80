import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DataSourceSettings, DeploymentRow, EnvironmentRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';

export interface NewDeployment {
  tenantId: number;
  name: string;
  dataSource: DataSourceSettings;
  apiSecretEnc: string;
  basePath: string;
}

export interface DeploymentChanges {
  name?: string;
  dataSource?: DataSourceSettings;
  apiSecretEnc?: string;
  basePath?: string;
}

export class DeploymentsRepository {
  constructor(private readonly db: Db) {}

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

  find(tenantId: number, id: number): Promise<DeploymentRow | undefined> {
    return this.db
      .selectFrom('deployments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Creates the deployment and its production environment in one transaction. */
  insert(input: NewDeployment): Promise<DeploymentRow> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('deployments')
        .values({
          tenant_id: input.tenantId,
          name: input.name,
          data_source: JSON.stringify(input.dataSource),
          api_secret_enc: input.apiSecretEnc,
          base_path: input.basePath,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('environments')
        .values({ deployment_id: row.id, type: 'production', branch: 'main', user_id: null })
        .execute();
      return row;
    });
  }

  update(tenantId: number, id: number, changes: DeploymentChanges): Promise<DeploymentRow | undefined> {
    return this.db
      .updateTable('deployments')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.dataSource !== undefined ? { data_source: JSON.stringify(changes.dataSource) } : {}),
        ...(changes.apiSecretEnc !== undefined ? { api_secret_enc: changes.apiSecretEnc } : {}),
        ...(changes.basePath !== undefined ? { base_path: changes.basePath } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number): Promise<boolean> {
    const result = await this.db
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
