import { createHmac, timingSafeEqual } from 'node:crypto';
import { compileModelAsync } from '@tessera/semantic';
import type { Principal } from '../../auth/principal.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { Db } from '../../db/database.ts';
import {
  ConflictError,
  DomainError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import type { GitRemotesRepository } from './git-remotes.ts';
import { type GitAuthor, GitMergeConflict, GitRemoteError, ModelGit, safeUrl } from './git-repository.ts';
import type { DataModelRepository } from './repository.ts';
import {
  type DataModelService,
  errorView,
  gitAuthor,
  MAIN_BRANCH,
  modelChange,
  requireBranchName,
  where,
} from './service.ts';

type Files = DataModelRepository;

/**
 * Git behind the branches of a deployment's model (issue 25 item 2): each branch of `model_files`
 * is its work tree, and a git branch of the same name in the deployment's repository in the store
 * (git-repository.ts) holds its commits. Commits, merges and pulls run in one transaction with the
 * files they change and their audit entry; a merge git cannot finish is a 409 naming the files.
 */
export class ModelGitService {
  constructor(
    private readonly dataModel: DataModelService,
    private readonly remotes: GitRemotesRepository,
    private readonly secrets: SecretBox,
    private readonly db: Db,
  ) {}

  /** Commits the branch's pending changes (the caller's dev-mode branch by default), then pushes. */
  async commit(
    p: Principal,
    id: number,
    body: { branchName?: string | null; message?: string | null; exitDevMode?: boolean | null },
  ) {
    await this.dataModel.deployment(p, id);
    const branch = body.branchName ?? (await this.remotes.activeBranch(id, p.userId));
    if (!branch)
      throw new DomainError('no_active_branch', 'No branch named and the caller is not in dev mode on one');
    await this.requireBranch(id, branch);
    requireBranchName(branch, 'body/branchName');
    const remote = await this.remote(id);
    const result = await this.dataModel.recorded(p, async (files, trx) => {
      const git = await ModelGit.locked(trx, id);
      const message = body.message || `Changes to ${branch}`;
      const { oid, committed } = await this.commitBranch(git, files, id, branch, message, author(p));
      if (body.exitDevMode) await files.removeDevelopment(id, { userId: p.userId, branch });
      return {
        result: { success: true, branchName: branch, commitHash: oid, committed },
        audit: modelChange('data_model.commit', id, branch, {
          before: {},
          after: { commit: oid, committed },
        }),
      };
    });
    // Pushed once committed, outside the transaction: no store transaction waits on the network.
    // A refused push leaves the commit here, as `git commit && git push` would.
    if (remote)
      await this.remoteCall(() => ModelGit.reader(this.db, id).push(remote.url, remote.token, branch));
    return { ...result, pushed: remote !== null };
  }

  /** Merges a branch into the branch it was made from (main unless created `from` another). */
  async mergeIntoParent(
    p: Principal,
    id: number,
    body: {
      branchId?: number;
      branchName?: string;
      deleteBranch?: boolean | null;
      message?: string | null;
      switchToParentBranch?: boolean | null;
    },
  ) {
    await this.dataModel.deployment(p, id);
    const branch = await this.named(p, id, body);
    const parent = (await ModelGit.reader(this.db, id).parentOf(branch)) ?? MAIN_BRANCH;
    return this.merge(p, id, branch, parent, {
      message: body.message ?? undefined,
      deleteBranch: body.deleteBranch === true,
      switchTo: body.switchToParentBranch === true,
    });
  }

  /** Merges a branch into main, what queries read; refused while the result has model errors. */
  async mergeToDefault(
    p: Principal,
    id: number,
    body: {
      branchId?: number;
      branchName?: string;
      message?: string;
      removeBranchAfterMerge?: boolean | null;
    },
  ) {
    await this.dataModel.deployment(p, id);
    const branch = await this.named(p, id, body);
    return this.merge(p, id, branch, MAIN_BRANCH, {
      message: body.message,
      deleteBranch: body.removeBranchAfterMerge === true,
      switchTo: false,
    });
  }

  private async merge(
    p: Principal,
    id: number,
    branch: string,
    into: string,
    options: { message?: string; deleteBranch: boolean; switchTo: boolean },
  ) {
    if (branch === into || branch === MAIN_BRANCH)
      throw new ValidationError(`Branch ${branch} cannot be merged into ${into}`, [
        {
          field: 'body/branchName',
          message: `names ${branch === MAIN_BRANCH ? 'the main branch' : 'its own parent'}`,
        },
      ]);
    const errors = await this.dataModel.errorsWith(id, branch, []);
    if (errors.length > 0 && into === MAIN_BRANCH)
      throw new ValidationError(
        `Branch ${branch} is not promoted: its model has ${errors.length} error${errors.length > 1 ? 's' : ''}: ${errors.map(where).join('; ')}`,
        errors.map((e) => ({ field: 'body/branchName', message: where(e) })),
      );
    return this.dataModel.recorded(p, async (files, trx) => {
      const git = await ModelGit.locked(trx, id);
      const who = author(p);
      const message = options.message || `Merge branch '${branch}' into ${into}`;
      const before = await files.files(id, into);
      await this.commitBranch(git, files, id, into, `Changes to ${into}`, who);
      await this.commitBranch(git, files, id, branch, message, who);
      const oid = await this.merging(() => git.merge(into, branch, message, who));
      await this.checkout(git, files, id, into, oid);
      if (options.deleteBranch) {
        await files.remove(id, branch, []);
        await files.removeDevelopment(id, { branch });
        await git.deleteBranch(branch);
      }
      if (options.switchTo) {
        await files.removeDevelopment(id, { branch, userId: p.userId });
        if (into !== MAIN_BRANCH) await files.addDevelopment(id, into, p.userId);
      }
      return {
        result: { merged: true, branchDeleted: options.deleteBranch },
        audit: modelChange(
          into === MAIN_BRANCH ? 'data_model.merge_to_default' : 'data_model.merge',
          id,
          into,
          {
            before: { files: before.map((f) => f.path) },
            after: {
              files: (await files.files(id, into)).map((f) => f.path),
              fromBranch: branch,
              commit: oid,
              branchDeleted: options.deleteBranch,
            },
          },
        ),
      };
    });
  }

  /**
   * Fetches the branch from the deployment's remote and merges it into the branch (fast-forward
   * when nothing was committed here since). A branch that never shared history with the remote
   * (the repository was just connected) takes the remote's commits as they are.
   */
  async pull(p: Principal, id: number, body: { branchName: string }) {
    await this.dataModel.deployment(p, id);
    requireBranchName(body.branchName, 'body/branchName');
    const remote = await this.remote(id);
    if (!remote)
      throw new DomainError('git_remote_missing', 'The deployment has no git remote: PUT git/remote first');
    const branch = body.branchName;
    // Fetched before the transaction (objects are content-addressed, so a fetch racing another
    // replica's writes the same files); the merge then runs under the deployment's lock.
    const fetched = await this.remoteCall(() =>
      ModelGit.reader(this.db, id).fetch(remote.url, remote.token, branch),
    );
    if (!fetched) throw new NotFoundError(`Branch ${branch} of the git remote`);
    return this.dataModel.recorded(p, async (files, trx) => {
      const git = await ModelGit.locked(trx, id);
      const before = await files.files(id, branch);
      const who = author(p);
      const local = (await this.commitBranch(git, files, id, branch, `Changes to ${branch}`, who)).oid;
      const oid = (await git.related(local, fetched))
        ? await this.merging(() => git.merge(branch, git.remoteBranch(branch), `Merge remote ${branch}`, who))
        : fetched;
      if (oid !== local) await git.setHead(branch, oid);
      await this.checkout(git, files, id, branch, oid);
      const after = await files.files(id, branch);
      const changed = JSON.stringify(before.map(pair)) !== JSON.stringify(after.map(pair));
      return {
        result: { buildTriggered: changed, commitHash: oid },
        audit: modelChange('data_model.pull', id, branch, {
          before: { files: before.map((f) => f.path) },
          after: { files: after.map((f) => f.path), commit: oid, remote: safeUrl(remote.url) },
        }),
      };
    });
  }

  /**
   * A push event from the remote (GitHub's webhook form): the body's HMAC-SHA256 under the
   * webhook secret in `X-Hub-Signature-256` (`sha256=<hex>`), compared in constant time. A pushed
   * branch the deployment has is pulled, as a system actor; anything unsigned changes nothing.
   */
  async webhook(id: number, raw: Buffer, signature: string | undefined, event: string | undefined) {
    const tenantId = await this.remotes.tenantOf(id);
    const row = tenantId === null ? undefined : await this.remotes.get(id);
    const secret = row?.webhook_secret_sealed ? this.secrets.open(row.webhook_secret_sealed) : null;
    if (tenantId === null || !secret || !signed(raw, secret, signature))
      throw new UnauthorizedError('webhook_signature_invalid', 'The webhook signature does not match');
    if (event === 'ping') return { pulled: false, branchName: null };
    const ref = parseRef(raw);
    const branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
    const known = new Set([MAIN_BRANCH, ...(await this.dataModel.branchNames(id))]);
    if (!branch || !known.has(branch)) return { pulled: false, branchName: branch };
    const system: Principal = {
      tenantId,
      userId: 0,
      role: 'admin',
      credentialId: 0,
      credentialKind: 'api',
      deploymentIds: [id],
    };
    await this.pull(system, id, { branchName: branch });
    return { pulled: true, branchName: branch };
  }

  async getRemote(p: Principal, id: number) {
    await this.dataModel.deployment(p, id);
    const row = await this.remotes.get(id);
    return remoteView(id, row);
  }

  /** Connects (or changes) the remote; a secret omitted is kept, null removes it. */
  async putRemote(
    p: Principal,
    id: number,
    body: { url: string; token?: string | null; webhookSecret?: string | null },
  ) {
    await this.dataModel.deployment(p, id);
    const url = new URL(body.url);
    if (url.username || url.password)
      throw new ValidationError('The URL carries credentials: send the token in `token`', [
        { field: 'body/url', message: 'has a user name or password; put the token in body/token' },
      ]);
    if (url.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
      throw new ValidationError('A git remote is reached over HTTPS', [
        { field: 'body/url', message: 'is plain HTTP to another host: a token would travel in clear' },
      ]);
    const existing = await this.remotes.get(id);
    const seal = (value: string | null | undefined, kept: string | null | undefined) =>
      value === undefined ? (kept ?? null) : value === null ? null : this.secrets.seal(value);
    const row = {
      url: body.url,
      token_sealed: seal(body.token, existing?.token_sealed),
      webhook_secret_sealed: seal(body.webhookSecret, existing?.webhook_secret_sealed),
    };
    await this.dataModel.recorded(p, async (_files, trx) => {
      await this.remotes.put(id, row, trx);
      await (await ModelGit.locked(trx, id)).setRemote(body.url);
      return {
        result: undefined,
        audit: {
          action: 'data_model.git_remote',
          targetType: 'data_model',
          targetId: id,
          before: existing ? { url: safeUrl(existing.url) } : null,
          after: { url: safeUrl(body.url), hasToken: row.token_sealed !== null },
        },
      };
    });
    return remoteView(id, row);
  }

  async removeRemote(p: Principal, id: number) {
    await this.dataModel.deployment(p, id);
    const existing = await this.remotes.get(id);
    if (!existing) throw new NotFoundError('Git remote');
    await this.dataModel.recorded(p, async (_files, trx) => {
      await this.remotes.remove(id, trx);
      return {
        result: undefined,
        audit: {
          action: 'data_model.git_remote',
          targetType: 'data_model',
          targetId: id,
          before: { url: safeUrl(existing.url) },
          after: null,
        },
      };
    });
    return { success: true };
  }

  /** A shared branch's staging environment, kept always on (environments of type `staging`). */
  async setStaging(
    p: Principal,
    id: number,
    body: { branchId?: number | null; branchName?: string | null; enabled: boolean },
  ) {
    await this.dataModel.deployment(p, id);
    const branch = await this.named(p, id, {
      branchId: body.branchId ?? undefined,
      branchName: body.branchName ?? undefined,
    });
    if (branch === MAIN_BRANCH)
      throw new ConflictError('The deploy branch is production, not a staging environment', 'main_branch');
    await this.dataModel.recorded(p, async (_files, trx) => {
      await this.remotes.setStaging(id, branch, body.enabled, trx);
      return {
        result: undefined,
        audit: modelChange('data_model.staging_environment', id, branch, {
          before: {},
          after: { enabled: body.enabled },
        }),
      };
    });
    const listed = (await this.dataModel.branches(p, id)).items.find((b) => b.name === branch);
    return { data: listed! };
  }

  /**
   * Commits a branch's work tree; a branch git has not seen starts from the head of the branch it
   * was made from, committed first, so that a later merge finds their common base.
   */
  private async commitBranch(
    git: ModelGit,
    files: Files,
    id: number,
    branch: string,
    message: string,
    who: GitAuthor,
  ) {
    let parent: string | undefined;
    if (branch !== MAIN_BRANCH && (await git.head(branch)) === null) {
      const from = (await git.parentOf(branch)) ?? MAIN_BRANCH;
      parent = from === branch ? MAIN_BRANCH : from;
      await this.commitBranch(git, files, id, parent, `Changes to ${parent}`, who);
    }
    return git.commit(branch, await files.files(id, branch), message, who, parent);
  }

  /** The branch's work tree becomes the commit's files; main takes only a model without errors. */
  private async checkout(git: ModelGit, files: Files, id: number, branch: string, oid: string) {
    const merged = await git.files(oid);
    if (branch === MAIN_BRANCH) {
      const { errors } = await compileModelAsync(merged);
      if (errors.length > 0) {
        const views = errors.map(errorView);
        throw new ValidationError(
          `The merged model of main has errors: ${views.map(where).join('; ')}`,
          views.map((e) => ({ field: 'body/branchName', message: where(e) })),
        );
      }
    }
    await files.replaceBranch(id, branch, merged);
  }

  private async merging(merge: () => Promise<string>) {
    try {
      return await merge();
    } catch (e) {
      if (!(e instanceof GitMergeConflict)) throw e;
      throw new DomainError('merge_conflict', `${e.message}: both branches changed these files`, {
        errors: e.files.map((file) => ({ field: file, message: 'changed on both branches' })),
      });
    }
  }

  private async remoteCall<T>(call: () => Promise<T>) {
    try {
      return await call();
    } catch (e) {
      if (e instanceof GitRemoteError) throw new DomainError('git_remote_failed', e.message);
      throw e;
    }
  }

  private async remote(id: number) {
    const row = await this.remotes.get(id);
    if (!row) return null;
    return { url: row.url, token: row.token_sealed ? this.secrets.open(row.token_sealed) : null };
  }

  private async named(p: Principal, id: number, body: { branchId?: number; branchName?: string }) {
    if (body.branchName !== undefined) {
      await this.requireBranch(id, body.branchName);
      return body.branchName;
    }
    if (body.branchId !== undefined) {
      const found = (await this.dataModel.branches(p, id)).items.find((b) => b.id === body.branchId);
      if (!found) throw new NotFoundError(`Branch ${body.branchId}`);
      return found.name;
    }
    throw new ValidationError('Name the branch', [
      { field: 'body/branchName', message: 'or body/branchId is required' },
    ]);
  }

  private async requireBranch(id: number, branch: string) {
    if (branch !== MAIN_BRANCH && !(await this.dataModel.branchNames(id)).includes(branch))
      throw new NotFoundError(`Branch ${branch}`);
  }
}

const author = gitAuthor;

const pair = (f: { path: string; content: string }) => [f.path, f.content];

function signed(raw: Buffer, secret: string, header: string | undefined) {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parseRef(raw: Buffer): string | null {
  try {
    const body = JSON.parse(raw.toString('utf8')) as { ref?: unknown };
    return typeof body.ref === 'string' ? body.ref : null;
  } catch {
    return null;
  }
}

function remoteView(
  id: number,
  row: { url: string; token_sealed: string | null; webhook_secret_sealed: string | null } | undefined,
) {
  return {
    url: row?.url ?? null,
    hasToken: Boolean(row?.token_sealed),
    hasWebhookSecret: Boolean(row?.webhook_secret_sealed),
    webhookPath: `/build/api/v1/deployments/${id}/git/webhook`,
  };
}
