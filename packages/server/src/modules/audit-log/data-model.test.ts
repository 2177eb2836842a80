import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { auditEntries, wholeAuditLog } from './test-support.ts';

process.env.TESSERA_SAMPLE_SCALE = '0.002';

const cube = (name: string, note = '') =>
  `cubes:\n  - name: ${name}\n    sql_table: orders\n${note}    measures:\n      - name: count\n        type: count\n`;

/**
 * Issue 22 item 5 for the data model: file writes, renames, removals, uploads, branches and
 * merges to main each leave an entry naming the files (never their content), written in the
 * change's transaction.
 */
describe('audit log: data model files and branches', () => {
  let server: TestServer;
  let base: string;
  let deploymentId: number;
  const call = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown) => {
    const res = await server.app.inject({
      method,
      url: `${base}${url}`,
      headers: bearer(server.adminKey),
      ...(payload ? { payload: payload as object } : {}),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.body ? res.json() : undefined;
  };
  const entries = (query: string) => auditEntries(server, query);
  beforeAll(async () => {
    server = await startTestServer();
    deploymentId = server.demoDeploymentId;
    base = `/build/api/v1/deployments/${deploymentId}`;
  });
  afterAll(() => server?.close());

  it('records branch creation, file writes, renames, removals, the merge and the branch removal', async () => {
    await call('POST', '/branches', { name: 'audited' });
    const [created] = await entries(`targetType=data_model_branch&targetId=${deploymentId}/audited`);
    expect(created).toMatchObject({
      action: 'data_model_branch.create',
      before: null,
      after: { deploymentId, name: 'audited', from: 'main' },
    });

    await call('PUT', '/data-model/files', {
      branchName: 'audited',
      files: [{ path: 'model/audited.yml', content: cube('audited') }],
    });
    await call('PUT', '/data-model/files', {
      branchName: 'audited',
      files: [{ path: 'model/audited.yml', content: cube('audited_again') }],
    });
    await call('POST', '/data-model/files/rename', {
      branchName: 'audited',
      files: [{ path: 'model/audited.yml', newPath: 'model/renamed.yml' }],
    });
    await call('PUT', '/data-model/files', {
      branchName: 'audited',
      files: [{ path: 'model/scratch.yml', content: cube('scratch') }],
    });
    await call('DELETE', '/data-model/files', {
      branchName: 'audited',
      files: [{ path: 'model/scratch.yml' }],
    });
    const mainBefore = (await call('GET', '/data-model/files')).items.map(
      (f: { fileName: string }) => f.fileName,
    );
    await call('POST', '/merge-to-default', { branchName: 'audited', removeBranchAfterMerge: false });
    await call('DELETE', '/branches?branchName=audited');

    const model = await entries(`targetType=data_model&targetId=${deploymentId}&first=6`);
    expect(model.map((e) => [e.action, e.after.branch])).toEqual([
      ['data_model.merge_to_default', 'main'],
      ['data_model.remove_files', 'audited'],
      ['data_model.write_files', 'audited'],
      ['data_model.rename_files', 'audited'],
      ['data_model.write_files', 'audited'],
      ['data_model.write_files', 'audited'],
    ]);
    const [merge, removal, , rename, rewrite, firstWrite] = model;
    expect(firstWrite).toMatchObject({ before: { files: [] }, after: { files: ['model/audited.yml'] } });
    expect(rewrite).toMatchObject({
      before: { files: ['model/audited.yml'] },
      after: { files: ['model/audited.yml'] },
    });
    expect(rename).toMatchObject({
      before: { files: ['model/audited.yml'] },
      after: { files: ['model/renamed.yml'] },
    });
    expect(removal).toMatchObject({ before: { files: ['model/scratch.yml'] }, after: { files: [] } });
    expect(merge.before.files).toEqual(mainBefore);
    expect(merge.after).toMatchObject({ fromBranch: 'audited', branchDeleted: false });
    expect(merge.after.files).toContain('model/renamed.yml');

    const [deleted] = await entries(`targetType=data_model_branch&targetId=${deploymentId}/audited`);
    expect(deleted).toMatchObject({
      action: 'data_model_branch.delete',
      before: { name: 'audited', files: expect.arrayContaining(['model/renamed.yml']) },
      after: null,
    });
  });

  it('records a finished upload with the files it wrote and pruned', async () => {
    await call('PUT', '/data-model/files', {
      branchName: 'up',
      files: [{ path: 'model/old.yml', content: cube('old') }],
    });
    const { transaction } = await call('POST', '/data-model/upload/start?branchName=up', {});
    await call('POST', '/data-model/upload/file', {
      transaction: transaction.id,
      fileName: 'model/new.yml',
      file: cube('fresh'),
    });
    const hash = createHash('sha256').update(cube('fresh')).digest('hex');
    await call('POST', '/data-model/upload/finish', {
      transaction: { id: transaction.id },
      files: { 'model/new.yml': { hash } },
    });
    const [upload] = await entries(`action=data_model.upload&targetId=${deploymentId}`);
    expect(upload).toMatchObject({
      before: { branch: 'up', files: ['model/old.yml'] },
      after: { branch: 'up', written: ['model/new.yml'], removed: ['model/old.yml'] },
    });
  });

  it('never copies file content into the log, and keeps no entry of a refused write', async () => {
    const marker = 'model-content-never-logged';
    await call('PUT', '/data-model/files', {
      branchName: 'private',
      files: [{ path: 'model/private.yml', content: cube('private', `    description: ${marker}\n`) }],
    });
    const writes = (await entries('action=data_model.write_files&first=1000')).length;
    const refused = await server.app.inject({
      method: 'PUT',
      url: `${base}/data-model/files`,
      headers: bearer(server.adminKey),
      payload: { files: [{ path: 'model/broken.yml', content: 'cubes:\n  - name: x\n    sql_table: [\n' }] },
    });
    expect(refused.statusCode).toBe(400);
    expect((await entries('action=data_model.write_files&first=1000')).length).toBe(writes);
    expect(await wholeAuditLog(server)).not.toContain(marker);
  });
});
