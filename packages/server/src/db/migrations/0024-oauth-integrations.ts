import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 6: OAuth integrations (reference group OAuth Integrations) and the tokens users
 * connect through them (group User OAuth Tokens, spec 4.1). Client secrets and tokens are sealed
 * with the SecretBox (crypto/secrets.ts), never stored in clear. An authorization-code flow in
 * progress is one `oauth_flows` row, keyed by the SHA-256 of its `state` and holding the sealed
 * PKCE verifier (RFC 7636); the callback consumes it once.
 */
const statements = `
    CREATE TABLE oauth_integrations (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL,
      auth_url text NOT NULL,
      token_url text NOT NULL,
      client_id text NOT NULL,
      client_secret_enc text NOT NULL,
      redirect_uri text NOT NULL,
      scopes jsonb,
      config jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX oauth_integrations_tenant ON oauth_integrations (tenant_id);

    CREATE TABLE user_oauth_tokens (
      id serial PRIMARY KEY,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      integration_id integer NOT NULL REFERENCES oauth_integrations(id) ON DELETE CASCADE,
      status text NOT NULL,
      access_token_enc text,
      refresh_token_enc text,
      access_token_expires_at timestamptz,
      refresh_token_expires_at timestamptz,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (user_id, integration_id)
    );

    CREATE TABLE oauth_flows (
      state_hash text PRIMARY KEY,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      integration_id integer NOT NULL REFERENCES oauth_integrations(id) ON DELETE CASCADE,
      verifier_enc text NOT NULL,
      return_to text,
      expires_at timestamptz NOT NULL
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP TABLE oauth_flows; DROP TABLE user_oauth_tokens; DROP TABLE oauth_integrations',
  );
}
