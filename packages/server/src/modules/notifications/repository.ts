import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type {
  NotificationRecipientRow,
  NotificationRecipientsTable,
  NotificationRow,
  NotificationsTable,
} from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

export type NotificationWithDashboard = NotificationRow & { dashboard_public_id: string };

/** Who a list is narrowed to (the reference's recipient filters), already resolved to ids. */
export type RecipientFilter =
  | { kind: 'user'; userId: number; email: string | null }
  | { kind: 'email'; email: string }
  | { kind: 'embed'; embedUserId: number }
  | { kind: 'none' };

export interface NotificationListFilter {
  dashboardId: number | null;
  recipient: RecipientFilter | null;
}

/** Notifications and their recipients; plain Kysely, no rules. */
export class NotificationsRepository {
  constructor(private readonly db: Db) {}

  private withDashboard(db: Db) {
    return db
      .selectFrom('notifications as n')
      .innerJoin('dashboards as d', 'd.id', 'n.dashboard_id')
      .selectAll('n')
      .select('d.public_id as dashboard_public_id');
  }

  find(deploymentId: number, id: number, db: Db = this.db): Promise<NotificationWithDashboard | undefined> {
    return this.withDashboard(db)
      .where('n.deployment_id', '=', deploymentId)
      .where('n.id', '=', id)
      .executeTakeFirst();
  }

  /** Newest first (the reference's order), keyset on the id. */
  list(deploymentId: number, filter: NotificationListFilter, window: PageWindow) {
    let q = this.withDashboard(this.db).where('n.deployment_id', '=', deploymentId);
    if (filter.dashboardId !== null) q = q.where('n.dashboard_id', '=', filter.dashboardId);
    const r = filter.recipient;
    if (r !== null) {
      q = q.where(({ exists, selectFrom }) => {
        let sub = selectFrom('notification_recipients as r')
          .select('r.id')
          .whereRef('r.notification_id', '=', 'n.id');
        if (r.kind === 'user')
          sub = sub.where((eb) =>
            r.email === null
              ? eb('r.user_id', '=', r.userId)
              : eb.or([eb('r.user_id', '=', r.userId), eb(sql`lower(r.email)`, '=', r.email.toLowerCase())]),
          );
        else if (r.kind === 'email') sub = sub.where(sql`lower(r.email)`, '=', r.email.toLowerCase());
        else if (r.kind === 'embed') sub = sub.where('r.embed_user_id', '=', r.embedUserId);
        else sub = sub.where(sql<boolean>`false`);
        return exists(sub);
      });
    }
    q = q.orderBy('n.id', 'desc').limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('n.id', '<', cursorId(window.after));
    return q.execute();
  }

  async insert(values: Insertable<NotificationsTable>, db: Db = this.db): Promise<number> {
    const row = await db.insertInto('notifications').values(values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  async update(id: number, changes: Updateable<NotificationsTable>, db: Db = this.db): Promise<void> {
    await db
      .updateTable('notifications')
      .set({ ...changes, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Locks the notification row for an update, so that a concurrent scheduler pass waits for it. */
  lock(deploymentId: number, id: number, db: Db): Promise<NotificationRow | undefined> {
    return db
      .selectFrom('notifications')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Recipients, runs and deliveries go with it (ON DELETE CASCADE). */
  async delete(deploymentId: number, id: number, db: Db = this.db): Promise<boolean> {
    const r = await db
      .deleteFrom('notifications')
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /* Recipients */

  recipients(notificationId: number, window: PageWindow) {
    let q = this.recipientRows(this.db)
      .where('r.notification_id', '=', notificationId)
      .orderBy('r.id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('r.id', '<', cursorId(window.after));
    return q.execute();
  }

  /** Every recipient of a notification, with what sending to it needs. */
  allRecipients(notificationId: number, db: Db = this.db): Promise<RecipientWithNames[]> {
    return this.recipientRows(db).where('r.notification_id', '=', notificationId).orderBy('r.id').execute();
  }

  recipientsByKeys(notificationId: number, keys: string[], db: Db = this.db): Promise<RecipientWithNames[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.recipientRows(db)
      .where('r.notification_id', '=', notificationId)
      .where('r.recipient_key', 'in', keys)
      .execute();
  }

  private recipientRows(db: Db) {
    return db
      .selectFrom('notification_recipients as r')
      .leftJoin('users as u', 'u.id', 'r.user_id')
      .leftJoin('embed_users as eu', 'eu.id', 'r.embed_user_id')
      .leftJoin('embed_tenants as et', 'et.id', 'eu.embed_tenant_id')
      .selectAll('r')
      .select([
        'u.email as user_email',
        'u.username as user_username',
        'eu.external_id as embed_external_id',
        'eu.email as embed_email',
        'eu.display_name as embed_display_name',
        'eu.embed_tenant_id as embed_tenant_id',
        'et.name as embed_tenant_name',
      ]);
  }

  /** Inserts the recipient unless one with its key exists; answers the new row's id or undefined. */
  async insertRecipient(
    values: Insertable<NotificationRecipientsTable>,
    db: Db,
  ): Promise<number | undefined> {
    const row = await db
      .insertInto('notification_recipients')
      .values(values)
      .onConflict((oc) => oc.columns(['notification_id', 'recipient_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }

  async updateRecipient(id: number, changes: Updateable<NotificationRecipientsTable>, db: Db): Promise<void> {
    await db
      .updateTable('notification_recipients')
      .set({ ...changes, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  async deleteRecipients(
    notificationId: number,
    keys: string[],
    ids: number[],
    db: Db = this.db,
  ): Promise<RemovedRecipient[]> {
    if (keys.length === 0 && ids.length === 0) return [];
    return db
      .deleteFrom('notification_recipients')
      .where('notification_id', '=', notificationId)
      .where((eb) =>
        eb.or([
          ...(keys.length > 0 ? [eb('recipient_key', 'in', keys)] : []),
          ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        ]),
      )
      .returning(['type', 'user_id', 'email', 'embed_user_id', 'webhook_url'])
      .execute();
  }

  /* What the service resolves names with. */

  dashboardById(deploymentId: number, id: number, db: Db = this.db) {
    return db
      .selectFrom('dashboards')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  dashboardByPublicId(deploymentId: number, publicId: string, db: Db = this.db) {
    return db
      .selectFrom('dashboards')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('public_id', '=', publicId)
      .executeTakeFirst();
  }

  embedUser(tenantId: number, embedTenantName: string, externalId: string) {
    return this.db
      .selectFrom('embed_users as eu')
      .innerJoin('embed_tenants as et', 'et.id', 'eu.embed_tenant_id')
      .select(['eu.id', 'eu.email', 'eu.external_id'])
      .where('eu.tenant_id', '=', tenantId)
      .where('et.name', '=', embedTenantName)
      .where('eu.external_id', '=', externalId.trim().toLowerCase())
      .executeTakeFirst();
  }

  /** Global group names of the account that exist, out of `names`. */
  async existingGroups(tenantId: number, names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('groups')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .where('name', 'in', names)
      .execute();
    return new Set(rows.map((r) => r.name));
  }
}

export type RecipientWithNames = NotificationRecipientRow & {
  user_email: string | null;
  user_username: string | null;
  embed_external_id: string | null;
  embed_email: string | null;
  embed_display_name: string | null;
  embed_tenant_id: number | null;
  embed_tenant_name: string | null;
};

/** What the audit entry of a removal names of each removed recipient (recipients.ts). */
export interface RemovedRecipient {
  type: string;
  user_id: number | null;
  email: string | null;
  embed_user_id: number | null;
  webhook_url: string | null;
}
