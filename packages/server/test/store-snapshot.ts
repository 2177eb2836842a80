import { sql } from 'kysely';
import type { TestServer } from './harness.ts';

/** The tables a management or SCIM request can write. */
const tables = [
  'tenants',
  'users',
  'groups',
  'group_members',
  'api_keys',
  'deployments',
  'environments',
  'model_files',
  'model_upload_sessions',
  'model_upload_files',
  'folders',
  'workbooks',
  'reports',
  'dashboards',
  'dashboard_versions',
  'report_snapshots',
  'content_permissions',
  'app_configs',
  'embed_settings',
  'embed_tenants',
  'embed_users',
  'embed_groups',
  'embed_group_members',
  'embed_user_groups',
  'embed_sessions',
  'embed_access',
  'notifications',
  'notification_recipients',
  'notification_runs',
  'notification_deliveries',
  'roles',
  'user_roles',
  'query_history',
  'oauth_integrations',
  'user_oauth_tokens',
  'oauth_flows',
  'oidc_token_configs',
  'oidc_signing_keys',
  'user_attributes',
  'user_attribute_values',
  'audit_log',
] as const;

/**
 * Tables that only ever gain rows (the audit log): a write shows as a new count and largest id.
 * Reading them whole made each snapshot grow with every audited write before it.
 */
const appendOnly = new Set<string>(['audit_log']);

async function appendOnlyMark(server: TestServer, table: string): Promise<string> {
  const { rows } = await sql<{ n: string; last: string | null }>`
    select count(*)::text as n, max(id)::text as last from ${sql.table(table)}`.execute(server.store.db);
  return `${table}: ${rows[0]?.n} rows, last ${rows[0]?.last}`;
}

/**
 * Every row of every table as text: compare a snapshot taken before a refused request with one
 * taken after to see that nothing was written.
 */
export async function storeSnapshot(server: TestServer): Promise<string> {
  // Only the requests under test may write: the embed sweeper's pass (every minute) deletes
  // finished sessions, which a slow run would see as a refused request's write. Stopping is
  // idempotent; the notification scheduler is off in test servers already.
  await server.services.embedSweeper.stop();
  const parts = await Promise.all(
    tables.map((t) =>
      appendOnly.has(t)
        ? appendOnlyMark(server, t)
        : server.store.db
            .selectFrom(t)
            .selectAll()
            .execute()
            // Sorted: an UPDATE that changes nothing the snapshot keeps (a key's last use) still
            // moves the row in the heap, and a scan without ORDER BY returns rows in heap order.
            .then((rows) => JSON.stringify(rows.map((row) => JSON.stringify(stripUsage(row))).sort())),
    ),
  );
  return parts.join('\n');
}

/** last_used_at moves when a key authenticates; it is bookkeeping, not a write of the request. */
function stripUsage(row: Record<string, unknown>) {
  const { last_used_at: _ignored, ...rest } = row;
  return rest;
}
