import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A git server in the test process: Git's own `git http-backend` (git's smart HTTP protocol,
 * gitprotocol-http(5)) run as a CGI program (RFC 3875) behind a Node HTTP server that asks for
 * HTTP basic credentials whose password is the token, as GitHub and GitLab do. Tests only: the
 * server code under test speaks to it with isomorphic-git and never runs git.
 */
export interface GitTestServer {
  /** The repository's URL (`http://127.0.0.1:<port>/model.git`). */
  url: string;
  /**
   * Runs git in a fresh clone of the repository, for a change pushed by "someone else"; never
   * synchronously, since this process serves the clone.
   */
  clone(): Promise<{ dir: string; git: (...args: string[]) => Promise<string> }>;
  close(): Promise<void>;
}

/** `unref`: the server does not keep the process alive (a fixture shared by a whole test file). */
export async function startGitTestServer(
  token: string,
  options: { unref?: boolean } = {},
): Promise<GitTestServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'tessera-git-'));
  execFileSync('git', ['init', '--bare', '--initial-branch=main', path.join(root, 'model.git')]);
  execFileSync('git', ['-C', path.join(root, 'model.git'), 'config', 'http.receivepack', 'true']);
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://git');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'x-access-token',
        REQUEST_METHOD: req.method,
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
          : {}),
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => chunks.push(c));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      const crlf = out.indexOf('\r\n\r\n');
      const end = crlf >= 0 ? crlf : out.indexOf('\n\n');
      const gap = crlf >= 0 ? 4 : 2;
      const head = out.subarray(0, end).toString('latin1').split(/\r?\n/);
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers).end(out.subarray(end + gap));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  if (options.unref) {
    server.unref();
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/model.git`;
  return {
    url,
    async clone() {
      const dir = mkdtempSync(path.join(root, 'clone-'));
      const authed = url.replace('http://', `http://x-access-token:${token}@`);
      const git = async (...args: string[]) =>
        (
          await run('git', ['-c', 'user.name=Other', '-c', 'user.email=other@example.com', ...args], {
            cwd: dir,
          })
        ).stdout;
      await git('clone', authed, '.');
      return { dir, git };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
