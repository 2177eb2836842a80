import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import type { AuditLogRow } from '../../db/schema.ts';
import { ValidationError } from '../../errors/domain-errors.ts';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.ts';
import { cursorId, defaultPageSize } from '../../pagination/page.ts';
import { redactSecrets } from './redact.ts';
import type { AuditFilter, AuditLogRepository } from './repository.ts';
import type { AuditEntry, AuditExportQuery, AuditListQuery, AuditListResponse } from './schemas.ts';

/** What a service says it changed: `after` null for a removal, `before` null for a creation. */
export interface AuditChange {
  /** `<targetType>.<verb>`, e.g. `user.update`. */
  action: string;
  targetType: string;
  targetId: string | number | null;
  before?: unknown;
  after?: unknown;
  /** Recorded even while the tenant's audit log is off: the change that turns it on or off. */
  always?: boolean;
}

/** The tenant settings' audit-log switch (modules/tenant-settings), read in the change's transaction. */
export interface AuditSwitch {
  auditLogEnabled(tenantId: number, db: Db): Promise<boolean>;
}

type Entry = Static<typeof AuditEntry>;

/**
 * The audit log (issue 22 item 5). Services call `record` inside the transaction of the change
 * they make, with the request's principal (who, with which credential, in which request: the
 * auth hook sets `requestId`), so that the change and its entry commit or roll back together.
 * Secrets never reach the log (redact.ts). Admins list and filter it, and export it as JSON lines.
 */
export class AuditLog {
  constructor(
    private readonly repository: AuditLogRepository,
    private readonly settings: AuditSwitch,
  ) {}

  /**
   * Writes the entry in `trx`, unless the tenant turned its audit log off (tenant settings
   * `auditLogEnabled`, reference group Tenant Settings): then the change is made and not recorded.
   */
  async record(trx: Db, principal: Principal, change: AuditChange): Promise<void> {
    if (!change.always && !(await this.settings.auditLogEnabled(principal.tenantId, trx))) return;
    await this.repository.insert(
      {
        tenantId: principal.tenantId,
        actorUserId: principal.userId > 0 ? principal.userId : null,
        credentialKind: principal.credentialId === 0 ? null : principal.credentialKind,
        credentialId: principal.credentialId > 0 ? principal.credentialId : null,
        requestId: principal.requestId ?? null,
        action: change.action,
        targetType: change.targetType,
        targetId: change.targetId === null ? null : String(change.targetId),
        before: redactSecrets(change.before ?? null),
        after: redactSecrets(change.after ?? null),
      },
      trx,
    );
  }

  async list(
    principal: Principal,
    query: Static<typeof AuditListQuery>,
  ): Promise<Static<typeof AuditListResponse>> {
    const size = query.first ?? defaultPageSize;
    const filter = filterOf(query);
    if (query.after !== undefined) filter.beforeId = cursorId(decodeCursor(query.after, 1));
    const rows = await this.repository.list(principal.tenantId, filter, size + 1);
    const page = rows.slice(0, size);
    const first = page[0];
    const last = page[page.length - 1];
    return {
      items: page.map(entryView),
      pageInfo: {
        hasNextPage: rows.length > size,
        hasPreviousPage: query.after !== undefined,
        startCursor: first ? encodeCursor([Number(first.id)]) : null,
        endCursor: last ? encodeCursor([Number(last.id)]) : null,
      },
    };
  }

  /**
   * Every matching entry, newest first, one JSON object per line, read in batches of 500. The
   * filters are checked before the first line, so that bad ones answer 400, not a broken stream.
   */
  exportLines(principal: Principal, query: Static<typeof AuditExportQuery>): AsyncGenerator<string> {
    const filter = filterOf(query);
    return this.lines(principal.tenantId, filter);
  }

  private async *lines(tenantId: number, filter: AuditFilter): AsyncGenerator<string> {
    for (;;) {
      const rows = await this.repository.list(tenantId, filter, 500);
      for (const row of rows) yield `${JSON.stringify(entryView(row))}\n`;
      const last = rows[rows.length - 1];
      if (rows.length < 500 || !last) return;
      filter.beforeId = Number(last.id);
    }
  }
}

function filterOf(query: Static<typeof AuditExportQuery>): AuditFilter {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && from.getTime() > to.getTime())
    throw new ValidationError('The time range is empty', [
      { field: 'querystring/to', message: 'must not be before from' },
    ]);
  return {
    action: query.action,
    targetType: query.targetType,
    targetId: query.targetId,
    actorUserId: query.actorUserId,
    requestId: query.requestId,
    from,
    to,
  };
}

export function entryView(row: AuditLogRow): Entry {
  return {
    id: Number(row.id),
    occurredAt: row.occurred_at.toISOString(),
    actor: {
      userId: row.actor_user_id,
      email: row.actor_email,
      credentialKind: row.credential_kind,
      credentialId: row.credential_id,
    },
    requestId: row.request_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    before: row.before ?? null,
    after: row.after ?? null,
  };
}
