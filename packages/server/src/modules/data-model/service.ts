import { compileModelAsync, type ModelError } from '@tessera/semantic';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/database.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditChange, AuditLog } from '../audit-log/service.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import { generateModel } from './generate-model.ts';
import { branchNameProblem, ModelGit } from './git-repository.ts';
import { checkModelFiles } from './model-check.ts';
import { DataModelRepository } from './repository.ts';
import type { ModelVersions } from './versions.ts';

/** The production branch: what queries read when they name no branch (modules/data). */
export const MAIN_BRANCH = 'main';

/**
 * Data model files per deployment branch (the reference's Data Model group). Writes land in
 * `model_files`, whose trigger (migration 0004) drops compiled models on every replica, so the
 * data API reads the new files on its next query; a token minted for a branch reads that branch
 * there (modules/data/branch.ts).
 */
export class DataModelService {
  constructor(
    private readonly repository: DataModelRepository,
    private readonly deployments: DeploymentsService,
    /** Issue 22 item 5: file writes and branch changes are recorded in their transaction. */
    private readonly audit: Pick<AuditLog, 'record'>,
    /** Issue 25 item 1: a change of the default branch is a version of the model (versions.ts). */
    private readonly versions?: Pick<ModelVersions, 'recordIfDefault'>,
  ) {}

  /**
   * Runs a change of the model files and records it in the same transaction. Entries name files,
   * never their content (a model can hold literal values an admin reads only through the model).
   */
  async recorded<T>(
    p: Principal,
    change: (files: DataModelRepository, trx: Db) => Promise<{ result: T; audit: AuditChange }>,
  ): Promise<T> {
    return this.repository.transaction(async (files, trx) => {
      const { result, audit } = await change(files, trx);
      await this.audit.record(trx, p, audit);
      await this.versions?.recordIfDefault(trx, p, audit, files);
      return result;
    });
  }

  async listFiles(p: Principal, id: number, q: { branchName?: string; withContent?: boolean }) {
    await this.deployment(p, id);
    const rows = await this.repository.files(id, q.branchName ?? MAIN_BRANCH);
    const items = rows.map((r) => ({
      fileName: r.path,
      updatedAt: new Date(r.updated_at).toISOString(),
      ...(q.withContent ? { content: r.content } : {}),
    }));
    return { items, data: items, pageInfo: null };
  }

  /**
   * Writes files on a branch. The main branch is what queries read, so a write that leaves its
   * model with errors is refused (400, each error with its file and line) and nothing is stored;
   * a development branch takes any file and answers its model's errors, to be fixed there and
   * promoted (`mergeToDefault`) once it validates.
   */
  async updateFiles(
    p: Principal,
    id: number,
    body: { branchName?: string; files: { path: string; content: string }[] },
  ) {
    await this.deployment(p, id);
    requireBranchName(body.branchName, 'body/branchName');
    await checkModelFiles(body.files.map((f, i) => ({ ...f, field: `body/files/${i}/content` })));
    const branch = body.branchName ?? MAIN_BRANCH;
    const errors = await this.errorsWith(id, branch, body.files);
    if (branch === MAIN_BRANCH && errors.length > 0) {
      // A main already broken (files stored before writes were checked) can still be fixed file by
      // file: what is refused is a write that adds an error.
      const before = new Set((await this.errorsWith(id, branch, [])).map(where));
      const added = errors.filter((e) => !before.has(where(e)));
      if (added.length > 0) throw refusal(added, body.files);
    }
    const paths = body.files.map((f) => f.path);
    await this.recorded(p, async (files) => {
      const existing = new Set((await files.files(id, branch)).map((f) => f.path));
      await files.upsert(id, branch, body.files);
      return {
        result: undefined,
        audit: modelChange('data_model.write_files', id, branch, {
          before: { files: paths.filter((path) => existing.has(path)) },
          after: { files: paths },
        }),
      };
    });
    return { success: true, valid: errors.length === 0, errors };
  }

  /**
   * The errors the branch's model would have with `files` written over it, stored nothing: what an
   * editor shows as its user types.
   */
  async validateDraft(
    p: Principal,
    id: number,
    body: { branchName?: string; files: { path: string; content: string }[] },
  ) {
    await this.deployment(p, id);
    const branch = body.branchName ?? MAIN_BRANCH;
    const errors = await this.errorsWith(id, branch, body.files);
    return { deploymentId: id, branchName: branch, valid: errors.length === 0, errors };
  }

  /** A starting model from tables of the deployment's data source (generate-model.ts); stores nothing. */
  async generate(p: Principal, id: number, body: { tables: { schema: string; name: string }[] }) {
    await this.deployment(p, id);
    const { schemas } = await this.deployments.tables(p, id);
    const all = schemas.flatMap((s) => s.tables);
    const chosen = body.tables.map((want, i) => {
      const table = all.find((t) => t.schema === want.schema && t.name === want.name);
      if (!table)
        throw new ValidationError(`No table ${want.schema}.${want.name} in the data source`, [
          {
            field: `body/tables/${i}`,
            message: `names no table the data source shows (${want.schema}.${want.name})`,
          },
        ]);
      return table;
    });
    return { files: generateModel(chosen) };
  }

  /**
   * Generated files onto a development branch, in the caller's transaction (dbt sync, issue 25
   * item 3, commits them with its job's end): a new branch starts as a copy of main, as
   * `createBranch` does, and files at the same paths are replaced. A development branch takes any
   * file (`updateFiles`): the answer is the errors its model has afterwards, each with file and line.
   */
  async writeGenerated(
    trx: Db,
    p: Principal,
    id: number,
    branch: string,
    files: readonly { path: string; content: string }[],
  ): Promise<ErrorView[]> {
    if (branch === MAIN_BRANCH)
      throw new ConflictError('Generated files go onto a branch other than main', 'main_branch');
    // dbt sync's request names the branch in `branchName` (or it is made from the ref and date).
    requireBranchName(branch, 'body/branchName');
    const repo = new DataModelRepository(trx);
    const existing = new Set((await repo.files(id, branch)).map((f) => f.path));
    if (!(await repo.branches(id)).includes(branch))
      await startGitBranch(trx, repo, p, id, branch, MAIN_BRANCH);
    await this.copyIfEmpty(repo, id, MAIN_BRANCH, branch);
    if (files.length > 0) await repo.upsert(id, branch, files);
    const paths = files.map((f) => f.path);
    await this.audit.record(
      trx,
      p,
      modelChange('data_model.write_files', id, branch, {
        before: { files: paths.filter((path) => existing.has(path)) },
        after: { files: paths, generatedBy: 'dbt_sync' },
      }),
    );
    const all = await repo.files(id, branch);
    const { errors } = await compileModelAsync(all.map((f) => ({ path: f.path, content: f.content })));
    return errors.map(errorView);
  }

  /** The errors the branch's model has with `files` written over its stored ones. */
  async errorsWith(id: number, branch: string, files: readonly { path: string; content: string }[]) {
    const stored = await this.repository.files(id, branch);
    const written = new Map(files.map((f) => [f.path, f.content]));
    const merged = [
      ...stored.filter((f) => !written.has(f.path)).map((f) => ({ path: f.path, content: f.content })),
      ...files,
    ];
    const { errors } = await compileModelAsync(merged);
    return errors.map(errorView);
  }

  async removeFiles(p: Principal, id: number, body: { branchName?: string; files: { path: string }[] }) {
    await this.deployment(p, id);
    const branch = body.branchName ?? MAIN_BRANCH;
    const paths = body.files.map((f) => f.path);
    await this.recorded(p, async (files) => {
      const existing = new Set((await files.files(id, branch)).map((f) => f.path));
      const removed = await files.remove(id, branch, paths);
      if (removed === 0) throw new NotFoundError('Model file');
      return {
        result: undefined,
        audit: modelChange('data_model.remove_files', id, branch, {
          before: { files: paths.filter((path) => existing.has(path)) },
          after: { files: [] },
        }),
      };
    });
    return { success: true };
  }

  async renameFiles(
    p: Principal,
    id: number,
    body: { branchName?: string; files: { path: string; newPath: string }[] },
  ) {
    await this.deployment(p, id);
    const branch = body.branchName ?? MAIN_BRANCH;
    const existing = new Set((await this.repository.files(id, branch)).map((f) => f.path));
    for (const f of body.files) {
      if (!existing.has(f.path)) throw new NotFoundError(`Model file ${f.path}`);
      if (existing.has(f.newPath))
        throw new ConflictError(`Model file ${f.newPath} already exists`, 'file_exists');
    }
    await this.recorded(p, async (files) => {
      await files.rename(id, branch, body.files);
      return {
        result: undefined,
        audit: modelChange('data_model.rename_files', id, branch, {
          before: { files: body.files.map((f) => f.path) },
          after: { files: body.files.map((f) => f.newPath) },
        }),
      };
    });
    return { success: true };
  }

  /** Compiles the branch's files and reports every error with its file and line. */
  async validate(p: Principal, id: number, q: { branchName?: string }) {
    await this.deployment(p, id);
    const branch = q.branchName ?? MAIN_BRANCH;
    const files = await this.repository.files(id, branch);
    const { model, errors } = await compileModelAsync(
      files.map((f) => ({ path: f.path, content: f.content })),
    );
    return {
      deploymentId: id,
      branchName: branch,
      mode: branch === MAIN_BRANCH ? ('production' as const) : ('dev_mode' as const),
      valid: errors.length === 0,
      cubesCount: model.cubes.size + model.views.size,
      errors: errors.map(errorView),
    };
  }

  /** Development mode on a branch: a `development` environment; the branch starts as a copy of main. */
  async startDevMode(p: Principal, id: number, body: { branchName?: string | null }) {
    await this.deployment(p, id);
    const branch = body.branchName ?? `dev-${p.userId}`;
    requireBranchName(branch, 'body/branchName');
    if (branch === MAIN_BRANCH)
      throw new ConflictError('Development mode needs a branch other than main', 'main_branch');
    await this.repository.transaction(async (repo, trx) => {
      if (!(await repo.branches(id)).includes(branch))
        await startGitBranch(trx, repo, p, id, branch, MAIN_BRANCH);
      await this.copyIfEmpty(repo, id, MAIN_BRANCH, branch);
      await repo.addDevelopment(id, branch, p.userId);
    });
    return { active: true, branchName: branch, parentBranch: MAIN_BRANCH };
  }

  async stopDevMode(p: Principal, id: number) {
    await this.deployment(p, id);
    await this.repository.removeDevelopment(id, { userId: p.userId });
    return { success: true };
  }

  async branches(p: Principal, id: number) {
    await this.deployment(p, id);
    const names = (await this.repository.branches(id)).sort((a, b) =>
      a === MAIN_BRANCH ? -1 : b === MAIN_BRANCH ? 1 : a.localeCompare(b),
    );
    if (!names.includes(MAIN_BRANCH)) names.unshift(MAIN_BRANCH);
    // Issue 25 item 2: each branch is a git branch; its head and the branch it was made from.
    const git = ModelGit.reader(this.repository.database, id);
    const [heads, staging] = await Promise.all([git.heads(), this.repository.stagingBranches(id)]);
    const items = await Promise.all(
      names.map(async (name, i) => ({
        id: i + 1,
        name,
        parentBranch: name === MAIN_BRANCH ? null : ((await git.parentOf(name)) ?? MAIN_BRANCH),
        isStagingEnvironmentEnabled: staging.has(name),
        lastHash: heads.get(name) ?? null,
      })),
    );
    return { items, data: items, pageInfo: null };
  }

  /** Every branch with files or an environment (main among them once it has files). */
  branchNames(id: number) {
    return this.repository.branches(id);
  }

  async createBranch(
    p: Principal,
    id: number,
    body: { name: string; from?: string | null; activate?: boolean | null },
  ) {
    await this.deployment(p, id);
    requireBranchName(body.name, 'body/name');
    requireBranchName(body.from, 'body/from');
    if ((await this.repository.branches(id)).includes(body.name) || body.name === MAIN_BRANCH)
      throw new ConflictError(`Branch ${body.name} already exists`, 'branch_exists');
    const from = body.from ?? MAIN_BRANCH;
    await this.recorded(p, async (repo, trx) => {
      await this.copyIfEmpty(repo, id, from, body.name);
      await startGitBranch(trx, repo, p, id, body.name, from);
      if (body.activate) await repo.addDevelopment(id, body.name, p.userId);
      return {
        result: undefined,
        audit: branchChange('data_model_branch.create', id, body.name, {
          after: { deploymentId: id, name: body.name, from, activated: body.activate === true },
        }),
      };
    });
    return { active: body.activate === true, branchName: body.name, parentBranch: from };
  }

  async removeBranch(p: Principal, id: number, branch: string) {
    await this.deployment(p, id);
    if (branch === MAIN_BRANCH) throw new ConflictError('The main branch cannot be deleted', 'main_branch');
    if (!(await this.repository.branches(id)).includes(branch)) throw new NotFoundError(`Branch ${branch}`);
    await this.recorded(p, async (repo, trx) => {
      const files = await repo.files(id, branch);
      await repo.remove(id, branch, []);
      await repo.removeDevelopment(id, { branch });
      await (await ModelGit.locked(trx, id)).deleteBranch(branch);
      return {
        result: undefined,
        audit: branchChange('data_model_branch.delete', id, branch, {
          before: { deploymentId: id, name: branch, files: files.map((f) => f.path) },
        }),
      };
    });
    return { success: true };
  }

  private async copyIfEmpty(repo: DataModelRepository, id: number, from: string, to: string) {
    if ((await repo.files(id, to)).length > 0) return;
    const files = await repo.files(id, from);
    if (files.length > 0) await repo.upsert(id, to, files);
  }

  /** The deployment, if the principal may reach it (also used by the upload service). */
  async deployment(p: Principal, id: number) {
    if (p.deploymentIds !== null && !p.deploymentIds.includes(id))
      throw new ForbiddenError('API key is not scoped to this deployment');
    return this.deployments.require(p.tenantId, id);
  }
}

/**
 * A new branch is a git branch at its parent's head (the parent's pending changes committed
 * first), so that a later merge finds where the two parted (issue 25 item 2).
 */
async function startGitBranch(
  trx: Db,
  repo: DataModelRepository,
  p: Principal,
  id: number,
  name: string,
  from: string,
) {
  const git = await ModelGit.locked(trx, id);
  const { oid } = await git.commit(from, await repo.files(id, from), `Changes to ${from}`, gitAuthor(p));
  await git.setHead(name, oid);
  if (from !== MAIN_BRANCH) await git.setParent(name, from);
}

/** A branch is a git branch: a name git refuses is a 400 naming the field (issue 25 item 2). */
export function requireBranchName(name: string | null | undefined, field: string) {
  const problem = name ? branchNameProblem(name) : null;
  if (problem) throw new ValidationError(`Branch ${name} ${problem}`, [{ field, message: problem }]);
}

/** A commit's author: the user acting, or Tessera itself for a webhook's pull. */
export function gitAuthor(p: Principal) {
  return p.userId > 0
    ? { name: `Tessera user ${p.userId}`, email: `user-${p.userId}@tessera.invalid` }
    : { name: 'Tessera', email: 'git-webhook@tessera.invalid' };
}

/** An entry about a branch's files; the target is the deployment's data model. */
export function modelChange(
  action: string,
  deploymentId: number,
  branch: string,
  change: { before: Record<string, unknown>; after: Record<string, unknown> },
): AuditChange {
  return {
    action,
    targetType: 'data_model',
    targetId: deploymentId,
    before: { deploymentId, branch, ...change.before },
    after: { deploymentId, branch, ...change.after },
  };
}

/** A branch is named by its deployment and name: `<deploymentId>/<branch>`. */
function branchChange(
  action: string,
  deploymentId: number,
  branch: string,
  change: { before?: unknown; after?: unknown },
): AuditChange {
  return { action, targetType: 'data_model_branch', targetId: `${deploymentId}/${branch}`, ...change };
}

export interface ErrorView {
  fileName: string | null;
  line: number | null;
  message: string;
}

export function errorView(e: ModelError): ErrorView {
  const what = [e.cube, e.member].filter(Boolean).join('.');
  return { fileName: e.file, line: e.line, message: what ? `${what}: ${e.message}` : e.message };
}

export const where = (e: ErrorView) =>
  `${e.fileName ?? 'model'}${e.line !== null ? `:${e.line}` : ''}: ${e.message}`;

/** A write to main refused: each error under the file of the body it is in, with its line. */
function refusal(errors: readonly ErrorView[], files: readonly { path: string }[]) {
  return new ValidationError(
    `The main branch takes only a model without errors: ${errors.map(where).join('; ')}`,
    errors.map((e) => {
      const i = files.findIndex((f) => f.path === e.fileName);
      return { field: i >= 0 ? `body/files/${i}/content` : 'body/files', message: where(e) };
    }),
  );
}
