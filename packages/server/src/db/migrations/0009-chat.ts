import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * The chat agent (spec 4.6, DESIGN.md "Chat agent"). `tenants.chat_enabled` is the plan feature
 * (on unless turned off). An agent answers over one deployment; its brain settings are JSON and
 * an OpenAI key is sealed apart from them, never returned. A turn is a run: (thread, messageId)
 * is unique, so a repeated request finds the run instead of starting another, and a run's lines
 * are an append-only log keyed by (run, seq) that every response replays and then follows; a
 * line is stored as the text that was sent, so that a replay repeats it byte for byte.
 * Thread owners are chat users: external ones are `embed_users` (so that the ephemeral-user
 * sweeper removes them with their threads), internal ones account users.
 */
const statements = `
    ALTER TABLE tenants ADD COLUMN chat_enabled boolean NOT NULL DEFAULT true;

    CREATE TABLE agents (
      id serial PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      name text NOT NULL,
      instructions text NOT NULL DEFAULT '',
      brain jsonb NOT NULL,
      api_key_enc text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX agents_tenant ON agents (tenant_id, id);

    CREATE TABLE chat_threads (
      id text PRIMARY KEY,
      tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      agent_id integer NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      embed_user_id integer REFERENCES embed_users(id) ON DELETE CASCADE,
      user_id integer REFERENCES users(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((embed_user_id IS NULL) <> (user_id IS NULL))
    );

    CREATE TABLE chat_runs (
      id serial PRIMARY KEY,
      thread_id text NOT NULL REFERENCES chat_threads(id) ON DELETE CASCADE,
      message_id text NOT NULL,
      input text NOT NULL,
      status text NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'done', 'error', 'aborted', 'suspended')),
      context jsonb NOT NULL,
      stop_requested boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (thread_id, message_id)
    );
    CREATE INDEX chat_runs_running ON chat_runs (status) WHERE status = 'running';

    CREATE TABLE chat_run_lines (
      run_id integer NOT NULL REFERENCES chat_runs(id) ON DELETE CASCADE,
      seq integer NOT NULL,
      line text NOT NULL,
      PRIMARY KEY (run_id, seq)
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `DROP TABLE chat_run_lines, chat_runs, chat_threads, agents;
     ALTER TABLE tenants DROP COLUMN chat_enabled`,
  );
}
