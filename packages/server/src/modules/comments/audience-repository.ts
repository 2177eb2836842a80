import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { KeysetRow } from '../../pagination/keyset.ts';
import { pageByKeys } from '../../pagination/keyset.ts';
import type { PageWindow } from '../../pagination/page.ts';

/** Someone a comment may mention: an account user or an embed user, in one shape. */
export interface MentionableRow {
  id: number;
  username: string;
  email: string | null;
  first_name: string | null;
}

/** Where a workbook sits, for "who can see it": the workbook and the folders above it. */
export interface WorkbookPlace {
  deploymentId: number;
  workbookId: number;
  folderIds: number[];
}

type Audience = SelectQueryBuilder<Database, 'users' | 'embed_users', MentionableRow>;

/**
 * The people of a conversation (migration 0030): for an embed tenant its embed users, whose
 * username is their external id; for the account, the active users who can see the workbook
 * (admins, and whoever a grant on the workbook or a folder above it reaches, directly or through
 * a group; any grant gives at least view, permissions/levels.ts). Plain Kysely, no rules.
 */
export class AudienceRepository {
  constructor(private readonly db: Db) {}

  private embedUsers(tenantId: number, embedTenantId: number) {
    return this.db
      .selectFrom('embed_users as u')
      .select(['u.id', 'u.external_id as username', 'u.email', 'u.display_name as first_name'])
      .where('u.tenant_id', '=', tenantId)
      .where('u.embed_tenant_id', '=', embedTenantId) as unknown as Audience;
  }

  private accountUsers(tenantId: number, place: WorkbookPlace) {
    return this.db
      .selectFrom('users as u')
      .select(['u.id', 'u.username', 'u.email', 'u.first_name'])
      .where('u.tenant_id', '=', tenantId)
      .where('u.is_deactivated', '=', false)
      .where((eb) =>
        eb.or([
          eb('u.role', '=', 'admin'),
          eb.exists(
            eb
              .selectFrom('content_permissions as p')
              .select('p.id')
              .where('p.deployment_id', '=', place.deploymentId)
              .where((g) =>
                g.or([
                  g('p.workbook_id', '=', place.workbookId),
                  ...(place.folderIds.length > 0 ? [g('p.folder_id', 'in', place.folderIds)] : []),
                ]),
              )
              .where((g) =>
                g.or([
                  g('p.user_id', '=', g.ref('u.id')),
                  g(
                    'p.group_id',
                    'in',
                    g
                      .selectFrom('group_members as m')
                      .select('m.group_id')
                      .whereRef('m.user_id', '=', 'u.id'),
                  ),
                ]),
              ),
          ),
        ]),
      ) as unknown as Audience;
  }

  private audience(tenantId: number, embedTenantId: number | null, place: WorkbookPlace): Audience {
    return embedTenantId === null
      ? this.accountUsers(tenantId, place)
      : this.embedUsers(tenantId, embedTenantId);
  }

  /** One page ordered by username; `search` matches a substring of the username or the email. */
  list(
    tenantId: number,
    embedTenantId: number | null,
    place: WorkbookPlace,
    search: string | undefined,
    window: PageWindow,
  ): Promise<(MentionableRow & KeysetRow)[]> {
    const username = embedTenantId === null ? sql`u.username` : sql`u.external_id`;
    let q = this.audience(tenantId, embedTenantId, place);
    if (search)
      q = q.where(
        sql<boolean>`(strpos(lower(coalesce(u.email, '')), lower(${search})) > 0 or strpos(lower(${username}), lower(${search})) > 0)`,
      );
    return pageByKeys(
      q,
      window,
      [
        { expression: username, cast: 'text' },
        { expression: sql`u.id`, cast: 'integer' },
      ],
      'asc',
    ).execute();
  }

  /** Which of these ids belong to the audience. */
  async members(
    tenantId: number,
    embedTenantId: number | null,
    place: WorkbookPlace,
    ids: number[],
  ): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.audience(tenantId, embedTenantId, place)
      .where(sql.ref('u.id'), 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }
}
