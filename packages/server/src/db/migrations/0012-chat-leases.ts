import type { Kysely } from 'kysely';
import { runStatements } from '../run-statements.ts';

/**
 * Chat run leases (DESIGN.md "Chat agent", reference chat-api.yaml "Suspensions"). The process
 * running a turn renews `heartbeat_at` every few seconds; a run still `running` whose lease has
 * lapsed belongs to a process that died without suspending it (a crash, a kill), and any replica
 * marks it suspended (at start and then periodically) so that the same request resumes it. Rows
 * written before this migration have no lease and count as lapsed.
 */
const statements = `
    ALTER TABLE chat_runs ADD COLUMN heartbeat_at timestamptz DEFAULT now();
    CREATE INDEX chat_runs_lease ON chat_runs (heartbeat_at) WHERE status = 'running';
`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, statements);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'DROP INDEX chat_runs_lease; ALTER TABLE chat_runs DROP COLUMN heartbeat_at');
}
