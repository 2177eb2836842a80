import type { Principal } from '../../auth/principal.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import { ForbiddenError } from '../../errors/domain-errors.ts';
import type { FolderTree } from '../folders/tree.ts';
import { atLeast, capByRole, maxLevel } from './levels.ts';
import type { ContentType } from './repository.ts';

export interface Placed {
  id: number;
  folder_id: number | null;
}

/**
 * What one caller may do in one deployment's workspace (DESIGN.md "Identity and access"):
 * levels are granted to users and groups on folders, workbooks and reports, a folder's level flows
 * down to everything inside it, tenant admins hold `manage` everywhere, and the account role caps
 * the result (levels.ts). Built from two reads (the folder tree and the caller's grants) so that
 * every check of a request is answered in memory and lists can filter in SQL.
 */
export class AccessContext {
  readonly isAdmin: boolean;
  private readonly folderLevels = new Map<number, ContentLevel | null>();
  private readonly direct: Record<ContentType, Map<number, ContentLevel>> = {
    FOLDER: new Map(),
    WORKBOOK: new Map(),
    REPORT: new Map(),
  };

  constructor(
    readonly principal: Principal,
    readonly deploymentId: number,
    readonly tree: FolderTree,
    grants: ContentPermissionRow[],
  ) {
    this.isAdmin = principal.role === 'admin';
    for (const g of grants) {
      const [type, id] =
        g.folder_id !== null
          ? (['FOLDER', g.folder_id] as const)
          : g.workbook_id !== null
            ? (['WORKBOOK', g.workbook_id] as const)
            : (['REPORT', g.report_id!] as const);
      const map = this.direct[type];
      map.set(id, maxLevel(map.get(id) ?? null, g.level)!);
    }
  }

  /** Inherited level on a folder: the best grant on it or any ancestor. `null` is the root. */
  folder(id: number | null): ContentLevel | null {
    if (this.isAdmin) return 'manage';
    if (id === null) return null;
    if (!this.folderLevels.has(id)) {
      let level: ContentLevel | null = null;
      for (const f of this.tree.ancestors(id)) level = maxLevel(level, this.direct.FOLDER.get(f.id) ?? null);
      this.folderLevels.set(id, capByRole(level, this.principal.role));
    }
    return this.folderLevels.get(id) ?? null;
  }

  /** Level on a workbook or report: its own grants or those of the folders it sits in. */
  item(type: 'WORKBOOK' | 'REPORT', row: Placed): ContentLevel | null {
    if (this.isAdmin) return 'manage';
    const own = capByRole(this.direct[type].get(row.id) ?? null, this.principal.role);
    return maxLevel(own, this.folder(row.folder_id));
  }

  /** Whether the caller may create content directly at the workspace root. */
  canWriteRoot(): boolean {
    return this.principal.role !== 'viewer';
  }

  require(held: ContentLevel | null, needed: ContentLevel, what: string) {
    if (!atLeast(held, needed)) {
      throw new ForbiddenError(`${what} needs ${needed} access`, 'content_access_denied');
    }
  }

  /** For list filters: folders the caller can view, and items granted to the caller directly. */
  visibility(type: ContentType): { folderIds: number[]; itemIds: number[] } | null {
    if (this.isAdmin) return null;
    const folderIds = this.tree.ids().filter((id) => this.folder(id) !== null);
    return { folderIds, itemIds: [...this.direct[type].keys()] };
  }
}
