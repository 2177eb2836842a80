import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface VersionRow {
  id: number;
  number: number;
  files_hash: string;
  files: string[];
  action: string;
  from_branch: string | null;
  created_by: number | null;
  created_at: Date;
  email: string | null;
  first_name: string | null;
}

/** `model_versions` (migration 0031): each change of a deployment's default branch; plain Kysely. */
export class ModelVersionsRepository {
  constructor(private readonly db: Db) {}

  async latestHash(deploymentId: number, db: Db = this.db): Promise<string | null> {
    const row = await db
      .selectFrom('model_versions')
      .select('files_hash')
      .where('deployment_id', '=', deploymentId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row?.files_hash ?? null;
  }

  async insert(
    v: {
      deploymentId: number;
      filesHash: string;
      files: string[];
      action: string;
      fromBranch: string | null;
      createdBy: number | null;
    },
    db: Db = this.db,
  ): Promise<void> {
    await db
      .insertInto('model_versions')
      .values({
        deployment_id: v.deploymentId,
        files_hash: v.filesHash,
        files: JSON.stringify(v.files),
        action: v.action,
        from_branch: v.fromBranch,
        created_by: v.createdBy,
      })
      .execute();
  }

  /** Newest first, each with its ordinal (1 for the first version); one row more than `limit`. */
  list(deploymentId: number, before: number | null, limit: number): Promise<VersionRow[]> {
    let q = this.db
      .selectFrom('model_versions as v')
      .leftJoin('users as u', 'u.id', 'v.created_by')
      .select([
        'v.id',
        sql<number>`(SELECT count(*)::int FROM model_versions o WHERE o.deployment_id = v.deployment_id AND o.id <= v.id)`.as(
          'number',
        ),
        'v.files_hash',
        'v.files',
        'v.action',
        'v.from_branch',
        'v.created_by',
        'v.created_at',
        'u.email',
        'u.first_name',
      ])
      .where('v.deployment_id', '=', deploymentId)
      .orderBy('v.id', 'desc')
      .limit(limit + 1);
    if (before !== null) q = q.where('v.id', '<', before);
    return q.execute() as Promise<VersionRow[]>;
  }
}
