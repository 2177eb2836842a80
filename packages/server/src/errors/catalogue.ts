/**
 * Every error code Tessera answers, with its HTTP status and a title (RFC 9457 section 3.1.3: one
 * title per problem type). A `DomainError` takes its status from here, so a code never travels
 * with two statuses; the OpenAPI document lists per operation the codes it can answer (`on`), and
 * the SCIM renderer shows `scimType` where the code has one (RFC 7644 section 3.12, table 9).
 * Adding a code: add it here, give it the narrowest `on`, throw it from a service.
 */

/** The `scimType` values of RFC 7644 section 3.12, table 9. */
export const scimTypes = [
  'invalidFilter',
  'tooMany',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
  'invalidVers',
  'sensitive',
] as const;
export type ScimType = (typeof scimTypes)[number];

/**
 * Which operations can answer a code, for the OpenAPI document:
 * - `any`: every operation (the framework and the request screening);
 * - `body`: operations that read a request body;
 * - `params`: operations with path parameters;
 * - `credentialed`: operations behind a credential (authentication, rate limits, the store);
 * - `deployment`: credentialed operations on a deployment (`:deploymentId`);
 * - `account`: credentialed account-level operations, closed to deployment-scoped keys;
 * - `management`: management operations (services' own rules);
 * - `embed`: embedding operations and the routes embed tokens may call (modules/embed, embed-tenants);
 * - `sign-in`: the browser session's own operations (`/api/v1/session...`, modules/sign-in);
 * - `cookie`: operations a browser session cookie may call (credentialed ones but SCIM, and `sign-in`);
 * - `scim`: SCIM operations (RFC 7644 protocol errors);
 * - `data`: the data API (Cube's protocol, rendered as `{error}`);
 * - `webhook`: signed webhooks from other systems (the git remote's push, modules/data-model);
 * - `unrouted`: no operation: the answer for a path no route serves.
 */
export type ErrorScope =
  | 'any'
  | 'body'
  | 'params'
  | 'credentialed'
  | 'deployment'
  | 'account'
  | 'management'
  | 'embed'
  | 'sign-in'
  | 'cookie'
  | 'scim'
  | 'data'
  | 'webhook'
  | 'unrouted';

interface CatalogueEntry {
  status: number;
  title: string;
  on: ErrorScope;
  scimType?: ScimType;
}

export const errorCatalogue = {
  // The request as the framework reads it, and the screening of every part of it.
  validation_failed: { status: 400, title: 'Invalid request', on: 'any', scimType: 'invalidValue' },
  bad_request: { status: 400, title: 'Unreadable request', on: 'any' },
  uri_too_long: { status: 414, title: 'Path parameter too long', on: 'params' },
  malformed_body: { status: 400, title: 'Malformed body', on: 'body', scimType: 'invalidSyntax' },
  body_too_large: { status: 413, title: 'Body too large', on: 'body', scimType: 'tooMany' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', on: 'body' },
  https_required: { status: 403, title: 'HTTPS required', on: 'any' },
  route_not_found: { status: 404, title: 'No such route', on: 'unrouted' },
  internal_error: { status: 500, title: 'Internal error', on: 'any' },

  // Credentials (spec section 5) and what the store refuses.
  credential_missing: { status: 401, title: 'Credential missing', on: 'credentialed' },
  credential_malformed: { status: 401, title: 'Credential malformed', on: 'credentialed' },
  credential_invalid: { status: 401, title: 'Credential invalid', on: 'credentialed' },
  credential_revoked: { status: 401, title: 'Credential revoked', on: 'credentialed' },
  credential_expired: { status: 401, title: 'Credential expired', on: 'credentialed' },
  credential_kind_not_allowed: { status: 403, title: 'Wrong kind of credential', on: 'credentialed' },
  insufficient_role: { status: 403, title: 'Role too low', on: 'credentialed' },
  deployment_out_of_scope: { status: 403, title: 'Deployment out of scope', on: 'deployment' },
  deployment_scoped_credential: { status: 403, title: 'Needs an account-wide credential', on: 'account' },
  tenant_not_found: { status: 404, title: 'Account not found', on: 'credentialed' },
  rate_limited: { status: 429, title: 'Too many requests', on: 'credentialed' },
  unstorable_text: { status: 400, title: 'Text the store cannot hold', on: 'credentialed' },
  value_too_long: { status: 400, title: 'Value too long for the store', on: 'credentialed' },
  conflict: { status: 409, title: 'Conflict', on: 'credentialed' },

  // Rules of the management services.
  forbidden: { status: 403, title: 'Forbidden', on: 'management' },
  content_access_denied: { status: 403, title: 'No access to this content', on: 'management' },
  data_download_restricted: { status: 403, title: 'Data downloads are turned off', on: 'management' },
  invalid_cursor: { status: 400, title: 'Invalid cursor', on: 'management' },
  cursor_unavailable_for_sort: { status: 400, title: 'No cursor for this sort', on: 'management' },
  invalid_folder: { status: 400, title: 'Invalid folder', on: 'management' },
  folder_cycle: { status: 400, title: 'Folder cycle', on: 'management' },
  folder_not_empty: { status: 400, title: 'Folder not empty', on: 'management' },
  folder_too_deep: { status: 400, title: 'Folder too deep', on: 'management' },
  invalid_report: { status: 400, title: 'Invalid report', on: 'management' },
  invalid_dashboard_config: { status: 400, title: 'Invalid dashboard configuration', on: 'management' },
  invalid_widget_report: { status: 400, title: 'Invalid widget report', on: 'management' },
  invalid_widget_query: { status: 400, title: 'Invalid widget query', on: 'management' },
  invalid_dashboard_filter: { status: 400, title: 'Invalid dashboard filter', on: 'management' },
  unknown_member: { status: 400, title: 'Unknown member', on: 'management' },
  unknown_column: { status: 400, title: 'Unknown column', on: 'management' },
  report_without_query: { status: 400, title: 'Report without a query', on: 'management' },
  nothing_to_publish: { status: 400, title: 'Nothing to publish', on: 'management' },
  not_published: { status: 400, title: 'Not published', on: 'management' },
  upload_incomplete: { status: 400, title: 'Upload incomplete', on: 'management' },
  not_found: { status: 404, title: 'Not found', on: 'management' },
  api_key_not_found: { status: 404, title: 'API key not found', on: 'management' },
  dashboard_not_found: { status: 404, title: 'Dashboard not found', on: 'management' },
  deployment_not_found: { status: 404, title: 'Deployment not found', on: 'management' },
  folder_not_found: { status: 404, title: 'Folder not found', on: 'management' },
  group_not_found: { status: 404, title: 'Group not found', on: 'management' },
  member_not_found: { status: 404, title: 'Group member not found', on: 'management' },
  permission_not_found: { status: 404, title: 'Permission not found', on: 'management' },
  report_not_found: { status: 404, title: 'Report not found', on: 'management' },
  upload_not_found: { status: 404, title: 'Upload not found', on: 'management' },
  user_not_found: { status: 404, title: 'User not found', on: 'management' },
  user_attribute_not_found: { status: 404, title: 'User attribute not found', on: 'management' },
  widget_not_found: { status: 404, title: 'Widget not found', on: 'management' },
  widget_without_report: { status: 404, title: 'Widget without a report', on: 'management' },
  workbook_not_found: { status: 404, title: 'Workbook not found', on: 'management' },
  branch_exists: { status: 409, title: 'Branch exists', on: 'management' },
  main_branch: { status: 409, title: 'Main branch', on: 'management' },
  merge_conflict: { status: 409, title: 'Merge conflict', on: 'management' },
  no_active_branch: { status: 409, title: 'No active branch', on: 'management' },
  git_remote_missing: { status: 409, title: 'No git remote', on: 'management' },
  git_remote_failed: { status: 502, title: 'The git remote refused or failed', on: 'management' },
  webhook_signature_invalid: { status: 401, title: 'Webhook signature invalid', on: 'webhook' },
  demo_deployment: { status: 409, title: 'Demo deployment', on: 'management' },
  file_exists: { status: 409, title: 'File exists', on: 'management' },
  upload_finished: { status: 409, title: 'Upload finished', on: 'management' },
  upload_too_large: { status: 409, title: 'Upload too large', on: 'management' },
  user_exists: { status: 409, title: 'User exists', on: 'management' },
  group_exists: { status: 409, title: 'Group exists', on: 'management' },
  user_attribute_exists: { status: 409, title: 'User attribute exists', on: 'management' },
  report_public_id_taken: { status: 409, title: 'Report public id taken', on: 'management' },
  upsert_branch_changed: { status: 409, title: 'Upsert branch changed', on: 'management' },

  // Users and roles (issue 22 items 1 and 2; modules/users, modules/roles): the reference's statuses.
  last_admin: { status: 403, title: 'Last admin', on: 'management' },
  cannot_deactivate_self: { status: 403, title: 'Cannot deactivate yourself', on: 'management' },
  cannot_delete_self: { status: 400, title: 'Cannot delete yourself', on: 'management' },
  role_name_reserved: { status: 400, title: 'Role name reserved', on: 'management' },
  invalid_policy: { status: 400, title: 'Invalid policy', on: 'management' },
  built_in_role: { status: 403, title: 'Built-in role', on: 'management' },
  role_not_found: { status: 404, title: 'Role not found', on: 'management' },
  role_exists: { status: 409, title: 'Role exists', on: 'management' },

  // Browser sign-in (DESIGN.md "Web app and sessions", modules/sign-in).
  sign_in_failed: { status: 401, title: 'Email or password incorrect', on: 'sign-in' },
  sign_in_throttled: { status: 429, title: 'Too many failed attempts', on: 'sign-in' },
  csrf_token_invalid: { status: 403, title: 'CSRF token missing or wrong', on: 'cookie' },

  // Embedding (spec 4.3, modules/embed and modules/embed-tenants).
  embedding_disabled: { status: 403, title: 'Embedding not enabled', on: 'embed' },
  embedding_not_allowed: { status: 403, title: 'Embedding not allowed for this dashboard', on: 'embed' },
  unknown_group: { status: 400, title: 'Unknown group', on: 'embed' },
  embed_group_name_unavailable: { status: 400, title: 'Group name taken or reserved', on: 'embed' },
  embed_group_not_empty: { status: 400, title: 'Group has members', on: 'embed' },
  embed_session_invalid: { status: 401, title: 'Embed session unknown', on: 'embed' },
  embed_session_redeemed: { status: 401, title: 'Embed session already redeemed', on: 'embed' },
  embed_session_expired: { status: 401, title: 'Embed session expired', on: 'embed' },
  embed_session_revoked: { status: 401, title: 'Embed session revoked', on: 'embed' },
  embed_tenant_not_found: { status: 404, title: 'Embed tenant not found', on: 'embed' },
  embed_group_not_found: { status: 404, title: 'Embed group not found', on: 'embed' },
  embed_user_not_found: { status: 404, title: 'Embed user not found', on: 'embed' },

  // The chat agent (spec 4.6, 7 and 8; modules/chat).
  chat_disabled: { status: 403, title: 'Chat not enabled', on: 'management' },
  agent_not_found: { status: 404, title: 'Agent not found', on: 'management' },
  chat_not_found: { status: 404, title: 'Chat thread not found', on: 'management' },
  chat_thread_forbidden: { status: 403, title: 'Chat thread of another user', on: 'management' },
  chat_streaming: { status: 409, title: 'Streaming for thread is in progress', on: 'management' },
  chat_user_limit: { status: 409, title: 'Chat user limit reached', on: 'management' },
  embed_chat_not_allowed: {
    status: 403,
    title: 'Dashboard chat not allowed for this embed session',
    on: 'embed',
  },
  embed_creator_mode_required: {
    status: 403,
    title: 'Embed session not in creator mode',
    on: 'embed',
  },

  // Scheduled notifications and dashboard exports (spec 2.5, 4.5; modules/notifications).
  notification_not_found: { status: 404, title: 'Notification not found', on: 'management' },
  export_not_found: { status: 404, title: 'Dashboard export not found', on: 'management' },
  export_not_ready: { status: 409, title: 'Dashboard export still rendering', on: 'management' },
  export_failed: { status: 422, title: 'Dashboard export failed', on: 'management' },
  exports_in_flight: { status: 429, title: 'Too many dashboard exports in flight', on: 'management' },
  alert_not_found: { status: 404, title: 'Alert not found', on: 'management' },

  // dbt sync (issue 25 item 3, modules/dbt-sync).
  dbt_sync_not_found: { status: 404, title: 'dbt sync not found', on: 'management' },
  dbt_sync_not_ready: { status: 409, title: 'dbt sync has no result', on: 'management' },

  // OAuth integrations and users' tokens (spec 4.1, modules/oauth); OpenID Connect (modules/oidc).
  oauth_integration_not_found: { status: 404, title: 'OAuth integration not found', on: 'management' },
  oauth_token_not_found: { status: 404, title: 'No OAuth token for this integration', on: 'management' },
  oauth_provider_error: { status: 502, title: 'The OAuth provider refused or failed', on: 'management' },
  oidc_token_config_not_found: { status: 404, title: 'OIDC token config not found', on: 'management' },
  oidc_token_config_exists: { status: 409, title: 'OIDC token config name taken', on: 'management' },

  // The dashboard editor (issue 23): a stale draft save, and a version that does not exist.
  draft_version_conflict: { status: 409, title: 'The draft was saved by another editor', on: 'management' },
  dashboard_version_not_found: { status: 404, title: 'Dashboard version not found', on: 'management' },

  // SCIM protocol errors (RFC 7644 section 3.12).
  invalid_filter: { status: 400, title: 'Invalid filter', on: 'scim', scimType: 'invalidFilter' },
  invalid_path: { status: 400, title: 'Invalid path', on: 'scim', scimType: 'invalidPath' },
  no_target: { status: 400, title: 'No target', on: 'scim', scimType: 'noTarget' },
  invalid_syntax: { status: 400, title: 'Invalid syntax', on: 'scim', scimType: 'invalidSyntax' },
  immutable_attribute: { status: 400, title: 'Immutable attribute', on: 'scim', scimType: 'mutability' },
  resource_not_found: { status: 404, title: 'Resource not found', on: 'scim' },
  precondition_failed: { status: 412, title: 'Precondition failed', on: 'scim' },

  // The data API (Cube's protocol).
  invalid_query: { status: 400, title: 'Invalid query', on: 'data' },
  invalid_data_model: { status: 400, title: 'Data model does not compile', on: 'data' },
  data_access_denied: { status: 403, title: 'Data access denied', on: 'data' },
  data_not_found: { status: 404, title: 'Not found', on: 'data' },
  query_timeout: { status: 504, title: 'Query timeout', on: 'data' },
  warehouse_unavailable: { status: 503, title: 'Warehouse unavailable', on: 'data' },
  // A data source that queries with each viewer's own OAuth token (issue 22 item 6).
  oauth_connection_required: { status: 403, title: 'Connect your account first', on: 'data' },
  oauth_user_required: { status: 403, title: 'Only an account user can query this data source', on: 'data' },

  // Dashboard comments (issue 25 item 4; modules/comments).
  comment_not_found: { status: 404, title: 'Comment not found', on: 'management' },
  comment_not_yours: { status: 403, title: 'Comment of another user', on: 'management' },
  embed_tenant_required: { status: 403, title: 'Embed session names no embed tenant', on: 'embed' },

  // Environment tokens (issue 25 item 1; modules/tokens).
  environment_not_found: { status: 404, title: 'Environment not found', on: 'management' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The codes whose status is `S`: a `NotFoundError` takes only 404 codes, say. */
export type CodeWithStatus<S extends number> = {
  [C in ErrorCode]: (typeof errorCatalogue)[C]['status'] extends S ? C : never;
}[ErrorCode];

/** The codes a scope can answer: `CodeOn<'data'>` for the data API's own. */
export type CodeOn<S extends ErrorScope> = {
  [C in ErrorCode]: (typeof errorCatalogue)[C]['on'] extends S ? C : never;
}[ErrorCode];

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

export function catalogueEntry(code: ErrorCode): CatalogueEntry {
  return errorCatalogue[code];
}
