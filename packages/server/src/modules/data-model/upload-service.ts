import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { fileHash, treeHash } from './hashes.ts';
import { checkModelFiles } from './model-check.ts';
import { DataModelRepository } from './repository.ts';
import { type DataModelService, MAIN_BRANCH, modelChange, requireBranchName } from './service.ts';
import { UploadRepository } from './upload-repository.ts';

/** An upload left open this long is abandoned: it can no longer take files or be finished. */
export const UPLOAD_TTL_MS = 60 * 60_000;
/** A session holds at most this many files, like `PUT data-model/files` takes per request. */
const MAX_SESSION_FILES = 5_000;

interface BranchQuery {
  branchName?: string;
}

/**
 * The reference's Data Model Uploads group, as the Cube CLI's `deploy` uses it: read
 * `file-hashes`, `upload/start` a transaction, `upload/file` only what changed, then
 * `upload/finish` with the whole project's `{path: {hash}}` map. Finishing applies the session to
 * the branch in one transaction: uploaded files are written, and with `autoRemoveFiles` (default
 * true) branch files missing from the map are pruned ("prune removed files"). The `model_files`
 * trigger then drops the compiled model on every replica.
 */
export class UploadService {
  constructor(
    private readonly uploads: UploadRepository,
    private readonly files: DataModelRepository,
    private readonly dataModel: DataModelService,
    /** Issue 22 item 5: a finished upload is recorded in its transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
  ) {}

  async fileHashes(p: Principal, id: number, q: BranchQuery) {
    await this.dataModel.deployment(p, id);
    const rows = await this.files.files(id, q.branchName ?? MAIN_BRANCH);
    return Object.fromEntries(rows.map((r) => [r.path, { hash: fileHash(r.content) }]));
  }

  async start(p: Principal, id: number, q: BranchQuery) {
    const deployment = await this.dataModel.deployment(p, id);
    requireBranchName(q.branchName, 'querystring/branchName');
    await this.uploads.sweepExpired();
    const transaction = { id: randomUUID() };
    await this.uploads.create({
      id: transaction.id,
      deploymentId: id,
      branch: q.branchName ?? MAIN_BRANCH,
      userId: p.userId,
      expiresAt: new Date(Date.now() + UPLOAD_TTL_MS),
    });
    return { transaction, deploymentName: deployment.name };
  }

  async uploadFile(p: Principal, id: number, body: { transaction: string; fileName: string; file: string }) {
    await this.dataModel.deployment(p, id);
    await this.open(id, body.transaction, 'body/transaction');
    await checkModelFiles([{ path: body.fileName, content: body.file, field: 'body/file' }]);
    if ((await this.uploads.countFiles(body.transaction)) >= MAX_SESSION_FILES)
      throw new ConflictError(`An upload holds at most ${MAX_SESSION_FILES} files`, 'upload_too_large');
    await this.uploads.putFile(body.transaction, {
      path: body.fileName,
      content: body.file,
      hash: fileHash(body.file),
    });
    return { success: true };
  }

  async finish(
    p: Principal,
    id: number,
    body: {
      transaction: { id: string };
      files: Record<string, { hash: string }>;
      autoRemoveFiles?: boolean | null;
    },
  ) {
    await this.dataModel.deployment(p, id);
    return this.uploads.transaction(async (tx) => {
      const uploads = new UploadRepository(tx);
      const files = new DataModelRepository(tx);
      // The row lock serialises parallel finishes: the second sees finished_at and stops.
      const session = await this.open(id, body.transaction.id, 'body/transaction/id', uploads, true);
      const uploaded = await uploads.files(session.id);
      const current = await files.files(id, session.branch);
      const currentHash = new Map(current.map((f) => [f.path, fileHash(f.content)]));
      const uploadedPaths = new Set(uploaded.map((f) => f.path));
      // Every listed file must be in the upload or already on the branch with that content.
      const problems = Object.entries(body.files)
        .filter(([path, { hash }]) => !uploadedPaths.has(path) && currentHash.get(path) !== hash)
        .map(([path]) => ({
          field: `body/files/${path}`,
          message: currentHash.has(path)
            ? 'hash differs from the stored file and the file was not uploaded'
            : 'was neither uploaded nor present on the branch',
        }));
      if (problems.length > 0)
        throw new ValidationError('Upload is missing files', problems, 'upload_incomplete');

      const keep = new Set([...Object.keys(body.files), ...uploadedPaths]);
      const removed = body.autoRemoveFiles === false ? [] : current.filter((f) => !keep.has(f.path));
      if (removed.length > 0)
        await files.remove(
          id,
          session.branch,
          removed.map((f) => f.path),
        );
      if (uploaded.length > 0) await files.upsert(id, session.branch, uploaded);
      const lastHash = treeHash(await files.files(id, session.branch));
      await uploads.finish(session.id, lastHash);
      await this.audit.record(
        tx,
        p,
        modelChange('data_model.upload', id, session.branch, {
          before: { files: current.map((f) => f.path) },
          after: {
            written: uploaded.map((f) => f.path),
            removed: removed.map((f) => f.path),
          },
        }),
      );
      return { lastHash };
    });
  }

  /** The open session `sessionId` of deployment `id`, or a 404/409 naming `field`. */
  private async open(id: number, sessionId: string, field: string, repo = this.uploads, lock = false) {
    const session = await repo.session(sessionId, id, lock);
    if (!session || session.expired)
      throw new NotFoundError(
        `Upload transaction ${sessionId} (${field}; it may have expired)`,
        'upload_not_found',
      );
    if (session.finished_at !== null)
      throw new ConflictError(`Upload transaction ${sessionId} is already finished`, 'upload_finished');
    return session;
  }
}
