import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Workspace content (spec sections 2.1 to 2.4): folders, workbooks, reports, published dashboards
 * with their versions and report snapshots, content permissions and the tenant's app config.
 * Integrity lives in the store: a folder with child folders cannot be deleted (RESTRICT), content
 * of a deleted folder falls back to the root (SET NULL, spec 4.5), version numbers are unique per
 * dashboard so that parallel publishes cannot duplicate one (spec 4.4).
 */
const statements = `
    CREATE TABLE folders (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      parent_id integer REFERENCES folders(id) ON DELETE RESTRICT,
      name text NOT NULL,
      position integer NOT NULL DEFAULT 0,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      updated_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (parent_id IS NULL OR parent_id <> id)
    );
    CREATE INDEX folders_deployment ON folders (deployment_id, id);
    CREATE INDEX folders_parent ON folders (parent_id);

    CREATE TABLE workbooks (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      folder_id integer REFERENCES folders(id) ON DELETE SET NULL,
      name text NOT NULL,
      slug text,
      meta jsonb NOT NULL DEFAULT '{}',
      calculated_fields jsonb NOT NULL DEFAULT '{}',
      dashboard_draft jsonb,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (deployment_id, slug)
    );
    CREATE INDEX workbooks_deployment ON workbooks (deployment_id, id);
    CREATE INDEX workbooks_folder ON workbooks (folder_id);

    CREATE TABLE reports (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      folder_id integer REFERENCES folders(id) ON DELETE SET NULL,
      workbook_id integer REFERENCES workbooks(id) ON DELETE SET NULL,
      public_id text NOT NULL,
      name text NOT NULL,
      title text,
      description text,
      sql_query text,
      json_query text,
      spec jsonb,
      kind text NOT NULL DEFAULT 'vega',
      column_formats jsonb,
      fill_missing_rows jsonb,
      meta jsonb,
      version integer NOT NULL DEFAULT 1,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (deployment_id, public_id)
    );
    CREATE INDEX reports_deployment ON reports (deployment_id, id);
    CREATE INDEX reports_folder ON reports (folder_id);
    CREATE INDEX reports_workbook ON reports (workbook_id);

    CREATE TABLE report_views (
      report_id integer NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      viewed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (report_id, user_id)
    );

    CREATE TABLE dashboards (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      workbook_id integer NOT NULL UNIQUE REFERENCES workbooks(id) ON DELETE CASCADE,
      public_id text NOT NULL UNIQUE,
      allow_embed boolean NOT NULL DEFAULT false,
      from_shared_workspace boolean NOT NULL DEFAULT false,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE dashboard_versions (
      id serial PRIMARY KEY,
      dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
      version_number integer NOT NULL,
      status text NOT NULL CHECK (status IN ('draft', 'published', 'archived')),
      title text,
      description text,
      config jsonb NOT NULL,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (dashboard_id, version_number)
    );

    CREATE TABLE report_snapshots (
      id serial PRIMARY KEY,
      dashboard_version_id integer NOT NULL REFERENCES dashboard_versions(id) ON DELETE CASCADE,
      report_id integer NOT NULL,
      version_number integer NOT NULL,
      name text,
      title text,
      description text,
      kind text NOT NULL DEFAULT 'vega',
      spec jsonb,
      sql_query text,
      meta jsonb,
      preferences jsonb,
      fill_missing_rows jsonb,
      UNIQUE (dashboard_version_id, report_id)
    );

    CREATE TABLE content_permissions (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      folder_id integer REFERENCES folders(id) ON DELETE CASCADE,
      workbook_id integer REFERENCES workbooks(id) ON DELETE CASCADE,
      report_id integer REFERENCES reports(id) ON DELETE CASCADE,
      user_id integer REFERENCES users(id) ON DELETE CASCADE,
      group_id integer REFERENCES groups(id) ON DELETE CASCADE,
      level text NOT NULL CHECK (level IN ('view', 'edit', 'manage')),
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK (num_nonnulls(folder_id, workbook_id, report_id) = 1),
      CHECK (num_nonnulls(user_id, group_id) = 1)
    );
    CREATE UNIQUE INDEX content_permissions_unique ON content_permissions
      (coalesce(folder_id, 0), coalesce(workbook_id, 0), coalesce(report_id, 0),
       coalesce(user_id, 0), coalesce(group_id, 0));
    CREATE INDEX content_permissions_deployment ON content_permissions (deployment_id);

    CREATE TABLE app_configs (
      tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      app_theme jsonb,
      apply_theme_globally boolean NOT NULL DEFAULT false,
      creator_mode jsonb,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE app_configs, content_permissions, report_snapshots, dashboard_versions, dashboards,
       report_views, reports, workbooks, folders`,
  );
}
