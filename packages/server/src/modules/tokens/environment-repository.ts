import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EnvironmentRow, EnvironmentTokenRow } from '../../db/schema.ts';
import { cursorId, type PageWindow } from '../../pagination/page.ts';

export interface NewEnvironmentToken {
  environmentId: number;
  tokenHash: string;
  tokenHint: string;
  securityContext: Record<string, unknown>;
  scopes: string[] | null;
  metaSync: boolean;
  createdBy: number | null;
  expiresAt: Date;
}

/** `environment_tokens` (migration 0030) and the environment they belong to; plain Kysely, no rules. */
export class EnvironmentTokensRepository {
  constructor(private readonly db: Db) {}

  environment(deploymentId: number, id: number): Promise<EnvironmentRow | undefined> {
    return this.db
      .selectFrom('environments')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Tokens not yet expired, newest first (keyset on the id, descending). */
  live(environmentId: number, window: PageWindow): Promise<EnvironmentTokenRow[]> {
    let q = this.db
      .selectFrom('environment_tokens')
      .selectAll()
      .where('environment_id', '=', environmentId)
      .where('expires_at', '>', sql<Date>`now()`)
      .orderBy('id', 'desc')
      .limit(window.size + 1);
    if (window.mode === 'offset') q = q.offset(window.offset);
    else if (window.after) q = q.where('id', '<', cursorId(window.after));
    return q.execute();
  }

  async countLive(environmentId: number): Promise<number> {
    const row = await this.db
      .selectFrom('environment_tokens')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('environment_id', '=', environmentId)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  /** Records a token and drops the environment's expired ones, so the table holds only live tokens. */
  insert(token: NewEnvironmentToken): Promise<EnvironmentTokenRow> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('environment_tokens')
        .where('environment_id', '=', token.environmentId)
        .where('expires_at', '<=', sql<Date>`now()`)
        .execute();
      return trx
        .insertInto('environment_tokens')
        .values({
          environment_id: token.environmentId,
          token_hash: token.tokenHash,
          token_hint: token.tokenHint,
          security_context: JSON.stringify(token.securityContext),
          scopes: token.scopes === null ? null : JSON.stringify(token.scopes),
          meta_sync: token.metaSync,
          created_by: token.createdBy,
          expires_at: token.expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }
}
