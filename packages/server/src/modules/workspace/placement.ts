import { notAFolder } from '../folders/service.ts';
import type { AccessContext } from '../permissions/access.ts';

/**
 * Where new or moved content may go: a folder of this deployment (400 otherwise)
 * with at least `needed` access on it, or the workspace root for accounts that may write there.
 */
export function checkDestination(
  ctx: AccessContext,
  folderId: number | null,
  field: string,
  needed: 'edit' | 'manage' = 'edit',
) {
  if (folderId === null) {
    if (!ctx.canWriteRoot()) ctx.require(null, 'edit', 'The workspace root');
    return;
  }
  if (!ctx.tree.get(folderId)) throw notAFolder(field, folderId);
  // A folder the caller may not see answers as one that does not exist (AccessContext.require).
  const missing = () => notAFolder(field, folderId);
  ctx.require(ctx.folder(folderId), needed, { name: `Folder ${folderId}`, missing });
}
