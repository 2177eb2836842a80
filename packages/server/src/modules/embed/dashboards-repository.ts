import type { Db } from '../../db/database.ts';
import type { DashboardRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';

export interface EmbeddableRow {
  id: number;
  public_id: string;
  deployment_id: number;
  workbook_id: number;
  allow_embed: boolean;
  title: string | null;
  description: string | null;
  version_number: number;
}

/** Published dashboards as embedding addresses them: by `publicId` across an account's deployments. */
export class EmbedDashboardsRepository {
  constructor(private readonly db: Db) {}

  /** The account's dashboard with this public id that has a published version; undefined otherwise. */
  published(tenantId: number, publicId: string): Promise<DashboardRow | undefined> {
    return this.db
      .selectFrom('dashboards as d')
      .innerJoin('deployments as p', 'p.id', 'd.deployment_id')
      .selectAll('d')
      .where('p.tenant_id', '=', tenantId)
      .where('d.public_id', '=', publicId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('dashboard_versions as v')
            .select('v.id')
            .whereRef('v.dashboard_id', '=', 'd.id')
            .where('v.status', '=', 'published'),
        ),
      )
      .executeTakeFirst();
  }

  /** Published dashboards with `allowEmbed`, in the given deployments (null: all of the account's). */
  embeddable(tenantId: number, deploymentIds: number[] | null, window: PageWindow): Promise<EmbeddableRow[]> {
    let q = this.db
      .selectFrom('dashboards as d')
      .innerJoin('deployments as p', 'p.id', 'd.deployment_id')
      .innerJoin('dashboard_versions as v', (join) =>
        join.onRef('v.dashboard_id', '=', 'd.id').on('v.status', '=', 'published'),
      )
      .select([
        'd.id',
        'd.public_id',
        'd.deployment_id',
        'd.workbook_id',
        'd.allow_embed',
        'v.title',
        'v.description',
        'v.version_number',
      ])
      .where('p.tenant_id', '=', tenantId)
      .where('d.allow_embed', '=', true);
    if (deploymentIds !== null)
      q = q.where('d.deployment_id', 'in', deploymentIds.length > 0 ? deploymentIds : [0]);
    return pageById(q.orderBy('d.id'), window, 'd.id').execute();
  }
}
