import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 5: Usage Analytics (the reference's `POST /api/v1/usage-analytics/token`).
 *
 * `dashboard_views`: a row each time an account or embed user opens a published dashboard through
 * `GET /api/v1/embed/dashboard/{publicId}` (the read the web viewer and embed pages make). Bounded:
 * modules/usage-analytics/view-log.ts deletes rows past the retention and beyond a per-tenant cap.
 *
 * `usage_analytics_secrets`: the data-API secret of each tenant's built-in usage deployment
 * (SecretBox-sealed), made when an admin first mints a usage token.
 *
 * Schema `usage_analytics`: the only relations the built-in usage model reads. Each view keeps the
 * rows of one tenant, named by the transaction-local setting `tessera.usage_tenant` that the usage
 * driver sets (SET LOCAL, in a READ ONLY transaction) from the token's verified deployment; unset,
 * a view is empty. PostgreSQL row-level security policies would not bind here: Tessera connects as
 * the owner of these tables (a superuser on PGlite), and owners and superusers bypass RLS. The
 * views are `security_barrier`, so no predicate a query adds is evaluated before the tenant filter.
 */
const tenant = "NULLIF(current_setting('tessera.usage_tenant', true), '')::integer";

const statements = `
    CREATE TABLE dashboard_views (
      id bigserial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      embed_user_id integer REFERENCES embed_users(id) ON DELETE SET NULL,
      viewed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX dashboard_views_tenant_time ON dashboard_views (tenant_id, viewed_at);
    CREATE INDEX dashboard_views_dashboard_time ON dashboard_views (dashboard_id, viewed_at DESC);

    CREATE TABLE usage_analytics_secrets (
      tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      api_secret_enc text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE SCHEMA usage_analytics;

    CREATE VIEW usage_analytics.queries WITH (security_barrier = true) AS
      SELECT q.id, q.deployment_id, d.name AS deployment_name, q.user_id, u.email AS user_email,
             left(q.sql, 500) AS sql_text, q.duration_ms, q.row_count, q.error IS NOT NULL AS failed,
             q.created_at
      FROM query_history q
      JOIN deployments d ON d.id = q.deployment_id
      LEFT JOIN users u ON u.id = q.user_id
      WHERE d.tenant_id = ${tenant};

    CREATE VIEW usage_analytics.dashboards WITH (security_barrier = true) AS
      SELECT b.id, b.public_id, b.deployment_id, d.name AS deployment_name, w.name AS workbook_name,
             COALESCE(
               (SELECT v.title FROM dashboard_versions v WHERE v.dashboard_id = b.id
                ORDER BY (v.status = 'published') DESC, v.version_number DESC LIMIT 1),
               w.name) AS title,
             b.created_at,
             (SELECT max(dv.viewed_at) FROM dashboard_views dv WHERE dv.dashboard_id = b.id) AS last_viewed_at
      FROM dashboards b
      JOIN deployments d ON d.id = b.deployment_id
      JOIN workbooks w ON w.id = b.workbook_id
      WHERE d.tenant_id = ${tenant};

    CREATE VIEW usage_analytics.dashboard_views WITH (security_barrier = true) AS
      SELECT dv.id, dv.dashboard_id, dv.user_id, dv.embed_user_id,
             COALESCE(u.email, eu.email, 'embed:' || eu.external_id) AS viewer,
             CASE WHEN dv.user_id IS NOT NULL THEN 'account' ELSE 'embed' END AS viewer_kind,
             dv.viewed_at
      FROM dashboard_views dv
      LEFT JOIN users u ON u.id = dv.user_id
      LEFT JOIN embed_users eu ON eu.id = dv.embed_user_id
      WHERE dv.tenant_id = ${tenant};

    CREATE VIEW usage_analytics.activity WITH (security_barrier = true) AS
      SELECT 'view:' || dv.id AS id, 'view' AS kind, dv.user_id, u.email AS user_email, dv.viewed_at AS at
      FROM dashboard_views dv JOIN users u ON u.id = dv.user_id
      WHERE dv.tenant_id = ${tenant}
      UNION ALL
      SELECT 'query:' || q.id, 'query', q.user_id, u.email, q.created_at
      FROM query_history q
      JOIN deployments d ON d.id = q.deployment_id
      JOIN users u ON u.id = q.user_id
      WHERE d.tenant_id = ${tenant};
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP SCHEMA usage_analytics CASCADE;\nDROP TABLE usage_analytics_secrets;\nDROP TABLE dashboard_views',
  );
}
