import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Issue 25 item 2: git-backed data models. A deployment's git repository lives in the store, one
 * row per file of its git directory (objects, packs, refs, config), read and written by
 * isomorphic-git through an `fs` adapter (modules/data-model/git-store-fs.ts). Tessera runs
 * several replicas on one store, so a repository on one replica's disk would be missing or stale
 * on the others; in the store every replica reads the same refs, and a transaction with an
 * advisory lock makes each git operation atomic.
 *
 * `model_git_remotes`: the HTTPS remote a deployment pulls from, its token and webhook secret
 * sealed like data-source passwords (crypto/secrets.ts), never returned.
 */
const statements = `
    CREATE TABLE model_git_files (
      deployment_id integer NOT NULL REFERENCES deployments(id) ON DELETE CASCADE,
      path text NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (deployment_id, path)
    );
    CREATE TABLE model_git_remotes (
      deployment_id integer PRIMARY KEY REFERENCES deployments(id) ON DELETE CASCADE,
      url text NOT NULL,
      token_sealed text,
      webhook_secret_sealed text,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP TABLE model_git_remotes; DROP TABLE model_git_files');
}
