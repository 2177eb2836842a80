import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { sha256 } from '../../crypto/secrets.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { BuildStatusResponse } from './lifecycle-schemas.ts';
import type { BuildLog, ModelBuilds } from './ports.ts';
import type { DeploymentsService } from './service.ts';

/** The default branch: what queries read when a token names none (modules/data-model MAIN_BRANCH). */
const defaultBranch = 'main';

/**
 * `GET .../build-status` (issue 25 item 1): the compile state of a branch's model, ok or its errors
 * with file and line. Tessera compiles models on demand (no build jobs): the status is the
 * branch's files compiled now, by the data-model module's own validation.
 */
export class BuildStatusService {
  constructor(
    private readonly deps: {
      deployments: DeploymentsService;
      /** Resolved lazily: the data-model module is composed after deployments (composition.ts). */
      models: () => ModelBuilds;
      log?: BuildLog;
    },
  ) {}

  async status(p: Principal, id: number, branchName?: string): Promise<Static<typeof BuildStatusResponse>> {
    const deployment = await this.deps.deployments.require(p.tenantId, id);
    const branch = branchName ?? defaultBranch;
    const models = this.deps.models();
    const { items: branches } = await models.branches(p, id);
    if (!branches.some((b) => b.name === branch))
      throw new NotFoundError(`Branch ${branch} of deployment ${id}`);
    const started = Date.now();
    const [{ items: files }, result] = await Promise.all([
      models.listFiles(p, id, { branchName: branch, withContent: true }),
      models.validate(p, id, { branchName: branch }),
    ]);
    const errorText = result.errors.map(where).join('\n');
    this.deps.log?.write({
      deploymentId: id,
      branch,
      kind: 'build',
      level: result.valid ? 'info' : 'error',
      message: result.valid
        ? `Model of ${branch} compiled: ${result.cubesCount} cubes and views`
        : `Model of ${branch} has ${result.errors.length} error${result.errors.length > 1 ? 's' : ''}: ${errorText}`,
      details: {
        trigger: 'build-status',
        durationMs: Date.now() - started,
        files: files.length,
        errors: result.errors,
      },
    });
    const hash = files.length === 0 ? null : treeHashOf(files);
    const updatedAt = files.reduce<string | null>(
      (m, f) => (m === null || f.updatedAt > m ? f.updatedAt : m),
      null,
    );
    return {
      deploymentId: id,
      branchName: branch,
      mode: branch === defaultBranch ? 'production' : 'dev_mode',
      status: result.valid ? 'ok' : 'error',
      errorText: result.valid ? null : errorText,
      errors: result.errors,
      cubesCount: result.cubesCount,
      filesHash: hash,
      lastHash: hash,
      buildJobId: null,
      deploymentStatus: deployment.creation_step,
      updatedAt,
    };
  }
}

const where = (e: { fileName: string | null; line: number | null; message: string }) =>
  `${e.fileName ?? 'model'}${e.line !== null ? `:${e.line}` : ''}: ${e.message}`;

/** The same order-independent hash as data-model/hashes.ts treeHash (upload's `lastHash`). */
function treeHashOf(files: readonly { fileName: string; content?: string }[]): string {
  const lines = files.map((f) => `${f.fileName}\0${sha256(f.content ?? '')}`).sort();
  return sha256(lines.join('\n'));
}
