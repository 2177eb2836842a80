import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Embedding (spec 2.6, 3 and 4.3; the reference's Embed, Embed Tenants and Dashboard Embed Access
 * groups). Whether a tenant embeds at all stays `tenants.embed_enabled` (0001); the rest of its
 * embed settings live in `embed_settings`. Identity keys are unique in the store, so parallel
 * identical sessions upsert one embed tenant, one user and one group each. Sessions are stored as
 * SHA-256 hashes (DESIGN.md "Persistence"); a session row outlives its redemption until the token
 * minted from it expires, because revoking a session revokes that token too.
 */
const statements = `
    CREATE TABLE embed_settings (
      tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
      token_secret_enc text,
      frame_ancestors text[] NOT NULL DEFAULT '{}',
      show_dashboard_chat boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE embed_tenants (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9-]{0,34}[a-z0-9]$'),
      display_name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );

    CREATE TABLE embed_users (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      embed_tenant_id integer REFERENCES embed_tenants(id) ON DELETE CASCADE,
      external_id text NOT NULL,
      email text,
      display_name text,
      picture text,
      internal_id text,
      expires_at timestamptz,
      last_login timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX embed_users_identity ON embed_users (tenant_id, coalesce(embed_tenant_id, 0), external_id);
    CREATE INDEX embed_users_embed_tenant ON embed_users (embed_tenant_id);
    CREATE INDEX embed_users_expiry ON embed_users (expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE embed_groups (
      id serial PRIMARY KEY,
      embed_tenant_id integer NOT NULL REFERENCES embed_tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (embed_tenant_id, name)
    );

    CREATE TABLE embed_group_members (
      group_id integer NOT NULL REFERENCES embed_groups(id) ON DELETE CASCADE,
      embed_user_id integer NOT NULL REFERENCES embed_users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, embed_user_id)
    );
    CREATE INDEX embed_group_members_user ON embed_group_members (embed_user_id);

    CREATE TABLE embed_user_groups (
      embed_user_id integer NOT NULL REFERENCES embed_users(id) ON DELETE CASCADE,
      group_id integer NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
      PRIMARY KEY (embed_user_id, group_id)
    );

    CREATE TABLE embed_sessions (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      embed_user_id integer NOT NULL REFERENCES embed_users(id) ON DELETE CASCADE,
      session_hash text NOT NULL UNIQUE,
      context jsonb NOT NULL,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      redeemed_at timestamptz,
      token_expires_at timestamptz,
      revoked_at timestamptz
    );
    CREATE INDEX embed_sessions_expiry ON embed_sessions ((coalesce(token_expires_at, expires_at)));

    CREATE TABLE embed_access (
      id serial PRIMARY KEY,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      workbook_id integer NOT NULL REFERENCES workbooks(id) ON DELETE CASCADE,
      embed_tenant_id integer REFERENCES embed_tenants(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX embed_access_unique ON embed_access (workbook_id, coalesce(embed_tenant_id, 0));
    CREATE INDEX embed_access_tenant ON embed_access (embed_tenant_id);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE embed_access, embed_sessions, embed_user_groups, embed_group_members, embed_groups,
       embed_users, embed_tenants, embed_settings`,
  );
}
