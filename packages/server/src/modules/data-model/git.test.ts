import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { tokenFor } from '../data/test-support.ts';
import { type GitTestServer, startGitTestServer } from './git-test-server.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const cube = (name: string, measure: string) =>
  `cubes:\n  - name: ${name}\n    sql_table: orders\n    measures:\n      - name: ${measure}\n        type: count\n`;

/**
 * Issue 25 item 2: branches are git branches (isomorphic-git over the store), committed, merged
 * and served; a conflict names its files; a pull from a git server in this process, triggered by
 * a signed webhook.
 */
describe('git-backed data models', () => {
  let server: TestServer;
  let remote: GitTestServer;
  let base: string;
  const token = 'ghp_test-token-never-shown';
  const secret = 'webhook-secret-of-the-remote';
  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    server.app.inject({
      method,
      url: `${base}${url}`,
      headers: bearer(server.adminKey),
      ...(payload ? { payload: payload as object } : {}),
    });
  const mainFile = async (file: string) =>
    (await call('GET', '/data-model/files?withContent=true'))
      .json()
      .items.find((f: { fileName: string }) => f.fileName === file)?.content as string | undefined;
  const load = async (measure: string) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/data/${server.demoDeploymentId}/cubejs-api/v1/load`,
      headers: { authorization: await tokenFor(server, server.demoDeploymentId) },
      payload: { query: { measures: [measure] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return Number(res.json().data[0][measure]);
  };

  beforeAll(async () => {
    [server, remote] = await Promise.all([startTestServer(), startGitTestServer(token)]);
    base = `/build/api/v1/deployments/${server.demoDeploymentId}`;
  });
  afterAll(async () => {
    await server?.close();
    await remote?.close();
  });

  it('commits a model edited on a branch, merges it to main and serves it', async () => {
    expect((await call('POST', '/branches', { name: 'feature', activate: true })).statusCode).toBe(200);
    await call('PUT', '/data-model/files', {
      branchName: 'feature',
      files: [{ path: 'model/git_orders.yml', content: cube('git_orders', 'n') }],
    });
    // The caller's dev-mode branch is the one committed when none is named.
    const commit = await call('POST', '/commit', { message: 'Add git_orders' });
    expect(commit.statusCode, commit.body).toBe(200);
    expect(commit.json()).toMatchObject({
      success: true,
      branchName: 'feature',
      committed: true,
      pushed: false,
    });
    const branches = (await call('GET', '/branches')).json().items;
    expect(branches.find((b: { name: string }) => b.name === 'feature')).toMatchObject({
      lastHash: commit.json().commitHash,
      parentBranch: 'main',
    });
    expect((await call('POST', '/commit', { branchName: 'feature' })).json().committed).toBe(false);

    const merged = await call('POST', '/merge-to-default', {
      branchName: 'feature',
      message: 'Ship git_orders',
    });
    expect(merged.statusCode, merged.body).toBe(200);
    expect(merged.json()).toEqual({ merged: true, branchDeleted: false });
    expect(await mainFile('model/git_orders.yml')).toBe(cube('git_orders', 'n'));
    expect(await mainFile('model/orders.yml')).toBeDefined();
    const main = (await call('GET', '/branches'))
      .json()
      .items.find((b: { name: string }) => b.name === 'main');
    expect(main.lastHash).toMatch(/^[0-9a-f]{40}$/);
    expect(await load('git_orders.n')).toBeGreaterThan(0);
  });

  it('refuses a conflicting merge with 409 naming the files, and changes nothing', async () => {
    for (const name of ['left', 'right']) await call('POST', '/branches', { name });
    await call('PUT', '/data-model/files', {
      branchName: 'left',
      files: [{ path: 'model/git_orders.yml', content: cube('git_orders', 'left_n') }],
    });
    await call('PUT', '/data-model/files', {
      branchName: 'right',
      files: [
        { path: 'model/git_orders.yml', content: cube('git_orders', 'right_n') },
        { path: 'model/right_only.yml', content: cube('right_only', 'n') },
      ],
    });
    expect((await call('POST', '/merge-to-default', { branchName: 'left' })).statusCode).toBe(200);
    const before = (await call('GET', '/branches')).json();
    const refused = await call('POST', '/merge-to-default', { branchName: 'right', message: 'late' });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'merge_conflict',
      errors: [{ field: 'model/git_orders.yml', message: 'changed on both branches' }],
    });
    expect(refused.json().detail).toContain('model/git_orders.yml');
    expect(await mainFile('model/git_orders.yml')).toBe(cube('git_orders', 'left_n'));
    expect(await mainFile('model/right_only.yml')).toBeUndefined();
    expect((await call('GET', '/branches')).json()).toEqual(before);
    // A branch merged into its parent (git-flow): the same conflict, named the same way.
    const flow = await call('POST', '/merge', { branchName: 'right' });
    expect(flow.statusCode).toBe(409);
    expect(flow.json().errors.map((e: { field: string }) => e.field)).toEqual(['model/git_orders.yml']);
  });

  it('pushes to and pulls from a remote over HTTP with a token, a signed webhook triggering the pull', async () => {
    const connected = await call('PUT', '/git/remote', { url: remote.url, token, webhookSecret: secret });
    expect(connected.statusCode, connected.body).toBe(200);
    expect(connected.json()).toEqual({
      url: remote.url,
      hasToken: true,
      hasWebhookSecret: true,
      webhookPath: `${base}/git/webhook`,
    });
    expect((await call('GET', '/git/remote')).body).not.toContain(token);

    // Commit (and push) main: the remote now holds the deployment's model.
    const pushed = await call('POST', '/commit', { branchName: 'main', message: 'Publish' });
    expect(pushed.statusCode, pushed.body).toBe(200);
    expect(pushed.json().pushed).toBe(true);

    // Someone else edits the model in the repository and pushes.
    const other = await remote.clone();
    writeFileSync(path.join(other.dir, 'model/remote_orders.yml'), cube('remote_orders', 'n'));
    await other.git('add', '.');
    await other.git('commit', '-m', 'Add remote_orders');
    await other.git('push', 'origin', 'main');
    const pushedHead = (await other.git('rev-parse', 'HEAD')).trim();

    const payload = JSON.stringify({ ref: 'refs/heads/main', after: pushedHead });
    const hook = (signature: string) =>
      server.app.inject({
        method: 'POST',
        url: `${base}/git/webhook`,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-hub-signature-256': signature,
        },
        payload,
      });
    const forged = await hook(`sha256=${createHmac('sha256', 'wrong').update(payload).digest('hex')}`);
    expect(forged.statusCode).toBe(401);
    expect(forged.json().code).toBe('webhook_signature_invalid');
    expect(await mainFile('model/remote_orders.yml')).toBeUndefined();

    const signed = await hook(`sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`);
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json()).toEqual({ pulled: true, branchName: 'main' });
    expect(await mainFile('model/remote_orders.yml')).toBe(cube('remote_orders', 'n'));
    expect((await call('GET', '/branches')).json().items[0]).toMatchObject({
      name: 'main',
      lastHash: pushedHead,
    });
    expect(await load('remote_orders.n')).toBe(await load('git_orders.left_n'));

    // The token is sealed at rest: neither the remote's row, the repository's files nor the
    // audit log hold it in clear.
    const db = server.store.db;
    const stored = [
      await db.selectFrom('model_git_remotes').selectAll().execute(),
      (await db.selectFrom('model_git_files').select('content').execute()).map((r) =>
        Buffer.from(r.content).toString('latin1'),
      ),
      await db.selectFrom('audit_log').selectAll().execute(),
    ];
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(secret);

    // Nothing new on the remote: a pull changes nothing.
    const again = await call('POST', '/pull', { branchName: 'main' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ buildTriggered: false, commitHash: pushedHead });

    // A wrong token: the remote refuses, the answer names the remote, never the token.
    await call('PUT', '/git/remote', { url: remote.url, token: 'not-the-token' });
    const refused = await call('POST', '/pull', { branchName: 'main' });
    expect(refused.statusCode).toBe(502);
    expect(refused.json().code).toBe('git_remote_failed');
    expect(refused.body).not.toContain('not-the-token');
  });
});
