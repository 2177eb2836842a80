import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import { pageWindow, toPage } from '../../pagination/page.ts';
import { contentSubject } from '../permissions/access.ts';
import { type ContentType, contentTypes } from '../permissions/content.ts';
import { noOwner, ownerFields } from '../permissions/owner-privacy.ts';
import type { AccessResolver } from '../permissions/resolver.ts';
import { rootIfZero } from './common.ts';
import { workspaceItem } from './item.ts';
import { keysetCursor, type WorkspaceRepository } from './repository.ts';
import type { WorkspaceQuery } from './schemas.ts';

/**
 * `GET .../workspace` and `GET .../shared-workspace`: one level of the tree (or a search across
 * it), only what the caller can view. The shared workspace holds what others own and the caller
 * can view (for an embed token: what is shared with its tenant's embed users); owner identities
 * are blanked there (the reference), and elsewhere as permissions/owner-privacy.ts says.
 */
export class WorkspaceService {
  constructor(private readonly deps: { access: AccessResolver; repository: WorkspaceRepository }) {}

  async list(
    principal: Principal,
    deploymentId: number,
    query: Static<typeof WorkspaceQuery>,
    shared = false,
  ) {
    const ctx = await this.deps.access.resolve(principal, deploymentId);
    const folderId = rootIfZero(query.folderId) ?? null;
    if (folderId !== null && !ctx.tree.get(folderId))
      throw new NotFoundError(`Folder ${folderId}`, 'folder_not_found');
    if (folderId !== null) ctx.require(ctx.folder(folderId), 'view', contentSubject('FOLDER', folderId));
    const types = (query.types?.split(',') as ContentType[] | undefined) ?? [...contentTypes];
    const window = pageWindow(query, 3);
    const rows = await this.deps.repository.list(
      {
        ctx,
        // An embed token cannot walk the host's folders (it views none): its shared feed is flat.
        folderId:
          (query.search || (shared && principal.embed)) && query.folderId === undefined
            ? undefined
            : folderId,
        types,
        search: query.search,
        sharedWith: shared ? principal.userId : undefined,
      },
      window,
    );
    return toPage(rows, window, keysetCursor, (r) =>
      workspaceItem(
        {
          type: r.type,
          id: r.id,
          deploymentId,
          name: r.name,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
          calculatedFields: r.calculated_fields,
          meta: r.meta,
          folderId: r.folder_id,
          slug: r.slug,
          ...(shared ? noOwner : ownerFields(ctx, { ...r, created_by: r.user_id })),
        },
        ctx.tree,
      ),
    );
  }
}
