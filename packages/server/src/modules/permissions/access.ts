import type { EmbedGrant, Principal } from '../../auth/principal.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import type { CodeWithStatus } from '../../errors/catalogue.ts';
import { type DomainError, ForbiddenError, NotFoundError } from '../../errors/domain-errors.ts';
import type { FolderTree } from '../folders/tree.ts';
import { atLeast, capByRole, maxLevel } from './levels.ts';
import type { ContentType } from './repository.ts';

/**
 * Whom the content checks judge: a request's `Principal`, or a `Viewer` (dashboard-data/viewer.ts)
 * built without a credential, as the notification scheduler builds one (issue 22 item 0).
 */
export type AccessSubject = Pick<Principal, 'tenantId' | 'userId' | 'role'> & {
  embed?: Pick<EmbedGrant, 'embedUserId' | 'embedTenantId' | 'creatorMode'>;
};

export interface Placed {
  id: number;
  folder_id: number | null;
  /** Migration 0015: the embed tenant space the item lives in (creator mode); null or absent: none. */
  embed_tenant_id?: number | null;
}

/**
 * What an access check is about: `name` for its 403, and `missing`, the error the caller gets when
 * the item does not exist. An embed token gets that same error for an item it may not see, so that
 * no answer tells another tenant's item from one that does not exist (spec 4.3 rule 2).
 */
export interface Subject {
  readonly name: string;
  readonly missing: () => DomainError;
}

const contentLabels = { FOLDER: 'Folder', WORKBOOK: 'Workbook', REPORT: 'Report' } as const;
const contentNotFound = {
  FOLDER: 'folder_not_found',
  WORKBOOK: 'workbook_not_found',
  REPORT: 'report_not_found',
} as const satisfies Record<ContentType, CodeWithStatus<404>>;

/** A folder, workbook or report named in a path: missing is its own 404 (`workbook_not_found`, ...). */
export function contentSubject(type: ContentType, id: number): Subject {
  const name = `${contentLabels[type]} ${id}`;
  return { name, missing: () => new NotFoundError(name, contentNotFound[type]) };
}

/** A published dashboard, checked on its workbook: missing, it answers as an unknown public id. */
export function dashboardSubject(publicId: string, workbookId: number): Subject {
  return {
    name: `Workbook ${workbookId}`,
    missing: () => new NotFoundError(`Dashboard ${publicId}`, 'dashboard_not_found'),
  };
}

/** Who owns what a caller creates: an account user, or an embed user inside its tenant's space. */
export interface Owner {
  userId: number | null;
  embedUserId: number | null;
  embedTenantId: number | null;
}

/**
 * What one caller may do in one deployment's workspace (DESIGN.md "Identity and access"):
 * levels are granted to users and groups on folders, workbooks and reports, a folder's level flows
 * down to everything inside it, tenant admins hold `manage` everywhere, and the account role caps
 * the result (levels.ts). Built from two reads (the folder tree and the caller's grants) so that
 * every check of a request is answered in memory and lists can filter in SQL.
 *
 * An embed token in creator mode (spec 4.3 rules 1 and 2) is a caller of its own kind: it holds
 * only what is granted to its embed user or its embed tenant groups, only on items of its own
 * tenant's space, never through folders, uncapped by its viewer role; what it cannot see is 404,
 * so another tenant's content does not even show that it exists.
 */
export class AccessContext {
  readonly isAdmin: boolean;
  private readonly folderLevels = new Map<number, ContentLevel | null>();
  private readonly direct: Record<ContentType, Map<number, ContentLevel>> = {
    FOLDER: new Map(),
    WORKBOOK: new Map(),
    REPORT: new Map(),
  };

  /** The embed tenant whose space an embed token works in; undefined for account credentials. */
  readonly embedTenantId: number | null | undefined;

  constructor(
    readonly principal: AccessSubject,
    readonly deploymentId: number,
    readonly tree: FolderTree,
    grants: ContentPermissionRow[],
    /**
     * Workbooks an admin shared with this embed token's tenant or with every embed user (Dashboard
     * Embed Access, the reference's shared workspace): a creator views them, in no tenant's space.
     */
    private readonly embedShared: ReadonlySet<number> = new Set(),
  ) {
    this.isAdmin = principal.role === 'admin' && !principal.embed;
    this.embedTenantId = principal.embed ? principal.embed.embedTenantId : undefined;
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
    if (id === null || this.embedTenantId !== undefined) return null;
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
    if (this.embedTenantId !== undefined) {
      if (this.embedTenantId === null) return null;
      if (row.embed_tenant_id === this.embedTenantId) return this.direct[type].get(row.id) ?? null;
      return type === 'WORKBOOK' && !row.embed_tenant_id && this.embedShared.has(row.id) ? 'view' : null;
    }
    const own = capByRole(this.direct[type].get(row.id) ?? null, this.principal.role);
    return maxLevel(own, this.folder(row.folder_id));
  }

  /** Whether the caller may create content directly at the workspace root. */
  canWriteRoot(): boolean {
    if (this.embedTenantId !== undefined)
      return this.embedTenantId !== null && this.principal.embed!.creatorMode;
    return this.principal.role !== 'viewer';
  }

  /** The owner of what this caller creates (the creator gets manage on it). */
  owner(): Owner {
    const embed = this.principal.embed;
    return embed
      ? { userId: null, embedUserId: embed.embedUserId, embedTenantId: embed.embedTenantId }
      : { userId: this.principal.userId, embedUserId: null, embedTenantId: null };
  }

  /**
   * At least `needed` on `what`, or 403; an embed token that may not see it at all gets what a
   * missing one answers (`Subject.missing`; a bare name: `not_found`).
   */
  require(held: ContentLevel | null, needed: ContentLevel, what: Subject | string) {
    const subject = typeof what === 'string' ? { name: what, missing: () => new NotFoundError(what) } : what;
    if (this.hides(held)) throw subject.missing();
    if (!atLeast(held, needed)) {
      throw new ForbiddenError(`${subject.name} needs ${needed} access`, 'content_access_denied');
    }
  }

  /** Whether the caller must not learn that an item it holds `held` on exists (embed tokens, 404). */
  hides(held: ContentLevel | null): boolean {
    return held === null && this.embedTenantId !== undefined;
  }

  /** For list filters: folders the caller can view, and items granted to the caller directly. */
  visibility(type: ContentType): { folderIds: number[]; itemIds: number[] } | null {
    if (this.isAdmin) return null;
    if (this.embedTenantId !== undefined) {
      const shared = type === 'WORKBOOK' ? [...this.embedShared] : [];
      return { folderIds: [], itemIds: [...this.direct[type].keys(), ...shared] };
    }
    const folderIds = this.tree.ids().filter((id) => this.folder(id) !== null);
    return { folderIds, itemIds: [...this.direct[type].keys()] };
  }

  /**
   * For the shared workspace (the reference's `GET /shared-workspace`): an embed token sees what is
   * shared with its tenant's embed users (all embed users or its tenant, Dashboard Embed Access),
   * the same set for every caller of the tenant, not its own space; account callers, `visibility`.
   */
  sharedVisibility(type: ContentType): { folderIds: number[]; itemIds: number[] } | null {
    if (this.embedTenantId === undefined) return this.visibility(type);
    return { folderIds: [], itemIds: type === 'WORKBOOK' ? [...this.embedShared] : [] };
  }
}
