import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 22 item 7: OpenID Connect both ways.
 * - Tessera as issuer (reference group OIDC Token Configs): what a deployment token says, and the
 *   signing keys. A private key is sealed with the SecretBox; keys rotate with overlap: a retired
 *   key stays in the JWKS until `expires_at`, so tokens it signed still verify.
 * - Sign-in with an external provider: `oidc_identities` remembers which user an (issuer,
 *   subject) pair is, so that an email changed at the provider does not make a second user;
 *   `oidc_logins` is a sign-in in progress (state hash, sealed PKCE verifier and nonce).
 */
const statements = `
    CREATE TABLE oidc_token_configs (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      audience_type text NOT NULL,
      custom_audience text,
      sub_format text,
      custom_claims jsonb,
      target_env_var text,
      is_enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, name)
    );

    CREATE TABLE oidc_signing_keys (
      kid text PRIMARY KEY,
      public_jwk jsonb NOT NULL,
      private_jwk_enc text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      retired_at timestamptz,
      expires_at timestamptz
    );

    CREATE TABLE oidc_identities (
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      issuer text NOT NULL,
      subject text NOT NULL,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, issuer, subject)
    );

    CREATE TABLE oidc_logins (
      state_hash text PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      verifier_enc text NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    'DROP TABLE oidc_logins; DROP TABLE oidc_identities; DROP TABLE oidc_signing_keys; DROP TABLE oidc_token_configs',
  );
}
