import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { SecretBox } from '../../crypto/secrets.ts';

/**
 * Issue 25 item 1: the Deployments group's settings, build-status and creation steps, and the
 * Deployment Creation group's `POST /build/api/v1/deployments`, over HTTP.
 */
describe('deployment settings, build status, onboarding steps and creation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, key = server.adminKey) =>
    server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const create = async (name: string) => {
    const res = await call('POST', '/api/v1/deployments', { name });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: number };
  };
  const audit = (action: string) =>
    server.store.db.selectFrom('audit_log').selectAll().where('action', '=', action).execute();

  it('answers the settings of a deployment, without a secret', async () => {
    const res = await call('GET', `/api/v1/deployments/${server.demoDeploymentId}/settings`);
    expect(res.statusCode).toBe(200);
    const settings = res.json();
    expect(settings).toMatchObject({
      id: server.demoDeploymentId,
      name: 'Demo',
      creationStep: 'demo',
      deployBranchName: 'main',
      isCubeSqlEnabled: true,
      isSupportPreAggregations: true,
      basePath: '/cubejs-api',
    });
    expect(settings.deploymentUrl).toMatch(new RegExp(`/data/${server.demoDeploymentId}/cubejs-api$`));
    const secret = await server.store.db
      .selectFrom('deployments')
      .select('api_secret_enc')
      .where('id', '=', server.demoDeploymentId)
      .executeTakeFirstOrThrow();
    // The deployment's API secret (what signs data-API tokens) is in no form in the answer.
    expect(res.body).not.toContain(new SecretBox('test-secret').open(secret.api_secret_enc));
    expect(res.body).not.toContain(secret.api_secret_enc);
    expect((await call('GET', '/api/v1/deployments/999999/settings')).statusCode).toBe(404);
  });

  it('reports a branch that compiles as ok, and a broken one with each error’s file and line', async () => {
    const { id } = await create('build status');
    const dm = `/build/api/v1/deployments/${id}`;
    const cube =
      'cubes:\n  - name: things\n    sql_table: main.orders\n    measures:\n      - name: count\n        type: count\n';
    expect(
      (await call('PUT', `${dm}/data-model/files`, { files: [{ path: 'model/things.yml', content: cube }] }))
        .statusCode,
    ).toBe(200);
    const ok = await call('GET', `/api/v1/deployments/${id}/build-status`);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({
      deploymentId: id,
      branchName: 'main',
      mode: 'production',
      status: 'ok',
      errorText: null,
      errors: [],
      cubesCount: 1,
    });
    expect(ok.json().filesHash).toMatch(/^[0-9a-f]{64}$/);

    expect((await call('POST', `${dm}/branches`, { name: 'broken' })).statusCode).toBe(200);
    const broken = `${cube}    dimensions:\n      - name: status\n        sql: status\n        type: nonsense\n`;
    const put = await call('PUT', `${dm}/data-model/files`, {
      branchName: 'broken',
      files: [{ path: 'model/things.yml', content: broken }],
    });
    expect(put.statusCode, put.body).toBe(200);
    const failed = (await call('GET', `/api/v1/deployments/${id}/build-status?branchName=broken`)).json();
    expect(failed).toMatchObject({ branchName: 'broken', mode: 'dev_mode', status: 'error' });
    expect(failed.errors.length).toBeGreaterThan(0);
    expect(failed.errors[0]).toMatchObject({ fileName: 'model/things.yml', line: expect.any(Number) });
    expect(failed.errorText).toContain(`model/things.yml:${failed.errors[0].line}`);
    expect(failed.filesHash).not.toBe(ok.json().filesHash);
    // main is untouched by the branch
    expect((await call('GET', `/api/v1/deployments/${id}/build-status?branchName=main`)).json().status).toBe(
      'ok',
    );

    // The compile is a build line in the deployment's logs.
    const logs = (await call('GET', `/api/v1/deployments/${id}/logs?source=dev`)).json();
    expect(logs.items[0]).toMatchObject({ kind: 'build', level: 'error', branchName: 'broken' });

    const unknown = await call('GET', `/api/v1/deployments/${id}/build-status?branchName=nope`);
    expect(unknown.statusCode).toBe(404);
    const empty = await call('GET', `/api/v1/deployments/${id}/build-status?branchName=`);
    expect(empty.statusCode).toBe(400);
    expect(JSON.stringify(empty.json())).toContain('querystring/branchName');
  });

  it('advances and resets the onboarding step, recorded in the audit log; the demo keeps its step', async () => {
    const { id } = await create('onboarding');
    const advanced = await call('POST', `/api/v1/deployments/${id}/creation-step/advance`, {
      creationStep: 'schema',
    });
    expect(advanced.statusCode, advanced.body).toBe(200);
    expect(advanced.json()).toMatchObject({ id, creationStep: 'schema' });
    expect((await call('GET', `/api/v1/deployments/${id}`)).json().creationStep).toBe('schema');
    const reset = await call('POST', `/api/v1/deployments/${id}/creation-step/reset`);
    expect(reset.statusCode).toBe(200);
    expect(reset.json().creationStep).toBe('project');
    const entries = await audit('deployment.creation_step');
    expect(entries.filter((e) => e.target_id === String(id)).map((e) => e.after)).toEqual([
      { creationStep: 'schema' },
      { creationStep: 'project' },
    ]);

    const bad = await call('POST', `/api/v1/deployments/${id}/creation-step/advance`, {
      creationStep: 'warp',
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('body/creationStep');
    const demoMark = await call('POST', `/api/v1/deployments/${id}/creation-step/advance`, {
      creationStep: 'demo',
    });
    expect(demoMark.statusCode).toBe(400);
    expect((await call('GET', `/api/v1/deployments/${id}`)).json().creationStep).toBe('project');

    const demo = await call('POST', `/api/v1/deployments/${server.demoDeploymentId}/creation-step/reset`);
    expect(demo.statusCode).toBe(409);
    expect(demo.json().code).toBe('demo_deployment');
    expect((await call('GET', `/api/v1/deployments/${server.demoDeploymentId}`)).json().creationStep).toBe(
      'demo',
    );

    const developer = await userWithKey(server, 'developer');
    expect(
      (await call('POST', `/api/v1/deployments/${id}/creation-step/reset`, undefined, developer.key))
        .statusCode,
    ).toBe(403);
  });

  it('creates a deployment under /build/api/v1 as the create route does, starting at the step given', async () => {
    const body = {
      name: 'Starter',
      cloudProvider: 'cubecloud',
      isManaged: true,
      region: 'local',
      targetPlatform: 'cube',
      creationStep: 'project',
    };
    const res = await call('POST', '/build/api/v1/deployments', body);
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json();
    expect(created).toMatchObject({ name: 'Starter', creationStep: 'project', basePath: '/cubejs-api' });
    const listed = (await call('GET', '/api/v1/deployments?first=100')).json().items;
    expect(listed.map((d: { id: number }) => d.id)).toContain(created.id);
    const envs = (await call('GET', `/api/v1/deployments/${created.id}/environments`)).json().items;
    expect(envs).toEqual([expect.objectContaining({ type: 'production', branch: 'main' })]);
    expect((await audit('deployment.create')).some((e) => e.target_id === String(created.id))).toBe(true);

    const count = async () => (await call('GET', '/api/v1/deployments?first=1000')).json().items.length;
    const before = await count();
    const { cloudProvider: _, ...withoutProvider } = body;
    const missing = await call('POST', '/build/api/v1/deployments', withoutProvider);
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(missing.json())).toContain('body/cloudProvider');
    const blank = await call('POST', '/build/api/v1/deployments', { ...body, name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(JSON.stringify(blank.json())).toContain('body/name');
    expect(await count()).toBe(before);
    const developer = await userWithKey(server, 'developer');
    expect((await call('POST', '/build/api/v1/deployments', body, developer.key)).statusCode).toBe(403);
  });
});
