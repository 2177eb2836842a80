import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { pageByKeys } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';
import { visibleFilter } from '../permissions/visibility.ts';
import { ownerColumns } from '../workspace/common.ts';
import type { FolderWithOwner } from './records.ts';
import type { TreeFolder } from './tree.ts';

export type { FolderWithOwner } from './records.ts';

/** Folders of a deployment's workspace; plain Kysely, rules live in service.ts. */
export class FoldersRepository {
  constructor(private readonly db: Db) {}

  treeRows(deploymentId: number, db: Db = this.db): Promise<TreeFolder[]> {
    return db
      .selectFrom('folders')
      .select(['id', 'parent_id', 'name'])
      .where('deployment_id', '=', deploymentId)
      .execute();
  }

  private withOwner(db: Db = this.db) {
    return db
      .selectFrom('folders as f')
      .leftJoin('users as u', 'u.id', 'f.created_by')
      .selectAll('f')
      .select(ownerColumns);
  }

  find(deploymentId: number, id: number, db: Db = this.db): Promise<FolderWithOwner | undefined> {
    return this.withOwner(db)
      .where('f.deployment_id', '=', deploymentId)
      .where('f.id', '=', id)
      .executeTakeFirst();
  }

  private listQuery(deploymentId: number, parentId: number | null, visibleIds: number[] | null) {
    let q = this.withOwner()
      .where('f.deployment_id', '=', deploymentId)
      .where('f.parent_id', parentId === null ? 'is' : '=', parentId);
    if (visibleIds !== null)
      q = q.where(visibleFilter({ folderIds: visibleIds, itemIds: [] }, 'f.id', 'f.id'));
    return q;
  }

  /** One level of the tree, ordered by `position` among siblings, then by id (stable for cursors). */
  list(deploymentId: number, parentId: number | null, visibleIds: number[] | null, window: PageWindow) {
    return pageByKeys(
      this.listQuery(deploymentId, parentId, visibleIds),
      window,
      [
        { expression: sql`f.position`, cast: 'integer' },
        { expression: sql`f.id`, cast: 'integer' },
      ],
      'asc',
    ).execute();
  }

  async count(deploymentId: number, parentId: number | null, visibleIds: number[] | null): Promise<number> {
    const row = await this.listQuery(deploymentId, parentId, visibleIds)
      .clearSelect()
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async insert(
    input: { deploymentId: number; parentId: number | null; name: string; position: number; userId: number },
    db: Db = this.db,
  ): Promise<number> {
    const row = await db
      .insertInto('folders')
      .values({
        deployment_id: input.deploymentId,
        parent_id: input.parentId,
        name: input.name,
        position: input.position,
        created_by: input.userId,
        updated_by: input.userId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async update(
    id: number,
    changes: { name?: string; position?: number; parentId?: number | null; userId: number },
    db: Db = this.db,
  ) {
    await db
      .updateTable('folders')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.position !== undefined ? { position: changes.position } : {}),
        ...(changes.parentId !== undefined ? { parent_id: changes.parentId } : {}),
        updated_by: changes.userId,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  async hasChildren(id: number, db: Db = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('folders')
      .select('id')
      .where('parent_id', '=', id)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Detaches the folder's workbooks and reports to the workspace root and deletes it (spec 4.5).
   * The foreign keys would do the detaching too (ON DELETE SET NULL); doing it explicitly keeps
   * `updated_at` honest. The caller holds the deployment's workspace lock.
   */
  async deleteDetaching(id: number, db: Db): Promise<void> {
    await db
      .updateTable('workbooks')
      .set({ folder_id: null, updated_at: sql<Date>`now()` })
      .where('folder_id', '=', id)
      .execute();
    await db
      .updateTable('reports')
      .set({ folder_id: null, updated_at: sql<Date>`now()` })
      .where('folder_id', '=', id)
      .execute();
    await db.deleteFrom('folders').where('id', '=', id).execute();
  }

  /**
   * Serialises structural changes of one deployment's folder tree (moves, deletes) across every
   * replica: a transaction-scoped advisory lock keyed by the deployment, released at commit.
   */
  async lockTree(deploymentId: number, db: Db): Promise<void> {
    await sql`select pg_advisory_xact_lock(5005, ${deploymentId}::int)`.execute(db);
  }
}
