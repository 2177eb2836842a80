import { type Kysely, sql } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Tenants, identity, credentials and deployments. Plain SQL in the one dialect that PGlite and
 * PostgreSQL share; uniqueness lives in the database so that races cannot duplicate rows.
 */
const statements = `
    CREATE TABLE tenants (
      id serial PRIMARY KEY,
      name text NOT NULL UNIQUE,
      display_name text NOT NULL,
      custom_domain text UNIQUE,
      embed_enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      email text NOT NULL,
      username text NOT NULL,
      first_name text,
      last_name text,
      picture text,
      role text NOT NULL CHECK (role IN ('admin', 'developer', 'viewer')),
      external_id text,
      is_deactivated boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_tenant_email ON users (tenant_id, lower(email));
    CREATE UNIQUE INDEX users_tenant_username ON users (tenant_id, lower(username));

    CREATE TABLE groups (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      external_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX groups_tenant_name ON groups (tenant_id, lower(name));

    CREATE TABLE group_members (
      group_id integer NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, user_id)
    );
    CREATE INDEX group_members_user ON group_members (user_id);

    CREATE TABLE api_keys (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('api', 'scim')),
      key_hash text NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      deployment_ids integer[],
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX api_keys_tenant ON api_keys (tenant_id, id);

    CREATE TABLE deployments (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      data_source jsonb NOT NULL,
      api_secret_enc text NOT NULL,
      base_path text NOT NULL DEFAULT '/cubejs-api',
      creation_step text NOT NULL DEFAULT 'ready',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX deployments_tenant ON deployments (tenant_id, id);

    CREATE TABLE environments (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('production', 'staging', 'development')),
      branch text NOT NULL,
      user_id integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (deployment_id, type, branch)
    );

    CREATE TABLE model_files (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      branch text NOT NULL,
      path text NOT NULL,
      content text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (deployment_id, branch, path)
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE model_files, environments, deployments, api_keys, group_members, groups, users, tenants`.execute(
    db,
  );
}
