import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 4: comments on dashboards (the reference's Embed comment operations, and the same
 * for signed-in users). A conversation lives in one partition of a dashboard: an embed tenant's
 * (`embed_tenant_id`), or the account users' own (null), so no embed tenant reads another's or the
 * console's. A comment is written by an account user or an embed user, never both. Replies are one
 * level deep (`parent_id` names a thread root); `last_activity_at` on a root is re-derived when a
 * reply goes. Deletion is soft (`removed_at`) so a thread keeps its shape. `mentions` are user ids
 * of the comment's partition (account users, or embed users of the tenant), checked on write.
 *
 * Issue 25 item 1: the Environments group's tokens. A data-API token is a JWT nobody needs to
 * store; the reference lists an environment's tokens, so each one issued is recorded, by its hash
 * and the last characters of its signature (`token_hint`), never the token itself. Tokens live at
 * most an hour: rows past `expires_at` are pruned as new ones are issued, so the table stays small.
 */
const statements = `
    CREATE TABLE dashboard_comments (
      id serial PRIMARY KEY,
      dashboard_id integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
      embed_tenant_id integer REFERENCES embed_tenants(id) ON DELETE CASCADE,
      parent_id integer REFERENCES dashboard_comments(id) ON DELETE CASCADE,
      author_user_id integer REFERENCES users(id) ON DELETE SET NULL,
      author_embed_user_id integer REFERENCES embed_users(id) ON DELETE SET NULL,
      body text NOT NULL,
      mentions jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      edited_at timestamptz,
      removed_at timestamptz,
      resolved_at timestamptz,
      resolved_by integer,
      last_activity_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX dashboard_comments_threads ON dashboard_comments (dashboard_id, embed_tenant_id, id DESC)
      WHERE parent_id IS NULL;
    CREATE INDEX dashboard_comments_replies ON dashboard_comments (parent_id, id) WHERE parent_id IS NOT NULL;

    CREATE TABLE environment_tokens (
      id serial PRIMARY KEY,
      environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
      token_hash text NOT NULL,
      token_hint text NOT NULL,
      security_context jsonb NOT NULL,
      scopes jsonb,
      meta_sync boolean NOT NULL DEFAULT false,
      created_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX environment_tokens_live ON environment_tokens (environment_id, id DESC);
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE environment_tokens;\nDROP TABLE dashboard_comments');
}
