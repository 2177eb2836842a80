import type { Db } from '../../db/database.ts';

/** Where isomorphic-git is told the git directory is; every path it passes starts with it. */
export const GIT_DIR = '/repo';

/**
 * The `fs` isomorphic-git reads and writes a deployment's git directory through, backed by the
 * store's `model_git_files` (migration 0037) so that every replica sees the same repository; a
 * disk-backed repository would exist on one replica only. Directories are implicit (a path prefix
 * of some file), as in an object store. Bound to the caller's transaction: a git operation that
 * fails leaves nothing behind. Implements the promise API isomorphic-git documents (docs/fs.md):
 * readFile, writeFile, unlink, readdir, mkdir, rmdir, stat, lstat, readlink, symlink.
 */
export class StoreFs {
  constructor(
    private readonly db: Db,
    private readonly deploymentId: number,
  ) {}

  async readFile(path: string, options?: { encoding?: string } | string) {
    const row = await this.row(key(path));
    if (!row) {
      if (await this.isDirectory(key(path))) throw fsError('EISDIR', path);
      throw fsError('ENOENT', path);
    }
    const data = Buffer.from(row.content);
    const encoding = typeof options === 'string' ? options : options?.encoding;
    return encoding ? data.toString(encoding as BufferEncoding) : data;
  }

  async writeFile(path: string, data: Uint8Array | string) {
    const content = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    await this.db
      .insertInto('model_git_files')
      .values({ deployment_id: this.deploymentId, path: key(path), content })
      .onConflict((oc) => oc.columns(['deployment_id', 'path']).doUpdateSet({ content }))
      .execute();
  }

  async unlink(path: string) {
    const r = await this.db
      .deleteFrom('model_git_files')
      .where('deployment_id', '=', this.deploymentId)
      .where('path', '=', key(path))
      .executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw fsError('ENOENT', path);
  }

  async readdir(path: string) {
    const dir = key(path);
    if (await this.row(dir)) throw fsError('ENOTDIR', path);
    const prefix = dir === '' ? '' : `${dir}/`;
    const rows = await this.db
      .selectFrom('model_git_files')
      .select('path')
      .where('deployment_id', '=', this.deploymentId)
      .where('path', 'like', `${escapeLike(prefix)}%`)
      .execute();
    if (rows.length === 0) throw fsError('ENOENT', path);
    return [...new Set(rows.map((r) => r.path.slice(prefix.length).split('/')[0]))];
  }

  /** Directories exist while a file is under them: creating one is a no-op. */
  async mkdir() {}

  async rmdir(path: string) {
    const dir = key(path);
    if (await this.isDirectory(dir)) throw fsError('ENOTEMPTY', path);
  }

  async stat(path: string) {
    const k = key(path);
    const row = await this.row(k);
    if (row) return stats('file', row.content.length);
    if (k === '' || (await this.isDirectory(k))) return stats('dir', 0);
    throw fsError('ENOENT', path);
  }

  lstat(path: string) {
    return this.stat(path);
  }

  /** The store holds no symbolic links. */
  async readlink(path: string): Promise<string> {
    throw fsError('EINVAL', path);
  }

  async symlink(_target: string, path: string) {
    throw fsError('EPERM', path);
  }

  private row(path: string) {
    return this.db
      .selectFrom('model_git_files')
      .select('content')
      .where('deployment_id', '=', this.deploymentId)
      .where('path', '=', path)
      .executeTakeFirst();
  }

  private async isDirectory(dir: string) {
    const row = await this.db
      .selectFrom('model_git_files')
      .select('path')
      .where('deployment_id', '=', this.deploymentId)
      .where('path', 'like', `${escapeLike(dir)}/%`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/** The path inside the git directory: `/repo/objects/ab/cd…` is `objects/ab/cd…`. */
function key(path: string): string {
  const normal = path.replace(/\/+/g, '/').replace(/\/$/, '');
  if (normal === GIT_DIR) return '';
  if (!normal.startsWith(`${GIT_DIR}/`)) throw fsError('EACCES', path);
  return normal.slice(GIT_DIR.length + 1);
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function fsError(code: string, path: string) {
  return Object.assign(new Error(`${code}: ${path}`), { code, path });
}

function stats(type: 'file' | 'dir', size: number) {
  const now = Date.now();
  return {
    type,
    mode: type === 'file' ? 0o100644 : 0o40000,
    size,
    ino: 0,
    dev: 0,
    uid: 0,
    gid: 0,
    mtimeMs: now,
    ctimeMs: now,
    isFile: () => type === 'file',
    isDirectory: () => type === 'dir',
    isSymbolicLink: () => false,
  };
}
