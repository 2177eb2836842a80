import type { DashboardConfig, DashboardDraft } from '@tessera/dashboard';
import type { CubeQuery } from '@tessera/semantic';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Kysely table types. One migration set serves PGlite and PostgreSQL (DESIGN.md "Persistence"). */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** A JSON document the SCIM module keeps beside the columns of users and groups (migration 0002-scim). */
export type ScimDocument = Record<string, unknown>;
type ScimDocumentColumn = ColumnType<ScimDocument, string | undefined, string>;

export const accountRoles = ['admin', 'developer', 'viewer'] as const;
export type AccountRole = (typeof accountRoles)[number];

export const credentialKinds = ['api', 'scim'] as const;
export type CredentialKind = (typeof credentialKinds)[number];

export interface TenantsTable {
  id: Generated<number>;
  name: string;
  display_name: string;
  custom_domain: string | null;
  embed_enabled: Generated<boolean>;
  /** The chat plan feature (migration 0009-chat): on unless turned off. */
  chat_enabled: Generated<boolean>;
  created_at: CreatedAt;
}

export interface UsersTable extends UsersSettingsColumn {
  id: Generated<number>;
  tenant_id: number;
  email: string;
  username: string;
  first_name: string | null;
  last_name: string | null;
  picture: string | null;
  role: AccountRole;
  external_id: string | null;
  is_deactivated: Generated<boolean>;
  /** The SCIM attributes without a column of their own (modules/scim/user-mapping.ts). */
  scim: ScimDocumentColumn;
  /** argon2id PHC string (migration 0010-sign-in); null: the user cannot sign in with a password. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface GroupsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  description: string | null;
  external_id: string | null;
  /** SCIM's own data about the group: the member displays a client gave (modules/scim/group-mapping.ts). */
  scim: ScimDocumentColumn;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface GroupMembersTable {
  group_id: number;
  user_id: number;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  tenant_id: number;
  user_id: number;
  name: string;
  kind: CredentialKind;
  key_hash: string;
  key_prefix: string;
  /** null: every deployment of the tenant (spec section 5 rule 1). */
  deployment_ids: number[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: CreatedAt;
}

export interface DeploymentsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  data_source: Json<DataSourceSettings>;
  /** The data-API JWT secret, encrypted at rest. */
  api_secret_enc: string;
  base_path: string;
  creation_step: Generated<string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * A data source as stored: `type` names its warehouse kind (datasources/kinds/), whose own
 * settings follow; each secret is sealed as `<field>Enc`, never returned by the API.
 */
export interface DataSourceSettings {
  type: string;
  [field: string]: unknown;
}

export interface EnvironmentsTable {
  id: Generated<number>;
  deployment_id: number;
  type: 'production' | 'staging' | 'development';
  branch: string;
  user_id: number | null;
  created_at: CreatedAt;
}

export interface ModelFilesTable {
  id: Generated<number>;
  deployment_id: number;
  branch: string;
  path: string;
  content: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  api_keys: ApiKeysTable;
  deployments: DeploymentsTable;
  environments: EnvironmentsTable;
  model_files: ModelFilesTable;
}

export type TenantRow = Selectable<TenantsTable>;
export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type DeploymentRow = Selectable<DeploymentsTable>;
export type EnvironmentRow = Selectable<EnvironmentsTable>;
export type ModelFileRow = Selectable<ModelFilesTable>;
export type NewUser = Insertable<UsersTable>;

/* Workspace content (migration 0005-workspace, modules/folders, workbooks, reports, dashboards). */

export const contentLevels = ['view', 'edit', 'manage'] as const;
export type ContentLevel = (typeof contentLevels)[number];

export const dashboardStatuses = ['draft', 'published', 'archived'] as const;
export type DashboardStatus = (typeof dashboardStatuses)[number];

type JsonOrNull<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface FoldersTable {
  id: Generated<number>;
  deployment_id: number;
  parent_id: number | null;
  name: string;
  position: Generated<number>;
  created_by: number | null;
  updated_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WorkbooksTable {
  id: Generated<number>;
  deployment_id: number;
  folder_id: number | null;
  name: string;
  slug: string | null;
  meta: ColumnType<Record<string, unknown>, string | undefined, string>;
  calculated_fields: ColumnType<Record<string, unknown>, string | undefined, string>;
  /** Spec 2.2, as saved (packages/dashboard): widgets may still lack their ids. */
  dashboard_draft: JsonOrNull<DashboardDraft>;
  user_id: number | null;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Migration 0015: the embed tenant whose creator-mode space holds it; null outside any. */
  embed_tenant_id: Generated<number | null>;
  /** Migration 0015: the embed user who owns it (creator mode), where an account user's is user_id. */
  embed_user_id: Generated<number | null>;
  /** Migration 0028: how many times the draft was saved; a save based on an older one gets 409. */
  draft_version: Generated<number>;
  /** Migration 0028: who saved the draft last, and when (null before any save since 0028). */
  draft_saved_by: Generated<number | null>;
  draft_saved_at: Generated<Date | null>;
}

export interface ReportsTable {
  id: Generated<number>;
  deployment_id: number;
  folder_id: number | null;
  workbook_id: number | null;
  public_id: string;
  name: string;
  title: string | null;
  description: string | null;
  sql_query: string | null;
  json_query: string | null;
  spec: JsonOrNull<unknown>;
  kind: Generated<string>;
  column_formats: JsonOrNull<Record<string, unknown>>;
  fill_missing_rows: JsonOrNull<{ member: string; excludedDimensions?: string[] | null }>;
  meta: JsonOrNull<Record<string, unknown>>;
  version: Generated<number>;
  user_id: number | null;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Migration 0015: as WorkbooksTable. */
  embed_tenant_id: Generated<number | null>;
  embed_user_id: Generated<number | null>;
  /** Migration 0031: who refreshed the report last (connect-workbook/refresh), and when. */
  refreshed_by: Generated<number | null>;
  refreshed_at: Generated<Date | null>;
}

export interface ReportViewsTable {
  report_id: number;
  user_id: number;
  viewed_at: UpdatedAt;
}

export interface DashboardsTable {
  id: Generated<number>;
  deployment_id: number;
  workbook_id: number;
  public_id: string;
  allow_embed: Generated<boolean>;
  from_shared_workspace: Generated<boolean>;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface DashboardVersionsTable {
  id: Generated<number>;
  dashboard_id: number;
  version_number: number;
  status: DashboardStatus;
  title: string | null;
  description: string | null;
  /** Spec 2.2, as published (packages/dashboard): checked by its schema, every widget typed. */
  config: Json<DashboardConfig>;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface ReportSnapshotsTable {
  id: Generated<number>;
  dashboard_version_id: number;
  report_id: number;
  version_number: number;
  name: string | null;
  title: string | null;
  description: string | null;
  kind: Generated<string>;
  spec: JsonOrNull<unknown>;
  sql_query: string | null;
  /**
   * The report's semantic query (its `jsonQuery`), migration 0007. A `json` column: it keeps the
   * text as written, so key order (a Cube query's `order` object) survives; written as that text.
   */
  semantic_query: JsonOrNull<CubeQuery>;
  meta: JsonOrNull<Record<string, unknown>>;
  preferences: JsonOrNull<Record<string, unknown>>;
  fill_missing_rows: JsonOrNull<{ member: string; excludedDimensions?: string[] | null }>;
}

export interface ContentPermissionsTable {
  id: Generated<number>;
  deployment_id: number;
  folder_id: number | null;
  workbook_id: number | null;
  report_id: number | null;
  user_id: number | null;
  group_id: number | null;
  /** Migration 0015: grants to an embed user or an embed tenant group (creator mode). */
  embed_user_id: Generated<number | null>;
  embed_group_id: Generated<number | null>;
  level: ContentLevel;
  created_at: CreatedAt;
}

export interface AppConfigsTable {
  tenant_id: number;
  app_theme: JsonOrNull<Record<string, unknown>>;
  apply_theme_globally: Generated<boolean>;
  creator_mode: JsonOrNull<Record<string, unknown>>;
  /** Migration 0013-restrict-data-download. */
  restrict_data_download: Generated<boolean>;
  updated_at: UpdatedAt;
}

/** Declaration merging: the workspace tables join the store's table map declared above. */
export interface Database {
  folders: FoldersTable;
  workbooks: WorkbooksTable;
  reports: ReportsTable;
  report_views: ReportViewsTable;
  dashboards: DashboardsTable;
  dashboard_versions: DashboardVersionsTable;
  report_snapshots: ReportSnapshotsTable;
  content_permissions: ContentPermissionsTable;
  app_configs: AppConfigsTable;
}

export type FolderRow = Selectable<FoldersTable>;
export type WorkbookRow = Selectable<WorkbooksTable>;
export type ReportRow = Selectable<ReportsTable>;
export type DashboardRow = Selectable<DashboardsTable>;
export type DashboardVersionRow = Selectable<DashboardVersionsTable>;
export type ReportSnapshotRow = Selectable<ReportSnapshotsTable>;
export type ContentPermissionRow = Selectable<ContentPermissionsTable>;

/** Data-model upload transactions (migration 0006-model-uploads). */
export interface ModelUploadSessionsTable {
  id: string;
  deployment_id: number;
  branch: string;
  user_id: number | null;
  created_at: CreatedAt;
  expires_at: Date | string;
  finished_at: Date | string | null;
  last_hash: string | null;
}

export interface ModelUploadFilesTable {
  session_id: string;
  path: string;
  content: string;
  hash: string;
}

export interface Database {
  model_upload_sessions: ModelUploadSessionsTable;
  model_upload_files: ModelUploadFilesTable;
}

/* Embedding (migration 0008-embed, modules/embed and modules/embed-tenants). */

export interface EmbedSettingsTable {
  tenant_id: number;
  /** The HS256 secret embed tokens are signed with, encrypted at rest; created on first use. */
  token_secret_enc: string | null;
  /** Origins allowed to frame the embed pages (CSP `frame-ancestors`). */
  frame_ancestors: ColumnType<string[], string[] | undefined, string[]>;
  /** The account-wide default a session's `settings.showDashboardChat` inherits when omitted. */
  show_dashboard_chat: Generated<boolean>;
  updated_at: UpdatedAt;
}

export interface EmbedTenantsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  display_name: string | null;
  created_at: CreatedAt;
}

export interface EmbedUsersTable {
  id: Generated<number>;
  tenant_id: number;
  embed_tenant_id: number | null;
  external_id: string;
  email: string | null;
  display_name: string | null;
  picture: string | null;
  internal_id: string | null;
  /** null: a permanent user; otherwise an ephemeral one, removed once this has passed (spec 3). */
  expires_at: Date | null;
  last_login: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface EmbedGroupsTable {
  id: Generated<number>;
  embed_tenant_id: number;
  name: string;
  description: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface EmbedGroupMembersTable {
  group_id: number;
  embed_user_id: number;
  created_at: CreatedAt;
}

export interface EmbedUserGroupsTable {
  embed_user_id: number;
  group_id: number;
}

export interface EmbedSessionsTable {
  id: Generated<number>;
  tenant_id: number;
  deployment_id: number;
  embed_user_id: number;
  session_hash: string;
  /** What the token minted from this session carries (modules/embed/claims.ts). */
  context: Json<Record<string, unknown>>;
  created_by: number | null;
  created_at: CreatedAt;
  expires_at: Date;
  redeemed_at: Date | null;
  token_expires_at: Date | null;
  revoked_at: Date | null;
}

export interface EmbedAccessTable {
  id: Generated<number>;
  deployment_id: number;
  workbook_id: number;
  /** null: shared with every embed user of the account. */
  embed_tenant_id: number | null;
  created_at: CreatedAt;
}

export interface Database {
  embed_settings: EmbedSettingsTable;
  embed_tenants: EmbedTenantsTable;
  embed_users: EmbedUsersTable;
  embed_groups: EmbedGroupsTable;
  embed_group_members: EmbedGroupMembersTable;
  embed_user_groups: EmbedUserGroupsTable;
  embed_sessions: EmbedSessionsTable;
  embed_access: EmbedAccessTable;
}

export type EmbedTenantRow = Selectable<EmbedTenantsTable>;
export type EmbedUserRow = Selectable<EmbedUsersTable>;
export type EmbedGroupRow = Selectable<EmbedGroupsTable>;
export type EmbedSessionRow = Selectable<EmbedSessionsTable>;

/* The chat agent (migration 0009-chat, modules/chat). */

/** An agent's brain without its key: `{kind:'builtin'}` or an OpenAI-compatible endpoint. */
export type AgentBrainSettings = { kind: 'builtin' } | { kind: 'openai'; baseURL: string; model: string };

export interface AgentsTable {
  id: Generated<number>;
  tenant_id: number;
  deployment_id: number;
  name: string;
  instructions: Generated<string>;
  brain: Json<AgentBrainSettings>;
  /** The OpenAI-compatible endpoint's key, sealed (crypto/secrets.ts); never returned. */
  api_key_enc: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ChatThreadsTable {
  id: string;
  tenant_id: number;
  agent_id: number;
  embed_user_id: number | null;
  user_id: number | null;
  created_at: CreatedAt;
}

export type ChatRunStatus = 'running' | 'done' | 'error' | 'aborted' | 'suspended';

export interface ChatRunsTable {
  id: Generated<number>;
  thread_id: string;
  message_id: string;
  input: string;
  status: ColumnType<ChatRunStatus, ChatRunStatus | undefined, ChatRunStatus>;
  /** What the run's queries run under: security context and branch (modules/chat/session.ts). */
  context: Json<Record<string, unknown>>;
  /** The abort endpoint asked to stop it; the replica running it stops at its next check. */
  stop_requested: Generated<boolean>;
  created_at: CreatedAt;
  finished_at: Date | null;
  /** The running process's lease, renewed while it runs (migration 0012-chat-leases). */
  heartbeat_at: ColumnType<Date | null, Date | string | undefined, Date | string | null>;
}

export interface ChatRunLinesTable {
  run_id: number;
  seq: number;
  /** One NDJSON line as sent (without its newline). */
  line: string;
}

export interface Database {
  agents: AgentsTable;
  chat_threads: ChatThreadsTable;
  chat_runs: ChatRunsTable;
  chat_run_lines: ChatRunLinesTable;
}

export type AgentRow = Selectable<AgentsTable>;
export type ChatThreadRow = Selectable<ChatThreadsTable>;
export type ChatRunRow = Selectable<ChatRunsTable>;

/* Browser sign-in (migration 0010-sign-in, modules/sign-in). */

export interface BrowserSessionsTable {
  id: Generated<number>;
  tenant_id: number;
  user_id: number;
  /** SHA-256 of the session id the cookie carries (DESIGN.md "Persistence"). */
  session_hash: string;
  created_at: CreatedAt;
  /** Last request seen, written at most about once a minute: the idle limit counts from it. */
  last_seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The absolute limit, fixed at sign-in. */
  expires_at: ColumnType<Date, Date | string, Date | string>;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface Database {
  browser_sessions: BrowserSessionsTable;
}

export type BrowserSessionRow = Selectable<BrowserSessionsTable>;

/* Scheduled notifications and dashboard exports (migration 0011-notifications, modules/notifications). */

export type NotificationRecipientKind = 'USER' | 'EMBED_USER' | 'EMAIL' | 'WEBHOOK';
export type NotificationRunState = 'pending' | 'running' | 'succeeded' | 'partially_failed' | 'failed';
export type NotificationDeliveryState = 'pending' | 'sending' | 'sent' | 'failed';
export type DashboardExportStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface NotificationsTable {
  id: Generated<number>;
  tenant_id: number;
  deployment_id: number;
  dashboard_id: number;
  /** Whose security context renders the dashboard; null once that user is deleted. */
  owner_id: number | null;
  schedule_type: string;
  minute: number | null;
  hour: number | null;
  day_of_week: number | null;
  day_of_month: number | null;
  custom_cron: string | null;
  cron_expression: string;
  timezone: string;
  is_enabled: Generated<boolean>;
  notification_enabled: Generated<boolean>;
  notification_format: Generated<'png' | 'pdf'>;
  notification_ai_summary: Generated<boolean>;
  filters: JsonOrNull<unknown[]>;
  time_grains: JsonOrNull<unknown[]>;
  member_switchers: JsonOrNull<unknown[]>;
  /** The fire time last handled (creation time before the first run). */
  last_fire_at: Date;
  next_fire_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Migration 0033: the key a content file names it by (modules/content); null when made by the API. */
  content_key: Generated<string | null>;
}

export interface NotificationRecipientsTable {
  id: Generated<number>;
  notification_id: number;
  type: NotificationRecipientKind;
  recipient_key: string;
  user_id: number | null;
  embed_user_id: number | null;
  email: string | null;
  username: string | null;
  webhook_url: string | null;
  /** The webhook's signing secret, sealed (crypto/secrets.ts). */
  webhook_secret_enc: string | null;
  security_context: JsonOrNull<Record<string, unknown>>;
  user_attributes: JsonOrNull<Record<string, unknown>>;
  groups: JsonOrNull<string[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface NotificationRunsTable {
  id: Generated<number>;
  notification_id: number;
  fire_time: Date;
  state: ColumnType<NotificationRunState, NotificationRunState | undefined, NotificationRunState>;
  attempts: Generated<number>;
  next_attempt_at: Date;
  lease_until: Date | null;
  lease_owner: string | null;
  error: string | null;
  failed_widgets: JsonOrNull<{ id: string; title: string; error: string }[]>;
  created_at: CreatedAt;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NotificationDeliveriesTable {
  run_id: number;
  recipient_key: string;
  recipient_id: number | null;
  type: NotificationRecipientKind;
  address: string;
  state: ColumnType<
    NotificationDeliveryState,
    NotificationDeliveryState | undefined,
    NotificationDeliveryState
  >;
  attempts: Generated<number>;
  next_attempt_at: Date;
  lease_until: Date | null;
  error: string | null;
  sent_at: Date | null;
}

export interface DashboardExportsTable {
  id: string;
  tenant_id: number;
  deployment_id: number;
  dashboard_id: number;
  requested_by: number;
  format: 'png' | 'pdf';
  status: ColumnType<DashboardExportStatus, DashboardExportStatus | undefined, DashboardExportStatus>;
  request: Json<Record<string, unknown>>;
  content_type: string | null;
  file: Buffer | null;
  error: string | null;
  lease_until: Date | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface Database {
  notifications: NotificationsTable;
  notification_recipients: NotificationRecipientsTable;
  notification_runs: NotificationRunsTable;
  notification_deliveries: NotificationDeliveriesTable;
  dashboard_exports: DashboardExportsTable;
}

export type NotificationRow = Selectable<NotificationsTable>;
export type NotificationRecipientRow = Selectable<NotificationRecipientsTable>;
export type NotificationRunRow = Selectable<NotificationRunsTable>;
export type NotificationDeliveryRow = Selectable<NotificationDeliveriesTable>;
export type DashboardExportRow = Selectable<DashboardExportsTable>;

/* Pre-aggregations (migration 0014-pre-aggregations, modules/data/pre-aggregations). */
export interface PreAggregationTablesTable {
  deployment_id: number;
  cube: string;
  name: string;
  /** `''` for an unpartitioned rollup, else the partition's start (`20240301`). */
  partition: string;
  table_name: string;
  build_sql: string;
  refresh_key_value: string;
  range_start: string | null;
  range_end: string | null;
  built_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PreAggregationLeasesTable {
  deployment_id: number;
  owner: string;
  expires_at: ColumnType<Date, Date, Date>;
  /** Tables built under leases of this row, for tests and metrics. */
  builds: ColumnType<number, number | undefined, number>;
}

export interface Database {
  pre_aggregation_tables: PreAggregationTablesTable;
  pre_aggregation_leases: PreAggregationLeasesTable;
}

export type PreAggregationTableRow = Selectable<PreAggregationTablesTable>;

/* Tenant settings (migration 0016, modules/tenant-settings). */
export interface TenantSettingsTable {
  tenant_id: number;
  audit_log_enabled: Generated<boolean>;
  audit_log_changed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  has_support_access: Generated<boolean>;
  maintenance_window_enabled: Generated<boolean>;
  maintenance_window_day: Generated<string>;
  maintenance_window_time: Generated<string>;
  oidc_enabled: Generated<boolean>;
  use_aibi_user_interface: Generated<boolean>;
  updated_at: UpdatedAt;
  /** Migration 0026: entries older than this many days are swept; 0 keeps them. */
  audit_log_retention_days: Generated<number>;
}

export interface Database {
  tenant_settings: TenantSettingsTable;
}

export type TenantSettingsRow = Selectable<TenantSettingsTable>;

/* Env variables per deployment (migration 0017, modules/env-variables). */
export interface EnvVariablesTable {
  id: Generated<number>;
  deployment_id: number;
  name: string;
  /** SecretBox-sealed (crypto/secrets.ts); the clear value is never stored nor returned. */
  value_enc: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface Database {
  env_variables: EnvVariablesTable;
}

export type EnvVariableRow = Selectable<EnvVariablesTable>;

/* Roles and users' own settings (migration 0020, modules/roles, modules/users). */
export interface RolesTable {
  id: Generated<number>;
  /** null: a built-in role, the same for every tenant. */
  tenant_id: number | null;
  name: string;
  description: string | null;
  /** The reference's Policy objects (auth/roles.ts `Policy`). */
  policies: Json<StoredPolicy[]>;
  /** The account role a built-in role is; null for a custom one. */
  built_in: AccountRole | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface StoredPolicy {
  resourceType: string;
  actions: string[];
  resources: string[];
}

export interface UserRolesTable {
  user_id: number;
  role_id: number;
  created_at: CreatedAt;
}

export interface UsersSettingsColumn {
  /** `PATCH /api/v1/users/me/settings` (the reference's UserSettingsInput). */
  settings: ColumnType<Record<string, unknown>, string | undefined, string>;
}

export interface Database {
  roles: RolesTable;
  user_roles: UserRolesTable;
}

export type RoleRow = Selectable<RolesTable>;
/* The SQL editor's query history, per user and deployment (migration 0018, modules/query-history). */
export interface QueryHistoryTable {
  id: Generated<number>;
  user_id: number;
  deployment_id: number;
  sql: string;
  row_count: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: CreatedAt;
}

export interface Database {
  query_history: QueryHistoryTable;
}

export type QueryHistoryRow = Selectable<QueryHistoryTable>;

/* OAuth integrations and users' tokens (migration 0024, modules/oauth). */
export interface OAuthIntegrationsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  type: string;
  auth_url: string;
  token_url: string;
  client_id: string;
  /** SecretBox-sealed; never returned. */
  client_secret_enc: string;
  redirect_uri: string;
  scopes: Json<string[] | null>;
  config: Json<Record<string, unknown> | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export const userOAuthTokenStatuses = ['active', 'expired', 'error', 'revoked'] as const;
export type UserOAuthTokenStatus = (typeof userOAuthTokenStatuses)[number];

export interface UserOAuthTokensTable {
  id: Generated<number>;
  user_id: number;
  integration_id: number;
  status: UserOAuthTokenStatus;
  /** SecretBox-sealed tokens. */
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  access_token_expires_at: Date | null;
  refresh_token_expires_at: Date | null;
  last_error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OAuthFlowsTable {
  state_hash: string;
  user_id: number;
  integration_id: number;
  verifier_enc: string;
  return_to: string | null;
  expires_at: Date;
}

export interface Database {
  oauth_integrations: OAuthIntegrationsTable;
  user_oauth_tokens: UserOAuthTokensTable;
  oauth_flows: OAuthFlowsTable;
}

export type OAuthIntegrationRow = Selectable<OAuthIntegrationsTable>;
export type UserOAuthTokenRow = Selectable<UserOAuthTokensTable>;

/* OpenID Connect: Tessera as issuer, and sign-in with an external provider (migration 0025, modules/oidc). */
export interface OidcTokenConfigsTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  audience_type: string;
  custom_audience: string | null;
  sub_format: string | null;
  custom_claims: Json<Record<string, unknown> | null>;
  target_env_var: string | null;
  is_enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OidcSigningKeysTable {
  kid: string;
  public_jwk: Json<Record<string, unknown>>;
  /** SecretBox-sealed private JWK. */
  private_jwk_enc: string;
  created_at: CreatedAt;
  retired_at: Date | null;
  expires_at: Date | null;
}

export interface OidcIdentitiesTable {
  tenant_id: number;
  issuer: string;
  subject: string;
  user_id: number;
  created_at: CreatedAt;
}

export interface OidcLoginsTable {
  state_hash: string;
  tenant_id: number;
  verifier_enc: string;
  nonce: string;
  expires_at: Date;
}

export interface Database {
  oidc_token_configs: OidcTokenConfigsTable;
  oidc_signing_keys: OidcSigningKeysTable;
  oidc_identities: OidcIdentitiesTable;
  oidc_logins: OidcLoginsTable;
}

export type OidcTokenConfigRow = Selectable<OidcTokenConfigsTable>;

/* User attributes and their values per account user (migration 0022, modules/user-attributes). */
export const userAttributeTypes = ['string', 'number', 'boolean', 'string_array', 'number_array'] as const;
export type UserAttributeType = (typeof userAttributeTypes)[number];

export interface UserAttributesTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  type: UserAttributeType;
  /** Text, as the reference gives it; read per `type` (JSON for all but `string`). */
  default_value: string | null;
  description: string | null;
  display_name: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface UserAttributeValuesTable {
  user_id: number;
  user_attribute_id: number;
  value: ColumnType<unknown, string, string>;
  updated_at: UpdatedAt;
}

export interface Database {
  user_attributes: UserAttributesTable;
  user_attribute_values: UserAttributeValuesTable;
}

export type UserAttributeRow = Selectable<UserAttributesTable>;

/* The audit log (migration 0023, modules/audit-log). */
export interface AuditLogTable {
  /** bigserial: read as a string by the driver; ids stay below 2^53 in practice. */
  id: ColumnType<string, never, never>;
  tenant_id: number;
  occurred_at: ColumnType<Date, never, never>;
  actor_user_id: number | null;
  actor_email: string | null;
  credential_kind: string | null;
  credential_id: number | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: JsonOrNull<unknown>;
  after: JsonOrNull<unknown>;
}

export interface Database {
  audit_log: AuditLogTable;
}

export type AuditLogRow = Selectable<AuditLogTable>;

/* Roles assigned to groups (migration 0027, modules/roles): members hold them. */
export interface GroupRolesTable {
  group_id: number;
  role_id: number;
  created_at: CreatedAt;
}

export interface Database {
  group_roles: GroupRolesTable;
}
/* Dashboard comments (migration 0030, modules/comments). */
export interface DashboardCommentsTable {
  id: Generated<number>;
  dashboard_id: number;
  /** The conversation's partition: an embed tenant's, or null for the account users'. */
  embed_tenant_id: number | null;
  parent_id: number | null;
  author_user_id: number | null;
  author_embed_user_id: number | null;
  body: string;
  /** User ids of the partition mentioned in the body. */
  mentions: ColumnType<number[], string | undefined, string>;
  created_at: CreatedAt;
  edited_at: Date | null;
  removed_at: Date | null;
  resolved_at: Date | null;
  resolved_by: number | null;
  last_activity_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface Database {
  dashboard_comments: DashboardCommentsTable;
}

export type DashboardCommentRow = Selectable<DashboardCommentsTable>;

/* Environment tokens (migration 0030, modules/tokens/environment-service.ts). */
export interface EnvironmentTokensTable {
  id: Generated<number>;
  environment_id: number;
  token_hash: string;
  /** The signature's last characters: enough to tell tokens apart in a list, nothing to use. */
  token_hint: string;
  security_context: Json<Record<string, unknown>>;
  /** The reference's scopes the token was issued with (`meta`, `data`, `sql`); null: all. */
  scopes: JsonOrNull<string[]>;
  meta_sync: Generated<boolean>;
  created_by: number | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface Database {
  environment_tokens: EnvironmentTokensTable;
}

export type EnvironmentTokenRow = Selectable<EnvironmentTokensTable>;

/* Deployment logs (migration 0031, modules/deployment-logs). */
export interface DeploymentLogsTable {
  id: Generated<string>;
  deployment_id: number;
  /** `production`: the default branch; `dev`: any other (the reference's log sources). */
  source: 'production' | 'dev';
  kind: 'query' | 'build';
  level: 'info' | 'error';
  branch: string;
  /** The replica that wrote the line. */
  pod: string;
  message: string;
  details: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface Database {
  deployment_logs: DeploymentLogsTable;
}

export type DeploymentLogRow = Selectable<DeploymentLogsTable>;

/* Model versions (migration 0031, modules/data-model/versions.ts). */
export interface ModelVersionsTable {
  id: Generated<number>;
  deployment_id: number;
  files_hash: string;
  files: Json<string[]>;
  action: string;
  from_branch: string | null;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface Database {
  model_versions: ModelVersionsTable;
}

export type ModelVersionRow = Selectable<ModelVersionsTable>;

/* Report placements in spreadsheets (migration 0031, modules/reports/placements.ts). */
export interface ReportPlacementsTable {
  id: Generated<number>;
  report_id: number;
  placement_id: string;
  external_workbook_id: string;
  workbook_name: string | null;
  host: string | null;
  sheet_id: string | null;
  sheet_name: string | null;
  anchor_cell: string | null;
  end_result_cell: string | null;
  result_location: string;
  result_checksum: JsonOrNull<{ v: number; chunks: { from: number; hash: string; to?: number | null }[] }>;
  query_checksum: string | null;
  placed_by: number | null;
  placed_at: CreatedAt;
  refreshed_by: number | null;
  refreshed_at: Date | null;
}

export interface Database {
  report_placements: ReportPlacementsTable;
}

export type ReportPlacementRow = Selectable<ReportPlacementsTable>;

/* Usage Analytics (migration 0035, modules/usage-analytics): dashboard opens and usage secrets. */
export interface DashboardViewsTable {
  id: Generated<string>;
  tenant_id: number;
  dashboard_id: number;
  user_id: number | null;
  embed_user_id: number | null;
  viewed_at: CreatedAt;
}

export interface UsageAnalyticsSecretsTable {
  tenant_id: number;
  /** SecretBox-sealed data-API secret of the tenant's built-in usage deployment. */
  api_secret_enc: string;
  created_at: CreatedAt;
}

export interface Database {
  dashboard_views: DashboardViewsTable;
  usage_analytics_secrets: UsageAnalyticsSecretsTable;
}

/* dbt sync jobs (migration 0032, modules/dbt-sync). */
export const dbtSyncRunStatuses = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'UNKNOWN'] as const;
export type DbtSyncRunStatus = (typeof dbtSyncRunStatuses)[number];

export interface DbtSyncJobsTable {
  seq: Generated<number>;
  sync_job_id: string;
  tenant_id: number;
  deployment_id: number;
  user_id: number | null;
  /** Who started the job, as audit entries of its writes name them (a Principal's identity fields). */
  actor: Json<Record<string, unknown>>;
  trigger: string;
  source: string;
  output: 'branch' | 'files';
  branch_name: string;
  git_ref: string | null;
  status: ColumnType<DbtSyncRunStatus, DbtSyncRunStatus | undefined, DbtSyncRunStatus>;
  stage: ColumnType<string, string | undefined, string>;
  /** The uploaded manifest, until the job ends. */
  manifest: JsonOrNull<Record<string, unknown>>;
  logs: ColumnType<unknown[], string | undefined, string>;
  generated_files: ColumnType<{ path: string; content: string }[], string | undefined, string>;
  stats: JsonOrNull<Record<string, unknown>>;
  phases: JsonOrNull<unknown[]>;
  error: string | null;
  failed_phase: string | null;
  claim_token: string | null;
  lease_until: Date | null;
  started_at: CreatedAt;
  updated_at: UpdatedAt;
  completed_at: Date | null;
  duration_ms: number | null;
}

export interface Database {
  dbt_sync_jobs: DbtSyncJobsTable;
}

export type DbtSyncJobRow = Selectable<DbtSyncJobsTable>;

/* Alerts on measures (migration 0034, modules/alerts; issue 23 item 6). */
export interface AlertsTable {
  id: Generated<number>;
  tenant_id: number;
  deployment_id: number;
  /** Whose security context reads the measure under `owner`; null once that user is deleted. */
  owner_id: number | null;
  name: string;
  /** The measure query (modules/alerts/schemas.ts `AlertQuery`). */
  query: Json<Record<string, unknown>>;
  /** `above`/`below` a threshold, or `changeBy` percent (modules/alerts/schemas.ts `AlertCondition`). */
  condition: Json<Record<string, unknown>>;
  security_context: 'owner' | 'recipient';
  schedule_type: string;
  minute: number | null;
  hour: number | null;
  day_of_week: number | null;
  day_of_month: number | null;
  custom_cron: string | null;
  cron_expression: string;
  timezone: string;
  is_enabled: Generated<boolean>;
  /** The fire time last handled (creation time before the first check). */
  last_fire_at: Date;
  next_fire_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface AlertRecipientsTable {
  alert_id: number;
  /** `user:<id>`, `email:<address>` or `webhook:<url>`. */
  recipient_key: string;
  user_id: number | null;
  email: string | null;
  /** Migration 0038: a webhook recipient's URL and its signing secret, sealed (crypto/secrets.ts). */
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
}

export interface AlertChecksTable {
  id: Generated<number>;
  alert_id: number;
  /** The schedule's fire time; null for a check asked for with POST .../check. */
  fire_time: Date | null;
  trigger: 'schedule' | 'manual';
  state: 'pending' | 'running' | 'done' | 'failed';
  attempts: Generated<number>;
  lease_until: Date | null;
  claimed_by: string | null;
  error: string | null;
  created_at: CreatedAt;
  finished_at: Date | null;
}

export interface AlertCheckResultsTable {
  check_id: number;
  recipient_key: string;
  address: string | null;
  value: number | null;
  previous_value: number | null;
  /** null: the value could not be read (`error` says why). */
  condition_met: boolean | null;
  fired: Generated<boolean>;
  /** `none` (not fired), `sending` (claimed), `retrying` (waits for `next_attempt_at`), `sent` or `failed`. */
  delivery: 'none' | 'sending' | 'retrying' | 'sent' | 'failed';
  error: string | null;
  sent_at: Date | null;
  /** Migration 0038: sends tried, when the next may be, and the sending replica's claim. */
  attempts: Generated<number>;
  next_attempt_at: Date | null;
  lease_until: Date | null;
}

/** Migration 0038: one row per send of a fired result, the run log of its retries. */
export interface AlertDeliveryAttemptsTable {
  check_id: number;
  recipient_key: string;
  attempt: number;
  attempted_at: Date;
  outcome: 'sent' | 'failed';
  error: string | null;
  retry_at: Date | null;
}

export interface AlertStatesTable {
  alert_id: number;
  recipient_key: string;
  condition_met: Generated<boolean>;
  changed_at: Generated<Date>;
}

export interface Database {
  alerts: AlertsTable;
  alert_recipients: AlertRecipientsTable;
  alert_checks: AlertChecksTable;
  alert_check_results: AlertCheckResultsTable;
  alert_states: AlertStatesTable;
  alert_delivery_attempts: AlertDeliveryAttemptsTable;
}

export type AlertRow = Selectable<AlertsTable>;
export type AlertRecipientRow = Selectable<AlertRecipientsTable>;
export type AlertCheckRow = Selectable<AlertChecksTable>;
export type AlertCheckResultRow = Selectable<AlertCheckResultsTable>;
export type AlertDeliveryAttemptRow = Selectable<AlertDeliveryAttemptsTable>;

/** Issue 25 item 2 (migration 0037): a deployment's git directory, a row per file. */
export interface ModelGitFilesTable {
  deployment_id: number;
  path: string;
  content: Uint8Array;
}

export interface ModelGitRemotesTable {
  deployment_id: number;
  url: string;
  token_sealed: string | null;
  webhook_secret_sealed: string | null;
  updated_at: Generated<Date>;
}

export interface Database {
  model_git_files: ModelGitFilesTable;
  model_git_remotes: ModelGitRemotesTable;
}
