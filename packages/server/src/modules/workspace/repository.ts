import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { keysetCursor, pageByKeys } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';
import type { AccessContext } from '../permissions/access.ts';
import type { ContentType } from '../permissions/content.ts';
import { visibleFilter } from '../permissions/visibility.ts';
import { ownerColumns } from './common.ts';

export interface WorkspaceRow {
  rank: number;
  type: ContentType;
  id: number;
  name: string;
  folder_id: number | null;
  created_at: Date;
  updated_at: Date;
  user_id: number | null;
  /** The embed tenant space the item lives in (creator mode); folders are in none. */
  embed_tenant_id: number | null;
  meta: Record<string, unknown> | null;
  calculated_fields: Record<string, unknown>;
  slug: string | null;
  owner_email: string | null;
  owner_first_name: string | null;
  owner_picture: string | null;
  sort_keys: string[];
}

export interface WorkspaceFilter {
  ctx: AccessContext;
  /** undefined with `search`: every folder. */
  folderId: number | null | undefined;
  types: ContentType[];
  search?: string;
  /**
   * The shared workspace: only items owned by someone else, and for an embed token only what is
   * shared with its tenant's embed users (AccessContext.sharedVisibility).
   */
  sharedWith?: number;
}

/**
 * One level of the workspace as a single feed over folders, workbooks and reports: folders first
 * (the reference), then by name and id, so that a cursor is exact across the three tables.
 */
export class WorkspaceRepository {
  constructor(private readonly db: Db) {}

  list(f: WorkspaceFilter, window: PageWindow): Promise<WorkspaceRow[]> {
    const d = f.ctx.deploymentId;
    const where = (alias: string, folderCol: string, type: ContentType) => {
      const parts = [
        sql`${sql.ref(`${alias}.deployment_id`)} = ${d}`,
        visibleFilter(
          f.sharedWith === undefined ? f.ctx.visibility(type) : f.ctx.sharedVisibility(type),
          folderCol,
          `${alias}.id`,
        ),
      ];
      if (f.folderId !== undefined)
        parts.push(
          f.folderId === null
            ? sql`${sql.ref(folderCol)} is null`
            : sql`${sql.ref(folderCol)} = ${f.folderId}`,
        );
      if (f.search) parts.push(sql`strpos(lower(${sql.ref(`${alias}.name`)}), lower(${f.search})) > 0`);
      return sql.join(parts, sql` and `);
    };
    const members = [];
    if (f.types.includes('FOLDER'))
      members.push(sql`select 0 as rank, 'FOLDER' as type, fo.id, fo.name, fo.parent_id as folder_id, fo.created_at, fo.updated_at,
        fo.created_by as user_id, null::int as embed_tenant_id, null::jsonb as meta, '{}'::jsonb as calculated_fields, null::text as slug
        from folders fo where ${where('fo', 'fo.parent_id', 'FOLDER')}`);
    if (f.types.includes('WORKBOOK'))
      members.push(sql`select 1 as rank, 'WORKBOOK' as type, w.id, w.name, w.folder_id, w.created_at, w.updated_at, w.user_id,
        w.embed_tenant_id, w.meta, w.calculated_fields, w.slug from workbooks w where ${where('w', 'w.folder_id', 'WORKBOOK')}`);
    if (f.types.includes('REPORT'))
      members.push(sql`select 2 as rank, 'REPORT' as type, r.id, r.name, r.folder_id, r.created_at, r.updated_at, r.user_id,
        r.embed_tenant_id, r.meta, '{}'::jsonb as calculated_fields, null::text as slug from reports r where ${where('r', 'r.folder_id', 'REPORT')}`);
    const union = sql.join(members, sql` union all `);
    let q = this.db
      .selectFrom(
        sql<
          Omit<WorkspaceRow, 'owner_email' | 'owner_first_name' | 'owner_picture' | 'sort_keys'>
        >`(${union})`.as('i'),
      )
      .leftJoin('users as u', 'u.id', 'i.user_id')
      .selectAll('i')
      .select(ownerColumns);
    if (f.sharedWith !== undefined) q = q.where(sql<boolean>`i.user_id is distinct from ${f.sharedWith}`);
    return pageByKeys(
      q,
      window,
      [
        { expression: sql`i.rank`, cast: 'integer' },
        { expression: sql`i.name`, cast: 'text' },
        { expression: sql`i.id`, cast: 'integer' },
      ],
      'asc',
    ).execute() as Promise<WorkspaceRow[]>;
  }
}

export { keysetCursor };
