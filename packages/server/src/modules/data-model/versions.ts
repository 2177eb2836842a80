import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { decodeCursor, encodeCursor } from '../../pagination/cursor.ts';
import { cursorId } from '../../pagination/page.ts';
import type { AuditChange } from '../audit-log/service.ts';
import { treeHash } from './hashes.ts';
import type { DataModelRepository } from './repository.ts';
import type { ModelVersionsRepository } from './versions-repository.ts';
import type { DeploymentVersionsQuery, DeploymentVersionsResponse } from './versions-schemas.ts';

const defaultBranch = 'main';

/**
 * The versions of a deployment's model (issue 25 item 1, the reference's `GET .../versions`): the
 * model a deployment serves is its default branch, so each change of it (a file write, a merge
 * to it, an upload) is a version, recorded with who and when in the change's own transaction.
 * A change that leaves the files as they were (same hash as the last version) is not a new one.
 */
export class ModelVersions {
  constructor(
    private readonly versions: ModelVersionsRepository,
    private readonly files: DataModelRepository,
    private readonly deployment: (p: Principal, id: number) => Promise<unknown>,
  ) {}

  /** Called with every recorded model change (DataModelService.recorded), inside its transaction. */
  async recordIfDefault(
    trx: Db,
    p: Principal,
    change: AuditChange,
    files: DataModelRepository,
  ): Promise<void> {
    if (change.targetType !== 'data_model' || typeof change.targetId !== 'number') return;
    const after = change.after as { branch?: string; fromBranch?: string } | undefined;
    if (after?.branch !== defaultBranch) return;
    const deploymentId = change.targetId;
    const current = await files.files(deploymentId, defaultBranch);
    const hash = treeHash(current);
    if ((await this.versions.latestHash(deploymentId, trx)) === hash) return;
    await this.versions.insert(
      {
        deploymentId,
        filesHash: hash,
        files: current.map((f) => f.path),
        action: change.action,
        fromBranch: after.fromBranch ?? null,
        createdBy: p.userId > 0 ? p.userId : null,
      },
      trx,
    );
  }

  async list(
    p: Principal,
    deploymentId: number,
    q: Static<typeof DeploymentVersionsQuery>,
  ): Promise<Static<typeof DeploymentVersionsResponse>> {
    await this.deployment(p, deploymentId);
    const limit = q.first ?? 50;
    const before = q.after ? cursorId(decodeCursor(q.after, 1)) : null;
    const [rows, newest, serving] = await Promise.all([
      this.versions.list(deploymentId, before, limit),
      this.versions.list(deploymentId, null, 0),
      this.files.files(deploymentId, defaultBranch),
    ]);
    const newestId = newest[0]?.id;
    const servingHash = treeHash(serving);
    const page = rows.slice(0, limit);
    return {
      items: page.map((r) => ({
        id: r.id,
        version: `v${r.number}`,
        releaseChannelVersion: `v${r.number}`,
        releaseChannel: 'release' as const,
        isLatestInChannel: r.id === newestId,
        isCurrent: r.id === newestId && r.files_hash === servingHash,
        filesHash: r.files_hash,
        files: r.files,
        action: r.action,
        fromBranch: r.from_branch,
        createdAt: r.created_at.toISOString(),
        createdBy:
          r.created_by === null || r.email === null
            ? null
            : { id: r.created_by, email: r.email, firstName: r.first_name },
      })),
      pageInfo: {
        hasNextPage: rows.length > limit,
        hasPreviousPage: before !== null,
        startCursor: page[0] ? encodeCursor([page[0].id]) : null,
        endCursor: page.at(-1) ? encodeCursor([page.at(-1)!.id]) : null,
      },
    };
  }
}
