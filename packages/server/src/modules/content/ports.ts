import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { ContentLevel, ContentPermissionRow } from '../../db/schema.ts';
import type { PublishOptions } from '../dashboards/service.ts';
import type { CreateNotificationBody, UpdateNotificationBody } from '../notifications/schemas.ts';
import type { AccessContext } from '../permissions/access.ts';
import type { ContentTarget } from '../permissions/content.ts';
import type { ReportWithOwner } from '../reports/records.ts';
import type { CreateReportBody } from '../reports/schemas.ts';
import type { WorkbookWithOwner } from '../workbooks/records.ts';

/**
 * What content apply (modules/content) uses of the other modules: each service's own checks and
 * writes, run in apply's one transaction (issue 25 item 6: "through the same services and rules as
 * the API"). composition.ts wires the services themselves.
 */
export interface ContentAccess {
  resolve(principal: Principal, deploymentId: number, db?: Db): Promise<AccessContext>;
}

export interface FolderWriter {
  createWithin(
    ctx: AccessContext,
    principal: Principal,
    input: { parentId: number | null; name: string; position: number },
    trx: Db,
  ): Promise<number>;
  updateWithin(
    ctx: AccessContext,
    principal: Principal,
    folderId: number,
    changes: { name?: string; position?: number },
    trx: Db,
  ): Promise<void>;
  deleteWithin(ctx: AccessContext, principal: Principal, folderId: number, trx: Db): Promise<void>;
}

export interface WorkbookWriter {
  require(deploymentId: number, id: number, db?: Db): Promise<WorkbookWithOwner>;
  createWithin(
    ctx: AccessContext,
    principal: Principal,
    input: {
      folderId: number | null;
      name: string;
      slug: string;
      meta: Record<string, unknown>;
      calculatedFields: Record<string, unknown>;
      dashboardDraft: Record<string, unknown> | null;
    },
    trx: Db,
  ): Promise<number>;
  updateWithin(
    ctx: AccessContext,
    principal: Principal,
    row: WorkbookWithOwner,
    input: {
      name?: string;
      folderId?: number | null;
      meta?: Record<string, unknown>;
      calculatedFields?: Record<string, unknown>;
      dashboardDraft?: Record<string, unknown> | null;
    },
    trx: Db,
  ): Promise<void>;
  deleteWithin(ctx: AccessContext, principal: Principal, id: number, trx: Db): Promise<void>;
}

export interface ReportWriter {
  require(deploymentId: number, id: number, viewerId: number, db?: Db): Promise<ReportWithOwner>;
  createWithin(
    ctx: AccessContext,
    principal: Principal,
    input: Static<typeof CreateReportBody>,
    trx: Db,
  ): Promise<number>;
  updateWithin(
    ctx: AccessContext,
    principal: Principal,
    row: ReportWithOwner,
    input: Static<typeof CreateReportBody>,
    trx: Db,
  ): Promise<void>;
  deleteWithin(ctx: AccessContext, principal: Principal, id: number, trx: Db): Promise<void>;
}

export interface DashboardPublisher {
  publishWithin(
    principal: Principal,
    ctx: AccessContext,
    workbook: WorkbookWithOwner,
    config: Record<string, unknown>,
    options: PublishOptions,
    trx: Db,
  ): Promise<unknown>;
}

export interface NotificationWriter {
  createWithin(
    principal: Principal,
    deploymentId: number,
    body: Static<typeof CreateNotificationBody>,
    trx: Db,
    contentKey?: string | null,
  ): Promise<number>;
  updateWithin(
    principal: Principal,
    deploymentId: number,
    id: number,
    body: Static<typeof UpdateNotificationBody>,
    trx: Db,
  ): Promise<void>;
  deleteWithin(principal: Principal, deploymentId: number, id: number, trx: Db): Promise<void>;
}

export interface GrantWriter {
  grantWithin(
    ctx: AccessContext,
    principal: Principal,
    target: ContentTarget,
    grantee: { userId: number } | { groupId: number },
    level: ContentLevel,
    trx: Db,
  ): Promise<void>;
  revokeWithin(ctx: AccessContext, principal: Principal, row: ContentPermissionRow, trx: Db): Promise<void>;
}

/** The folder tree's lock (folders/repository.ts): deleting folders needs it held. */
export interface TreeLock {
  lockTree(deploymentId: number, db: Db): Promise<void>;
}

/** The deployment must be the caller's tenant's (404 otherwise). */
export interface DeploymentCheck {
  require(tenantId: number, deploymentId: number): Promise<unknown>;
}
