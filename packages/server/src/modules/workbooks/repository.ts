import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type PageWindow, pageById } from '../../pagination/page.ts';
import { visibleFilter } from '../permissions/visibility.ts';
import { ownerColumns } from '../workspace/common.ts';
import type { WorkbookWithOwner } from './records.ts';

export type { WorkbookWithOwner } from './records.ts';

export interface WorkbookListFilter {
  deploymentId: number;
  /** undefined: every folder; null: the workspace root only. */
  folderId?: number | null;
  visibility: { folderIds: number[]; itemIds: number[] } | null;
}

export interface NewWorkbook {
  deploymentId: number;
  folderId: number | null;
  name: string;
  meta?: Record<string, unknown>;
  calculatedFields?: Record<string, unknown>;
  dashboardDraft?: Record<string, unknown> | null;
  /** A deployment-scoped slug (the upsert by slug creates with one). */
  slug?: string | null;
  /** The owner (permissions/access.ts `Owner`): an account user, or an embed user in its tenant's space. */
  userId: number | null;
  embedUserId?: number | null;
  embedTenantId?: number | null;
}

/** Workbooks; plain Kysely. */
export class WorkbooksRepository {
  constructor(private readonly db: Db) {}

  private withOwner(db: Db = this.db) {
    return db
      .selectFrom('workbooks as w')
      .leftJoin('users as u', 'u.id', 'w.user_id')
      .selectAll('w')
      .select(ownerColumns);
  }

  find(deploymentId: number, id: number, db: Db = this.db): Promise<WorkbookWithOwner | undefined> {
    return this.withOwner(db)
      .where('w.deployment_id', '=', deploymentId)
      .where('w.id', '=', id)
      .executeTakeFirst();
  }

  /** The workbook holding a slug in a deployment (unique: UNIQUE (deployment_id, slug)). */
  findBySlug(deploymentId: number, slug: string, db: Db = this.db): Promise<WorkbookWithOwner | undefined> {
    return this.withOwner(db)
      .where('w.deployment_id', '=', deploymentId)
      .where('w.slug', '=', slug)
      .executeTakeFirst();
  }

  private filtered(filter: WorkbookListFilter) {
    let q = this.withOwner()
      .where('w.deployment_id', '=', filter.deploymentId)
      .where(visibleFilter(filter.visibility, 'w.folder_id', 'w.id'));
    if (filter.folderId !== undefined)
      q = q.where('w.folder_id', filter.folderId === null ? 'is' : '=', filter.folderId);
    return q;
  }

  /** Ordered by id: a stable keyset, so a client paging with `after` sees each survivor once. */
  list(filter: WorkbookListFilter, window: PageWindow): Promise<WorkbookWithOwner[]> {
    return pageById(this.filtered(filter).orderBy('w.id'), window, 'w.id').execute();
  }

  async count(filter: WorkbookListFilter): Promise<number> {
    const row = await this.filtered(filter)
      .clearSelect()
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async insert(input: NewWorkbook, db: Db = this.db): Promise<number> {
    const row = await db
      .insertInto('workbooks')
      .values({
        deployment_id: input.deploymentId,
        folder_id: input.folderId,
        name: input.name,
        meta: JSON.stringify(input.meta ?? {}),
        calculated_fields: JSON.stringify(input.calculatedFields ?? {}),
        dashboard_draft: input.dashboardDraft ? JSON.stringify(input.dashboardDraft) : null,
        slug: input.slug ?? null,
        user_id: input.userId,
        created_by: input.userId,
        embed_user_id: input.embedUserId ?? null,
        embed_tenant_id: input.embedTenantId ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async update(
    id: number,
    changes: {
      name?: string;
      meta?: Record<string, unknown>;
      /** Content apply (modules/content) sets them; the API's update does not (the reference). */
      calculatedFields?: Record<string, unknown>;
      slug?: string | null;
      folderId?: number | null;
      dashboardDraft?: Record<string, unknown> | null;
      /** Who saves the draft (with `dashboardDraft`): an account user, or null. */
      draftSavedBy?: number | null;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .updateTable('workbooks')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.meta !== undefined ? { meta: JSON.stringify(changes.meta) } : {}),
        ...(changes.calculatedFields !== undefined
          ? { calculated_fields: JSON.stringify(changes.calculatedFields) }
          : {}),
        ...(changes.slug !== undefined ? { slug: changes.slug } : {}),
        ...(changes.folderId !== undefined ? { folder_id: changes.folderId } : {}),
        ...(changes.dashboardDraft !== undefined
          ? {
              dashboard_draft:
                changes.dashboardDraft === null ? null : JSON.stringify(changes.dashboardDraft),
              // Every save of the draft counts, so that an editor's version check sees it (saveDraft).
              draft_version: sql<number>`draft_version + 1`,
              draft_saved_by: changes.draftSavedBy ?? null,
              draft_saved_at: sql<Date>`now()`,
            }
          : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Saves the draft when it is still at `expectedVersion` (null: whatever it is), counting the
   * save. One conditional UPDATE: of two saves based on one version, the second waits for the
   * first's row lock, finds the version moved and changes nothing. Returns the new version, or
   * null when the draft had moved on.
   */
  async saveDraft(
    id: number,
    draft: Record<string, unknown> | null,
    expectedVersion: number | null,
    savedBy: number | null,
    db: Db = this.db,
  ): Promise<number | null> {
    let q = db
      .updateTable('workbooks')
      .set({
        dashboard_draft: draft === null ? null : JSON.stringify(draft),
        draft_version: sql<number>`draft_version + 1`,
        draft_saved_by: savedBy,
        draft_saved_at: sql<Date>`now()`,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id);
    if (expectedVersion !== null) q = q.where('draft_version', '=', expectedVersion);
    const row = await q.returning('draft_version').executeTakeFirst();
    return row?.draft_version ?? null;
  }

  /** Who saved the workbook's draft last (an account user), or undefined. */
  draftSaver(id: number, db: Db = this.db) {
    return db
      .selectFrom('workbooks as w')
      .innerJoin('users as u', 'u.id', 'w.draft_saved_by')
      .select(['u.id', 'u.email', 'u.first_name'])
      .where('w.id', '=', id)
      .executeTakeFirst();
  }

  /** Its reports stay (detached from the workbook); its dashboard and versions go with it. */
  async delete(deploymentId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('workbooks')
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }
}
