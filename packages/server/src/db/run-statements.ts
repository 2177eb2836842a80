import { type Kysely, sql } from 'kysely';

/** Runs a `;`-separated script one statement at a time: PGlite's extended protocol takes one per call. */
export async function runStatements(db: Kysely<unknown>, script: string): Promise<void> {
  for (const statement of script.split(/;\s*$/m)) {
    if (statement.trim() !== '') await sql.raw(statement).execute(db);
  }
}
