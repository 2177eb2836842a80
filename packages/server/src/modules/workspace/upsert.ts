import { ConflictError } from '../../errors/domain-errors.ts';

/** A unique-key violation: PostgreSQL and PGlite report SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

/**
 * An upsert by a unique key (a workbook's slug, a report's publicId; issue 25 item 4). Each attempt
 * decides in its own transaction whether it creates or updates, and checks access for that branch.
 * Two concurrent creates of one key cannot both commit (the unique key); the loser's transaction
 * is rolled back and retried, which then finds the row and takes the update path. Only a key that
 * keeps changing under it (created and deleted again and again) ends in 409 `upsert_branch_changed`.
 */
export async function upsertByKey<T>(attempt: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (i >= attempts)
        throw new ConflictError(
          'Another request created or deleted this item at the same time; retry the request',
          'upsert_branch_changed',
        );
    }
  }
}
