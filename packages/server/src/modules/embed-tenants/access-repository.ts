import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { DashboardRow } from '../../db/schema.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';
import { ownerColumns } from '../workspace/common.ts';

/** The unique index `embed_access_unique` (migration 0008-embed). */
const shareKey = sql`workbook_id, coalesce(embed_tenant_id, 0)`;

export interface EmbedShare {
  embed_tenant_id: number | null;
  embed_tenant_name: string | null;
}

/**
 * Dashboard Embed Access: read shares of a workbook (its published dashboard) with one embed
 * tenant or, with a null tenant, with every embed user of the account; plain Kysely.
 */
export class EmbedAccessRepository {
  constructor(private readonly db: Db) {}

  shares(workbookId: number, db: Db = this.db): Promise<EmbedShare[]> {
    return db
      .selectFrom('embed_access as a')
      .leftJoin('embed_tenants as t', 't.id', 'a.embed_tenant_id')
      .select(['a.embed_tenant_id', 't.name as embed_tenant_name'])
      .where('a.workbook_id', '=', workbookId)
      .orderBy('t.name')
      .execute();
  }

  /** Idempotent: sharing twice leaves one share. */
  async share(
    deploymentId: number,
    workbookId: number,
    embedTenantId: number | null,
    db: Db = this.db,
  ): Promise<void> {
    await db
      .insertInto('embed_access')
      .values({ deployment_id: deploymentId, workbook_id: workbookId, embed_tenant_id: embedTenantId })
      .onConflict((oc) => oc.expression(shareKey).doNothing())
      .execute();
  }

  async unshare(workbookId: number, embedTenantId: number | null, db: Db = this.db): Promise<void> {
    await db
      .deleteFrom('embed_access')
      .where('workbook_id', '=', workbookId)
      .where('embed_tenant_id', embedTenantId === null ? 'is' : '=', embedTenantId)
      .execute();
  }

  /** Whether the dashboard's workbook is shared with this embed tenant or with every embed user. */
  async isShared(dashboard: DashboardRow, embedTenantId: number | null): Promise<boolean> {
    let q = this.db.selectFrom('embed_access').select('id').where('workbook_id', '=', dashboard.workbook_id);
    q = q.where((eb) =>
      embedTenantId === null
        ? eb('embed_tenant_id', 'is', null)
        : eb.or([eb('embed_tenant_id', 'is', null), eb('embed_tenant_id', '=', embedTenantId)]),
    );
    return (await q.executeTakeFirst()) !== undefined;
  }

  /** Workbooks of the deployment shared with the tenant, with every embed user, or either. */
  workbooks(
    deploymentId: number,
    embedTenantId: number,
    source: 'tenant' | 'allEmbedUsers' | 'any',
    window: PageWindow,
  ): Promise<WorkbookWithOwner[]> {
    const q = this.db
      .selectFrom('workbooks as w')
      .leftJoin('users as u', 'u.id', 'w.user_id')
      .selectAll('w')
      .select(ownerColumns)
      .where('w.deployment_id', '=', deploymentId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('embed_access as a')
            .select('a.id')
            .whereRef('a.workbook_id', '=', 'w.id')
            .where((eb) =>
              source === 'tenant'
                ? eb('a.embed_tenant_id', '=', embedTenantId)
                : source === 'allEmbedUsers'
                  ? eb('a.embed_tenant_id', 'is', null)
                  : eb.or([eb('a.embed_tenant_id', 'is', null), eb('a.embed_tenant_id', '=', embedTenantId)]),
            ),
        ),
      )
      .orderBy('w.id');
    return pageById(q, window, 'w.id').execute();
  }
}
