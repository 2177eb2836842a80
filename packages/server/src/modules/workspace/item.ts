import type { Static } from 'typebox';
import type { FolderTree } from '../folders/tree.ts';
import type { ContentType } from '../permissions/content.ts';
import type { ResourceOwner } from './common.ts';
import type { WorkspaceItem } from './schemas.ts';

/** What a workspace item is built from, whichever table holds it. */
export interface ItemSource<T extends ContentType> {
  type: T;
  id: number;
  deploymentId: number;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  /** Only workbooks have calculated fields; the others answer `{}`. */
  calculatedFields?: Record<string, unknown>;
  meta: Record<string, unknown> | null;
  createdBy: number | null;
  folderId: number | null;
  slug: string | null;
  userId: number | null;
  user: Static<typeof ResourceOwner> | null;
}

export type Item<T extends ContentType = ContentType> = Static<typeof WorkspaceItem> & { type: T };

/**
 * The workspace item of spec 2.1, the one shape of a folder, workbook or report in the workspace
 * listing, a move's answer and (with its dashboard fields) a workbook. Favourites are not kept.
 */
export function workspaceItem<T extends ContentType>(s: ItemSource<T>, tree: FolderTree): Item<T> {
  return {
    id: s.id,
    deploymentId: s.deploymentId,
    name: s.name,
    type: s.type,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    calculatedFields: s.calculatedFields ?? {},
    meta: s.meta ?? {},
    createdBy: s.createdBy,
    folderId: s.folderId,
    folderPath: tree.path(s.folderId),
    isFavorite: null,
    slug: s.slug,
    userId: s.userId,
    user: s.user,
  };
}
