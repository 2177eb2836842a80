import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import * as foundation from './migrations/0001-foundation.ts';
import * as scim from './migrations/0002-scim.ts';
import * as changeNotifications from './migrations/0003-change-notifications.ts';
import * as data from './migrations/0004-data.ts';
import * as workspace from './migrations/0005-workspace.ts';
import * as modelUploads from './migrations/0006-model-uploads.ts';
import * as snapshotQueries from './migrations/0007-snapshot-queries.ts';
import * as embed from './migrations/0008-embed.ts';
import * as chat from './migrations/0009-chat.ts';
import * as signIn from './migrations/0010-sign-in.ts';
import * as notifications from './migrations/0011-notifications.ts';
import * as chatLeases from './migrations/0012-chat-leases.ts';
import * as restrictDataDownload from './migrations/0013-restrict-data-download.ts';
import * as preAggregations from './migrations/0014-pre-aggregations.ts';
import * as embedCreatorContent from './migrations/0015-embed-creator-content.ts';
import * as tenantSettings from './migrations/0016-tenant-settings.ts';
import * as envVariables from './migrations/0017-env-variables.ts';
import * as queryHistory from './migrations/0018-query-history.ts';
import * as roles from './migrations/0020-roles.ts';
import * as userAttributes from './migrations/0022-user-attributes.ts';
import * as auditLog from './migrations/0023-audit-log.ts';
import * as oauthIntegrations from './migrations/0024-oauth-integrations.ts';
import * as oidc from './migrations/0025-oidc.ts';
import * as auditLogSettings from './migrations/0026-audit-log-settings.ts';
import * as groupRoles from './migrations/0027-group-roles.ts';
import * as dashboardDraftVersion from './migrations/0028-dashboard-draft-version.ts';
import * as commentsAndTokens from './migrations/0030-comments-and-tokens.ts';
import * as deploymentLogsVersionsPlacements from './migrations/0031-deployment-logs-versions-placements.ts';
import * as dbtSync from './migrations/0032-dbt-sync.ts';
import * as contentKeys from './migrations/0033-content-keys.ts';
import * as alerts from './migrations/0034-alerts.ts';
import * as usageAnalytics from './migrations/0035-usage-analytics.ts';
import * as usageDataQueries from './migrations/0036-usage-data-queries.ts';
import * as modelGit from './migrations/0037-model-git.ts';
import * as alertChannels from './migrations/0038-alert-channels.ts';

/** Migrations are listed in code (not read from disk) so that they work the same from any cwd. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-scim': scim,
  '0003-change-notifications': changeNotifications,
  '0004-data': data,
  '0005-workspace': workspace,
  '0006-model-uploads': modelUploads,
  '0007-snapshot-queries': snapshotQueries,
  '0008-embed': embed,
  '0009-chat': chat,
  '0010-sign-in': signIn,
  '0011-notifications': notifications,
  '0012-chat-leases': chatLeases,
  '0013-restrict-data-download': restrictDataDownload,
  '0014-pre-aggregations': preAggregations,
  '0015-embed-creator-content': embedCreatorContent,
  '0016-tenant-settings': tenantSettings,
  '0017-env-variables': envVariables,
  '0018-query-history': queryHistory,
  '0020-roles': roles,
  '0024-oauth-integrations': oauthIntegrations,
  '0025-oidc': oidc,
  '0022-user-attributes': userAttributes,
  '0023-audit-log': auditLog,
  '0027-group-roles': groupRoles,
  '0030-comments-and-tokens': commentsAndTokens,
  '0026-audit-log-settings': auditLogSettings,
  '0028-dashboard-draft-version': dashboardDraftVersion,
  '0031-deployment-logs-versions-placements': deploymentLogsVersionsPlacements,
  '0032-dbt-sync': dbtSync,
  '0033-content-keys': contentKeys,
  '0035-usage-analytics': usageAnalytics,
  '0034-alerts': alerts,
  '0036-usage-data-queries': usageDataQueries,
  '0037-model-git': modelGit,
  '0038-alert-channels': alertChannels,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  if (await upToDate(db)) return [];
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether exactly the migrations listed here are applied: what every start but the first after
 * an upgrade finds. One query (36 ms of CPU on a PGlite just opened), where the Migrator
 * introspects the catalog, creates its lock table and locks it in a transaction (0.7 to 0.9 s
 * there, on a busy machine; issue 20, item 6). Anything else (no table yet, a migration to
 * apply, one applied that the code does not know) is the Migrator's to do or to report.
 */
async function upToDate(db: Kysely<unknown>): Promise<boolean> {
  const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration`
    .execute(db)
    .then(({ rows }) => new Set(rows.map((r) => r.name)))
    .catch(() => null);
  const listed = Object.keys(migrations);
  return applied?.size === listed.length && listed.every((name) => applied.has(name));
}
