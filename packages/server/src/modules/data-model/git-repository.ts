import git, { Errors, type TreeEntry } from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { GIT_DIR, StoreFs } from './git-store-fs.ts';

export interface ModelFile {
  path: string;
  content: string;
}

export interface GitAuthor {
  name: string;
  email: string;
}

/** A merge that git cannot finish alone: the files changed on both sides. */
export class GitMergeConflict extends Error {
  constructor(readonly files: string[]) {
    super(`Merge conflict in ${files.join(', ')}`);
  }
}

/** The remote refused or could not be reached; the message never carries the token. */
export class GitRemoteError extends Error {}

/**
 * Why git would refuse `name` as a branch (git-check-ref-format(1)), or null: the API's branch
 * pattern already keeps to letters, digits, `.`, `_`, `/` and `-`; these are the rules left.
 */
export function branchNameProblem(name: string): string | null {
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//'))
    return 'is not a git branch name: a slash may only separate two parts';
  if (name.includes('..')) return 'is not a git branch name: it may not contain ".."';
  if (name.endsWith('.')) return 'is not a git branch name: it may not end with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return 'is not a git branch name: no part may start with "."';
    if (part.endsWith('.lock')) return 'is not a git branch name: no part may end with ".lock"';
  }
  return null;
}

/** A branch's ref is `refs/heads/<name>`, as in any git repository. */
const ref = (branch: string) => `refs/heads/${branch}`;
/** Where a fetched branch of the remote is kept before it is merged. */
const remoteRef = (branch: string) => `refs/remotes/origin/${branch}`;
/** An advisory lock's first key: git operations of one deployment run one at a time. */
const LOCK_CLASS = 0x67_69_74;

/**
 * A deployment's git repository in the store (git-store-fs.ts), through isomorphic-git's plumbing:
 * no work tree, since a branch's files in `model_files` are its work tree. Build one per
 * transaction with `ModelGit.locked`, which also takes the deployment's advisory lock so that two
 * replicas never move one ref at once.
 */
export class ModelGit {
  private readonly fs: StoreFs;
  /** isomorphic-git's parsed packfiles, kept for one operation. */
  private readonly cache = {};

  private constructor(
    trx: Db,
    readonly deploymentId: number,
  ) {
    this.fs = new StoreFs(trx, deploymentId);
  }

  static async locked(trx: Db, deploymentId: number): Promise<ModelGit> {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${deploymentId})`.execute(trx);
    return new ModelGit(trx, deploymentId);
  }

  /**
   * Without the lock or a transaction: the heads a branch list shows, and the network halves of a
   * pull and a push (a fetch writes only content-addressed objects and `refs/remotes/`).
   */
  static reader(db: Db, deploymentId: number): ModelGit {
    return new ModelGit(db, deploymentId);
  }

  private get base() {
    return { fs: this.fs, gitdir: GIT_DIR, cache: this.cache };
  }

  async init() {
    if (await this.exists()) return;
    await git.init({ fs: this.fs, gitdir: GIT_DIR, bare: true, defaultBranch: 'main' });
  }

  private async exists() {
    try {
      await this.fs.stat(`${GIT_DIR}/config`);
      return true;
    } catch {
      return false;
    }
  }

  /** The commit a branch points at; null for a branch git has not seen yet. */
  async head(branch: string): Promise<string | null> {
    try {
      return await git.resolveRef({ ...this.base, ref: ref(branch) });
    } catch (e) {
      if (e instanceof Errors.NotFoundError) return null;
      throw e;
    }
  }

  async setHead(branch: string, oid: string) {
    await git.writeRef({ ...this.base, ref: ref(branch), value: oid, force: true });
  }

  async deleteBranch(branch: string) {
    if ((await this.head(branch)) !== null) await git.deleteRef({ ...this.base, ref: ref(branch) });
  }

  /** The branch a branch was made from (what `merge` merges it into); stored in the git config. */
  async parentOf(branch: string): Promise<string | null> {
    const value = await git.getConfig({ ...this.base, path: `branch.${branch}.tessera-parent` });
    return typeof value === 'string' ? value : null;
  }

  async setParent(branch: string, parent: string) {
    await this.init();
    await git.setConfig({ ...this.base, path: `branch.${branch}.tessera-parent`, value: parent });
  }

  /**
   * Commits `files` (a branch's whole work tree) on `branch` when they differ from its head; the
   * first commit of a branch git has not seen has `startFrom`'s head as parent. Answers the head.
   */
  async commit(
    branch: string,
    files: readonly ModelFile[],
    message: string,
    author: GitAuthor,
    startFrom?: string,
  ): Promise<{ oid: string; committed: boolean }> {
    await this.init();
    const tree = await this.writeTree(files);
    const head = (await this.head(branch)) ?? (startFrom ? await this.head(startFrom) : null);
    if (head !== null && (await git.readCommit({ ...this.base, oid: head })).commit.tree === tree) {
      await this.setHead(branch, head);
      return { oid: head, committed: false };
    }
    const oid = await git.commit({
      ...this.base,
      ref: ref(branch),
      message,
      author,
      tree,
      parent: head === null ? [] : [head],
    });
    return { oid, committed: true };
  }

  /**
   * Merges `theirs` into `ours` (both committed): fast-forward when `ours` has not moved, a merge
   * commit otherwise; a file changed on both sides is a conflict and moves no ref.
   */
  async merge(ours: string, theirs: string, message: string, author: GitAuthor) {
    try {
      const result = await git.merge({
        ...this.base,
        ours: ref(ours),
        theirs: theirs.startsWith('refs/') ? theirs : ref(theirs),
        message,
        author,
        abortOnConflict: true,
      });
      return result.oid as string;
    } catch (e) {
      if (e instanceof Errors.MergeConflictError) throw new GitMergeConflict(e.data.filepaths);
      // Both sides added or removed one path differently: isomorphic-git gives up without naming it.
      if (e instanceof Errors.MergeNotSupportedError)
        throw new GitMergeConflict(await this.changedOnBothSides(ours, theirs));
      throw e;
    }
  }

  /**
   * The remote as `git remote add origin` writes it: isomorphic-git maps fetched heads through its
   * refspec. Written when the remote is connected, so that a fetch changes no file but objects
   * and `refs/remotes/`.
   */
  async setRemote(url: string) {
    await this.init();
    await git.setConfig({ ...this.base, path: 'remote.origin.url', value: safeUrl(url) });
    await git.setConfig({
      ...this.base,
      path: 'remote.origin.fetch',
      value: '+refs/heads/*:refs/remotes/origin/*',
    });
  }

  /** The files of a commit, with their text. */
  async files(oid: string): Promise<ModelFile[]> {
    const out: ModelFile[] = [];
    const visit = async (treeOid: string, prefix: string) => {
      const { tree } = await git.readTree({ ...this.base, oid: treeOid });
      for (const entry of tree) {
        const path = `${prefix}${entry.path}`;
        if (entry.type === 'tree') await visit(entry.oid, `${path}/`);
        else if (entry.type === 'blob') {
          const { blob } = await git.readBlob({ ...this.base, oid: entry.oid });
          out.push({ path, content: Buffer.from(blob).toString('utf8') });
        }
      }
    };
    await visit(oid, '');
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Fetches `branch` of an HTTPS remote (git's smart HTTP protocol) into `refs/remotes/origin/`,
   * the token sent as HTTP basic credentials as GitHub and GitLab take it. Answers the fetched
   * head, or null when the remote has no such branch.
   */
  async fetch(url: string, token: string | null, branch: string): Promise<string | null> {
    try {
      const result = await git.fetch({
        ...this.base,
        http,
        url,
        ref: branch,
        remoteRef: branch,
        singleBranch: true,
        tags: false,
        ...(token ? { onAuth: () => ({ username: 'x-access-token', password: token }) } : {}),
        onAuthFailure: () => ({ cancel: true }),
      });
      if (!result.fetchHead) return null;
      await git.writeRef({ ...this.base, ref: remoteRef(branch), value: result.fetchHead, force: true });
      return result.fetchHead;
    } catch (e) {
      // The remote has no such branch.
      if (e instanceof Errors.NotFoundError) return null;
      throw remoteError(e, url, token);
    }
  }

  /** Pushes `branch` to the remote's branch of the same name (a commit's "and push"). */
  async push(url: string, token: string | null, branch: string) {
    try {
      const result = await git.push({
        ...this.base,
        http,
        url,
        ref: ref(branch),
        remoteRef: ref(branch),
        ...(token ? { onAuth: () => ({ username: 'x-access-token', password: token }) } : {}),
        onAuthFailure: () => ({ cancel: true }),
      });
      if (!result.ok) throw new GitRemoteError(`The remote refused the push of ${branch}`);
    } catch (e) {
      throw remoteError(e, url, token);
    }
  }

  readonly remoteBranch = remoteRef;

  /** Whether two commits share history (a merge base). */
  async related(a: string, b: string) {
    return (await git.findMergeBase({ ...this.base, oids: [a, b] })).length > 0;
  }

  /** Every branch's head, for the branch list. */
  async heads(): Promise<Map<string, string>> {
    if (!(await this.exists())) return new Map();
    const names = await git.listBranches({ ...this.base });
    return new Map(await Promise.all(names.map(async (n) => [n, (await this.head(n)) ?? ''] as const)));
  }

  private async writeTree(files: readonly ModelFile[]): Promise<string> {
    type Dir = Map<string, Dir | string>;
    const root: Dir = new Map();
    for (const f of files) {
      const parts = f.path.split('/').filter(Boolean);
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        let next = dir.get(part);
        if (typeof next !== 'object') {
          next = new Map();
          dir.set(part, next);
        }
        dir = next;
      }
      dir.set(parts[parts.length - 1], f.content);
    }
    const write = async (dir: Dir): Promise<string> => {
      const tree: TreeEntry[] = [];
      for (const [path, value] of dir) {
        if (typeof value === 'string') {
          const oid = await git.writeBlob({ ...this.base, blob: Buffer.from(value, 'utf8') });
          tree.push({ mode: '100644', path, oid, type: 'blob' });
        } else tree.push({ mode: '040000', path, oid: await write(value), type: 'tree' });
      }
      return git.writeTree({ ...this.base, tree });
    };
    return write(root);
  }

  /** Paths whose content differs between the merge base and each side, and between the sides. */
  private async changedOnBothSides(ours: string, theirs: string): Promise<string[]> {
    const ourOid = await git.resolveRef({ ...this.base, ref: ref(ours) });
    const theirOid = await git.resolveRef({
      ...this.base,
      ref: theirs.startsWith('refs/') ? theirs : ref(theirs),
    });
    const [baseOid] = await git.findMergeBase({ ...this.base, oids: [ourOid, theirOid] });
    const byPath = async (oid: string | undefined) =>
      new Map(oid ? (await this.files(oid)).map((f) => [f.path, f.content]) : []);
    const [base, a, b] = await Promise.all([byPath(baseOid), byPath(ourOid), byPath(theirOid)]);
    const paths = new Set([...base.keys(), ...a.keys(), ...b.keys()]);
    return [...paths]
      .filter((p) => a.get(p) !== base.get(p) && b.get(p) !== base.get(p) && a.get(p) !== b.get(p))
      .sort();
  }
}

/**
 * A remote failure as the caller may read it: the URL without credentials, never the token. Other
 * errors are Tessera's own and stay internal errors.
 */
function remoteError(e: unknown, url: string, token: string | null): Error {
  if (e instanceof GitRemoteError) return e;
  const where = safeUrl(url);
  const network = ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH'];
  const code = (e as { code?: unknown }).code;
  const kind =
    e instanceof Errors.HttpError
      ? `answered HTTP ${e.data.statusCode}`
      : e instanceof Errors.UserCanceledError
        ? 'refused the credentials'
        : e instanceof Errors.PushRejectedError
          ? 'refused the push: it has commits the branch lacks (pull first)'
          : e instanceof Errors.SmartHttpError || e instanceof Errors.ParseError
            ? 'does not answer as a git server'
            : typeof code === 'string' && network.includes(code)
              ? 'could not be reached'
              : null;
  if (kind === null) return e instanceof Error ? e : new Error(String(e));
  const message = `The git remote ${where} ${kind}`;
  return new GitRemoteError(token ? message.split(token).join('***') : message);
}

export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return 'remote';
  }
}
