import { SecretBox } from '../src/crypto/secrets.ts';
import { startGitTestServer } from '../src/modules/data-model/git-test-server.ts';
import { fileHash } from '../src/modules/data-model/hashes.ts';
import { shopManifest } from '../src/modules/dbt-sync/test-support.ts';
import { publishSimpleBoard } from '../src/modules/embed/test-support.ts';
import type { TestServer } from './harness.ts';
import { bearer, createKey } from './harness.ts';

/**
 * One valid request per management route. The authorization-matrix and bad-input tests are
 * generated from the route table and these samples: a route registered without a sample fails
 * both tests, so every new route gets covered.
 */
export interface Fixtures {
  server: TestServer;
  /** The deployment every deployment-scoped sample targets. */
  deploymentId: number;
  /** A second deployment: keys scoped to it must not reach `deploymentId`. */
  otherDeploymentId: number;
  userId: number;
  groupId: number;
  apiKeyId: number;
}

export interface Sample {
  url: string;
  payload?: Record<string, unknown>;
}

type SampleFactory = (f: Fixtures) => Sample | Promise<Sample>;

async function post(f: Fixtures, url: string, payload: Record<string, unknown>): Promise<{ id: number }> {
  const res = await f.server.app.inject({ method: 'POST', url, headers: bearer(f.server.adminKey), payload });
  if (res.statusCode !== 200) throw new Error(`fixture ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

const unique = () => Math.random().toString(36).slice(2, 10);

/** A fresh custom role granting viewer on the target deployment. */
const role = (f: Fixtures) =>
  post(f, '/api/v1/roles', {
    name: `role ${unique()}`,
    policies: [
      { resourceType: 'Deployment', actions: ['DeploymentRead'], resources: [String(f.deploymentId)] },
    ],
  });

const sampleAgent = (f: Fixtures) =>
  post(f, '/api/v1/agents', { name: `agent ${unique()}`, deploymentId: f.deploymentId });

const dm = (f: Fixtures) => `/build/api/v1/deployments/${f.deploymentId}`;
async function dmPut(f: Fixtures, branchName: string) {
  const res = await f.server.app.inject({
    method: 'PUT',
    url: `${dm(f)}/data-model/files`,
    headers: bearer(f.server.adminKey),
    payload: { branchName, files: [{ path: 'model/x.yml', content: 'cubes: []' }] },
  });
  if (res.statusCode !== 200) throw new Error(`fixture model file: ${res.statusCode} ${res.body}`);
}

/** An open upload transaction on a fresh branch, optionally holding `model/x.yml`. */
async function dmUpload(f: Fixtures, withFile: boolean) {
  const branchName = `u-${unique()}`;
  const started = (await post(f, `${dm(f)}/data-model/upload/start?branchName=${branchName}`, {})) as unknown;
  const { id } = (started as { transaction: { id: string } }).transaction;
  if (withFile)
    await post(f, `${dm(f)}/data-model/upload/file`, {
      transaction: id,
      fileName: 'model/x.yml',
      file: 'cubes: []',
    });
  return id;
}

const ws = (f: Fixtures) => `/api/v1/deployments/${f.deploymentId}`;
const folder = (f: Fixtures, parentId?: number) =>
  post(f, `${ws(f)}/folders`, { name: `f ${unique()}`, parentId: parentId ?? null });
const workbook = (f: Fixtures) => post(f, `${ws(f)}/workbooks`, { name: `w ${unique()}` });
const report = (f: Fixtures) => post(f, `${ws(f)}/reports`, { name: `r ${unique()}`, sqlQuery: 'SELECT 1' });
async function put(f: Fixtures, url: string, payload: Record<string, unknown>): Promise<{ id: number }> {
  const res = await f.server.app.inject({ method: 'PUT', url, headers: bearer(f.server.adminKey), payload });
  if (res.statusCode !== 200) throw new Error(`fixture ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A fresh workbook whose dashboard has one published version (issue 23: history and restore). */
async function publishedWorkbook(f: Fixtures): Promise<{ id: number }> {
  const wb = await workbook(f);
  await post(f, `${ws(f)}/workbooks/${wb.id}/publish`, {
    workbookId: wb.id,
    config: { title: 'v1', widgets: [] },
  });
  return wb;
}

/** An alert on the target deployment's orders (modules/alerts). */
const alertBody = () => ({
  name: `alert ${unique()}`,
  query: {
    measure: 'orders.count',
    filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
  },
  condition: { type: 'above', threshold: 1000 },
  scheduleType: 'DAILY',
  hour: 7,
  recipients: [{ email: 'alerts@example.com' }],
});
const alert = (f: Fixtures) => post(f, `${ws(f)}/alerts`, alertBody());

/** A daily notification of a fresh published dashboard. */
async function notification(f: Fixtures) {
  const { publicId } = await publishSimpleBoard(f.server, f.deploymentId, false);
  return post(f, `${ws(f)}/notifications`, { scheduleType: 'DAILY', hour: 7, dashboardPublicId: publicId });
}

/** A dashboard export of a fresh published dashboard, rendered before it returns when `completed`. */
async function dashboardExport(f: Fixtures, completed = false): Promise<{ jobId: string }> {
  const { publicId } = await publishSimpleBoard(f.server, f.deploymentId, false);
  const job = (await post(f, `${ws(f)}/dashboard-exports`, {
    format: 'png',
    dashboardPublicId: publicId,
  })) as unknown as {
    jobId: string;
  };
  if (completed) await f.server.services.notifications.exports.process(job.jobId);
  for (let i = 0; completed && i < 200; i++) {
    const res = await f.server.app.inject({
      method: 'GET',
      url: `${ws(f)}/dashboard-exports/${job.jobId}`,
      headers: bearer(f.server.adminKey),
    });
    if (res.json().status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return job;
}

/** A fresh embed tenant's name. */
async function embedTenant(f: Fixtures): Promise<string> {
  return ((await post(f, '/api/v1/embed-tenants', { name: `t-${unique()}` })) as unknown as { name: string })
    .name;
}
/** The address of a fresh, empty group of a fresh embed tenant. */
async function embedGroup(f: Fixtures): Promise<string> {
  const tenant = await embedTenant(f);
  const group = await post(f, `/api/v1/embed-tenants/${tenant}/groups`, { name: `g ${unique()}` });
  return `/api/v1/embed-tenants/${tenant}/groups/${group.id}`;
}

/** A fresh OAuth integration (modules/oauth) whose endpoints no sample calls. */
const oauthIntegration = (f: Fixtures) =>
  post(f, '/api/v1/oauth-integrations', {
    name: `provider ${unique()}`,
    type: 'generic',
    authUrl: 'https://idp.example.com/authorize',
    tokenUrl: 'https://idp.example.com/token',
    clientId: 'tessera',
    clientSecret: 'sample client secret',
    redirectUri: 'https://tessera.example.com/api/v1/oauth/callback',
    scopes: ['openid'],
  });
/** A fresh OIDC token config (modules/oidc/issuer). */
const oidcTokenConfig = (f: Fixtures) =>
  post(f, '/api/v1/oidc-token-configs', { name: `config-${unique()}`, audienceType: 'default' });

/** A fresh integration the first admin (the admin key's user) is connected to. */
async function connectedIntegration(f: Fixtures): Promise<number> {
  const { id } = await oauthIntegration(f);
  await f.server.services.oauthRepository.upsertToken(f.server.adminUserId, id, {
    status: 'active',
    accessTokenEnc: new SecretBox('test-secret').seal('sample access token'),
    refreshTokenEnc: null,
    accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
    refreshTokenExpiresAt: null,
    lastError: null,
  });
  return id;
}

export const routeSamples: Record<string, SampleFactory> = {
  'GET /api/v1/deployments': () => ({ url: '/api/v1/deployments?first=10' }),
  'POST /api/v1/deployments': () => ({
    url: '/api/v1/deployments',
    payload: { name: `sample ${unique()}`, dataSource: { type: 'duckdb', path: ':sample:' } },
  }),
  'GET /api/v1/deployments/:deploymentId': (f) => ({ url: `/api/v1/deployments/${f.deploymentId}` }),
  'PUT /api/v1/deployments/:deploymentId': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}`,
    payload: { name: 'renamed', dataSource: { type: 'duckdb' } },
  }),
  'DELETE /api/v1/deployments/:deploymentId': async (f) => ({
    url: `/api/v1/deployments/${(await post(f, '/api/v1/deployments', { name: 'doomed' })).id}`,
  }),
  'POST /api/v1/data-sources/test': () => ({
    url: '/api/v1/data-sources/test',
    payload: { type: 'duckdb', path: ':sample:' },
  }),
  'POST /api/v1/deployments/:deploymentId/data-source/test': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/data-source/test`,
    payload: {},
  }),
  'GET /api/v1/deployments/:deploymentId/data-source/tables': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/data-source/tables`,
  }),
  'POST /build/api/v1/deployments/:deploymentId/data-model/validate': (f) => ({
    url: `${dm(f)}/data-model/validate`,
    payload: { branchName: `s-${unique()}`, files: [{ path: 'model/x.yml', content: 'cubes: []' }] },
  }),
  'POST /build/api/v1/deployments/:deploymentId/data-model/generate': (f) => ({
    url: `${dm(f)}/data-model/generate`,
    payload: { tables: [{ schema: 'main', name: 'orders' }] },
  }),
  'POST /build/api/v1/deployments/:deploymentId/merge-to-default': async (f) => {
    // A branch copied from main: promoting it leaves main's model as it was.
    const branchName = `m-${unique()}`;
    await post(f, `${dm(f)}/branches`, { name: branchName, activate: true });
    return { url: `${dm(f)}/merge-to-default`, payload: { branchName, message: 'promote' } };
  },
  'POST /build/api/v1/deployments/:deploymentId/commit': async (f) => {
    const branchName = `c-${unique()}`;
    await post(f, `${dm(f)}/branches`, { name: branchName });
    await dmPut(f, branchName);
    return { url: `${dm(f)}/commit`, payload: { branchName, message: 'sample commit' } };
  },
  'POST /build/api/v1/deployments/:deploymentId/merge': async (f) => {
    const branchName = `g-${unique()}`;
    await post(f, `${dm(f)}/branches`, { name: branchName });
    return { url: `${dm(f)}/merge`, payload: { branchName, message: 'merge' } };
  },
  'PUT /build/api/v1/deployments/:deploymentId/branches/staging-environment': async (f) => {
    const branchName = `st-${unique()}`;
    await post(f, `${dm(f)}/branches`, { name: branchName });
    return { url: `${dm(f)}/branches/staging-environment`, payload: { branchName, enabled: true } };
  },
  // The remote settings and pulls act on deployments of their own (gitHome): a fuzzed remote URL
  // there must not send the fixtures' commits to an unreachable host.
  'GET /build/api/v1/deployments/:deploymentId/git/remote': async (f) => ({
    url: `${await gitHome(f, 'settings')}/git/remote`,
  }),
  'PUT /build/api/v1/deployments/:deploymentId/git/remote': async (f) => ({
    url: `${await gitHome(f, 'settings')}/git/remote`,
    payload: {
      url: 'https://git.example.com/model.git',
      token: 'sample-token',
      webhookSecret: sampleWebhookSecret,
    },
  }),
  'DELETE /build/api/v1/deployments/:deploymentId/git/remote': async (f) => {
    const home = await gitHome(f, 'settings');
    await f.server.app.inject({
      method: 'PUT',
      url: `${home}/git/remote`,
      headers: bearer(f.server.adminKey),
      payload: { url: 'https://git.example.com/model.git' },
    });
    return { url: `${home}/git/remote` };
  },
  'POST /build/api/v1/deployments/:deploymentId/pull': async (f) => ({
    url: `${await gitHome(f, 'pull')}/pull`,
    payload: { branchName: 'main' },
  }),
  'GET /build/api/v1/deployments/:deploymentId/data-model/files': (f) => ({
    url: `${dm(f)}/data-model/files?withContent=true`,
  }),
  'PUT /build/api/v1/deployments/:deploymentId/data-model/files': (f) => ({
    url: `${dm(f)}/data-model/files`,
    payload: { branchName: `s-${unique()}`, files: [{ path: 'model/x.yml', content: 'cubes: []' }] },
  }),
  'DELETE /build/api/v1/deployments/:deploymentId/data-model/files': async (f) => {
    const branchName = `s-${unique()}`;
    await dmPut(f, branchName);
    return { url: `${dm(f)}/data-model/files`, payload: { branchName, files: [{ path: 'model/x.yml' }] } };
  },
  'POST /build/api/v1/deployments/:deploymentId/data-model/files/rename': async (f) => {
    const branchName = `s-${unique()}`;
    await dmPut(f, branchName);
    return {
      url: `${dm(f)}/data-model/files/rename`,
      payload: { branchName, files: [{ path: 'model/x.yml', newPath: 'model/y.yml' }] },
    };
  },
  'GET /build/api/v1/deployments/:deploymentId/data-model/validate': (f) => ({
    url: `${dm(f)}/data-model/validate`,
  }),
  'POST /build/api/v1/deployments/:deploymentId/dev-mode': (f) => ({
    url: `${dm(f)}/dev-mode`,
    payload: { branchName: `d-${unique()}` },
  }),
  'DELETE /build/api/v1/deployments/:deploymentId/dev-mode': (f) => ({ url: `${dm(f)}/dev-mode` }),
  'GET /build/api/v1/deployments/:deploymentId/branches': (f) => ({ url: `${dm(f)}/branches` }),
  'POST /build/api/v1/deployments/:deploymentId/branches': (f) => ({
    url: `${dm(f)}/branches`,
    payload: { name: `b-${unique()}` },
  }),
  'DELETE /build/api/v1/deployments/:deploymentId/branches': async (f) => {
    const branchName = `s-${unique()}`;
    await dmPut(f, branchName);
    // an empty JSON body: the harness sends the sample's body with every variant of the query
    return { url: `${dm(f)}/branches?branchName=${branchName}`, payload: {} };
  },

  'GET /build/api/v1/deployments/:deploymentId/data-model/file-hashes': (f) => ({
    url: `${dm(f)}/data-model/file-hashes?branchName=main`,
  }),
  'POST /build/api/v1/deployments/:deploymentId/data-model/upload/start': (f) => ({
    url: `${dm(f)}/data-model/upload/start?branchName=u-${unique()}`,
    payload: {},
  }),
  'POST /build/api/v1/deployments/:deploymentId/data-model/upload/file': async (f) => ({
    url: `${dm(f)}/data-model/upload/file`,
    payload: { transaction: await dmUpload(f, false), fileName: 'model/x.yml', file: 'cubes: []' },
  }),
  'POST /build/api/v1/deployments/:deploymentId/data-model/upload/finish': async (f) => ({
    url: `${dm(f)}/data-model/upload/finish`,
    payload: {
      transaction: { id: await dmUpload(f, true) },
      files: { 'model/x.yml': { hash: fileHash('cubes: []') } },
    },
  }),

  'GET /api/v1/deployments/:deploymentId/environments': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/environments?type=production`,
  }),

  'POST /api/v1/deployments/:deploymentId/token': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/token`,
    payload: { expiresIn: 600, securityContext: { serviceCloud: { groups: ['sales'] } } },
  }),
  'POST /api/v1/deployments/:deploymentId/api-secret/rotate': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/api-secret/rotate`,
  }),

  'GET /api/v1/api-keys': () => ({ url: '/api/v1/api-keys?first=5' }),
  'POST /api/v1/api-keys': (f) => ({
    url: '/api/v1/api-keys',
    payload: { name: 'sample', deploymentIds: [f.deploymentId], kind: 'api' },
  }),
  'GET /api/v1/api-keys/:apiKeyId': (f) => ({ url: `/api/v1/api-keys/${f.apiKeyId}` }),
  'DELETE /api/v1/api-keys/:apiKeyId': async (f) => ({
    url: `/api/v1/api-keys/${(await createKey(f.server, { name: 'doomed' })).id}`,
  }),

  'GET /api/v1/users': () => ({ url: '/api/v1/users?first=5' }),
  'GET /api/v1/users/me': () => ({ url: '/api/v1/users/me' }),
  'POST /api/v1/users': () => {
    const email = `u-${unique()}@example.com`;
    return { url: '/api/v1/users', payload: { email, username: email, role: 'developer', firstName: 'Ada' } };
  },
  'GET /api/v1/users/:id': (f) => ({ url: `/api/v1/users/${f.userId}` }),
  'PUT /api/v1/users/:id': (f) => ({
    url: `/api/v1/users/${f.userId}`,
    payload: { firstName: 'Grace', role: 'viewer' },
  }),
  'DELETE /api/v1/users/:id': async (f) => {
    const email = `d-${unique()}@example.com`;
    return { url: `/api/v1/users/${(await post(f, '/api/v1/users', { email, username: email })).id}` };
  },
  'POST /api/v1/users/bulk': (f) => ({
    url: '/api/v1/users/bulk',
    payload: { action: 'ACTIVATE', userIds: [f.userId] },
  }),
  'PATCH /api/v1/users/me/settings': () => ({
    url: '/api/v1/users/me/settings',
    payload: { theme: 'dark', sheets: { showAppliedFilters: true } },
  }),
  'PATCH /api/v1/users/me': () => ({ url: '/api/v1/users/me', payload: { lastName: 'Admin' } }),

  'GET /api/v1/roles': () => ({ url: '/api/v1/roles?first=5' }),
  'POST /api/v1/roles': () => ({
    url: '/api/v1/roles',
    payload: {
      name: `role ${unique()}`,
      policies: [{ resourceType: 'Global', actions: ['AIBIView'], resources: ['All'] }],
    },
  }),
  'GET /api/v1/roles/:roleId': async (f) => ({ url: `/api/v1/roles/${(await role(f)).id}` }),
  'PUT /api/v1/roles/:roleId': async (f) => ({
    url: `/api/v1/roles/${(await role(f)).id}`,
    payload: { description: 'changed' },
  }),
  'DELETE /api/v1/roles/:roleId': async (f) => ({ url: `/api/v1/roles/${(await role(f)).id}` }),
  'PUT /api/v1/roles/:roleId/users/:userId': async (f) => ({
    url: `/api/v1/roles/${(await role(f)).id}/users/${f.userId}`,
  }),
  'DELETE /api/v1/roles/:roleId/users/:userId': async (f) => ({
    url: `/api/v1/roles/${(await role(f)).id}/users/${f.userId}`,
  }),
  'PUT /api/v1/roles/:roleId/groups/:groupId': async (f) => ({
    url: `/api/v1/roles/${(await role(f)).id}/groups/${f.groupId}`,
  }),
  'DELETE /api/v1/roles/:roleId/groups/:groupId': async (f) => ({
    url: `/api/v1/roles/${(await role(f)).id}/groups/${f.groupId}`,
  }),

  'PUT /api/v1/users/:id/password': (f) => ({
    url: `/api/v1/users/${f.userId}/password`,
    payload: { password: 'correct horse battery staple' },
  }),

  // Browser sign-in (modules/sign-in): the admin changes their own password to the same one.
  'GET /api/v1/session': () => ({ url: '/api/v1/session' }),
  'PUT /api/v1/session/password': async (f) => {
    const password = await knownAdminPassword(f);
    return { url: '/api/v1/session/password', payload: { currentPassword: password, newPassword: password } };
  },

  'GET /api/v1/groups': () => ({ url: '/api/v1/groups?first=5' }),
  'POST /api/v1/groups': () => ({
    url: '/api/v1/groups',
    payload: { name: `group ${unique()}`, description: 'sample' },
  }),
  'GET /api/v1/groups/:groupId': (f) => ({ url: `/api/v1/groups/${f.groupId}` }),
  'PUT /api/v1/groups/:groupId': (f) => ({
    url: `/api/v1/groups/${f.groupId}`,
    payload: { description: 'updated' },
  }),
  'DELETE /api/v1/groups/:groupId': async (f) => ({
    url: `/api/v1/groups/${(await post(f, '/api/v1/groups', { name: `doomed ${unique()}` })).id}`,
  }),
  'GET /api/v1/groups/:groupId/members': (f) => ({ url: `/api/v1/groups/${f.groupId}/members` }),
  'POST /api/v1/groups/:groupId/members': (f) => ({
    url: `/api/v1/groups/${f.groupId}/members`,
    payload: { userId: f.userId },
  }),
  'DELETE /api/v1/groups/:groupId/members/:userId': async (f) => {
    await post(f, `/api/v1/groups/${f.groupId}/members`, { userId: f.userId });
    return { url: `/api/v1/groups/${f.groupId}/members/${f.userId}` };
  },

  // Workspace content: each sample creates what it acts on, so that deletes never collide.
  'GET /api/v1/deployments/:deploymentId/folders': (f) => ({ url: `${ws(f)}/folders?first=5&parentId=0` }),
  'POST /api/v1/deployments/:deploymentId/folders': (f) => ({
    url: `${ws(f)}/folders`,
    payload: { name: `folder ${unique()}`, position: 1 },
  }),
  'PUT /api/v1/deployments/:deploymentId/folders/:folderId': async (f) => ({
    url: `${ws(f)}/folders/${(await folder(f)).id}`,
    payload: { name: 'renamed', position: 2 },
  }),
  'DELETE /api/v1/deployments/:deploymentId/folders/:folderId': async (f) => ({
    url: `${ws(f)}/folders/${(await folder(f)).id}`,
  }),
  'GET /api/v1/deployments/:deploymentId/folders/:folderId/ancestors': async (f) => ({
    url: `${ws(f)}/folders/${(await folder(f, (await folder(f)).id)).id}/ancestors`,
  }),
  'GET /api/v1/deployments/:deploymentId/workbooks': (f) => ({
    url: `${ws(f)}/workbooks?first=5&folderId=0`,
  }),
  'POST /api/v1/deployments/:deploymentId/workbooks': (f) => ({
    url: `${ws(f)}/workbooks`,
    payload: { name: `workbook ${unique()}`, meta: { a: 1 } },
  }),
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}`,
  }),
  'PUT /api/v1/deployments/:deploymentId/workbooks/:workbookId': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}`,
    payload: { name: 'renamed', meta: { b: 2 } },
  }),
  'DELETE /api/v1/deployments/:deploymentId/workbooks/:workbookId': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}`,
  }),
  'PUT /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}/dashboard`,
    payload: { dashboardDraft: { title: 'draft', widgets: [] } },
  }),
  'POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/duplicate': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}/duplicate`,
    payload: { shared: false },
  }),
  'POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/publish': async (f) => {
    const id = (await workbook(f)).id;
    return {
      url: `${ws(f)}/workbooks/${id}/publish`,
      payload: { workbookId: id, title: 'Board', config: { title: 'Board', widgets: [] } },
    };
  },
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/versions': async (f) => ({
    url: `${ws(f)}/workbooks/${(await publishedWorkbook(f)).id}/dashboard/versions?first=5`,
  }),
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/versions/:versionNumber': async (
    f,
  ) => ({
    url: `${ws(f)}/workbooks/${(await publishedWorkbook(f)).id}/dashboard/versions/1`,
  }),
  'POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/versions/:versionNumber/restore':
    async (f) => ({
      url: `${ws(f)}/workbooks/${(await publishedWorkbook(f)).id}/dashboard/versions/1/restore`,
      payload: {},
    }),
  'POST /api/v1/deployments/:deploymentId/dashboards/:publicId/widgets/:widgetId/data': async (f) => {
    const id = (await workbook(f)).id;
    const widgets = [
      { id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: (await report(f)).id } },
    ];
    const board = await post(f, `${ws(f)}/workbooks/${id}/publish`, { workbookId: id, config: { widgets } });
    const publicId = (board as unknown as { publicId: string }).publicId;
    return { url: `${ws(f)}/dashboards/${publicId}/widgets/w1/data`, payload: { limit: 10 } };
  },
  'POST /api/v1/deployments/:deploymentId/dashboards/:publicId/widgets/:widgetId/xlsx': async (f) => {
    const id = (await workbook(f)).id;
    const widgets = [
      { id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: (await report(f)).id } },
    ];
    const board = await post(f, `${ws(f)}/workbooks/${id}/publish`, { workbookId: id, config: { widgets } });
    const publicId = (board as unknown as { publicId: string }).publicId;
    return { url: `${ws(f)}/dashboards/${publicId}/widgets/w1/xlsx`, payload: { limit: 10 } };
  },
  'POST /api/v1/deployments/:deploymentId/dashboards/:publicId/dimension-values': async (f) => {
    const id = (await workbook(f)).id;
    const widgets = [
      { id: 'w1', position: { x: 0, y: 0, w: 1, h: 1 }, config: { reportId: (await report(f)).id } },
    ];
    const board = await post(f, `${ws(f)}/workbooks/${id}/publish`, { workbookId: id, config: { widgets } });
    const publicId = (board as unknown as { publicId: string }).publicId;
    return { url: `${ws(f)}/dashboards/${publicId}/dimension-values`, payload: { limit: 10 } };
  },
  'GET /api/v1/deployments/:deploymentId/reports': (f) => ({ url: `${ws(f)}/reports?first=5&sortBy=name` }),
  'POST /api/v1/deployments/:deploymentId/reports': (f) => ({
    url: `${ws(f)}/reports`,
    payload: { name: `report ${unique()}`, sqlQuery: 'SELECT 1' },
  }),
  'GET /api/v1/deployments/:deploymentId/reports/:reportId': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}`,
  }),
  'POST /api/v1/deployments/:deploymentId/reports/:reportId/data': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}/data`,
    payload: { limit: 10 },
  }),
  'PUT /api/v1/deployments/:deploymentId/reports/:reportId': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}`,
    payload: { title: 'Revenue', sqlQuery: 'SELECT 2' },
  }),
  'DELETE /api/v1/deployments/:deploymentId/reports/:reportId': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}`,
  }),
  'GET /api/v1/deployments/:deploymentId/workspace': (f) => ({ url: `${ws(f)}/workspace?first=5` }),
  'GET /api/v1/deployments/:deploymentId/shared-workspace': (f) => ({
    url: `${ws(f)}/shared-workspace?first=5`,
  }),
  'POST /api/v1/deployments/:deploymentId/workspace/move': async (f) => ({
    url: `${ws(f)}/workspace/move`,
    payload: { type: 'WORKBOOK', id: (await workbook(f)).id, folderId: null },
  }),
  'GET /api/v1/deployments/:deploymentId/permissions': async (f) => ({
    url: `${ws(f)}/permissions?type=WORKBOOK&id=${(await workbook(f)).id}`,
  }),
  'PUT /api/v1/deployments/:deploymentId/permissions': async (f) => ({
    url: `${ws(f)}/permissions`,
    payload: { type: 'WORKBOOK', id: (await workbook(f)).id, userId: f.userId, level: 'view' },
  }),
  'DELETE /api/v1/deployments/:deploymentId/permissions/:permissionId': async (f) => {
    const grant = await put(f, `${ws(f)}/permissions`, {
      type: 'WORKBOOK',
      id: (await workbook(f)).id,
      groupId: f.groupId,
      level: 'edit',
    });
    return { url: `${ws(f)}/permissions/${grant.id}` };
  },
  // Embedding (modules/embed, modules/embed-tenants): each sample creates the tenant or group it acts on.
  'POST /api/v1/embed/generate-session': (f) => ({
    url: '/api/v1/embed/generate-session',
    payload: { deploymentId: f.deploymentId, externalId: `user-${unique()}`, embedTenantName: 'acme' },
  }),
  'POST /api/v1/embed/session/revoke': async (f) => ({
    url: '/api/v1/embed/session/revoke',
    payload: {
      sessionId: (
        (await post(f, '/api/v1/embed/generate-session', { deploymentId: f.deploymentId })) as unknown as {
          sessionId: string;
        }
      ).sessionId,
    },
  }),
  'GET /api/v1/embed': (f) => ({ url: `/api/v1/embed?first=5&deploymentId=${f.deploymentId}` }),
  'GET /api/v1/embed/dashboard/:publicId': async (f) => ({
    url: `/api/v1/embed/dashboard/${(await publishSimpleBoard(f.server, f.deploymentId, true)).publicId}`,
  }),
  'PATCH /api/v1/embed/dashboard/:publicId': async (f) => ({
    url: `/api/v1/embed/dashboard/${(await publishSimpleBoard(f.server, f.deploymentId, false)).publicId}`,
    payload: { allowEmbed: true },
  }),
  // Embed tokens only: every other credential is refused (403), which the fuzzer checks holds.
  'GET /api/v1/embed/chat-agent': () => ({ url: '/api/v1/embed/chat-agent' }),
  'GET /api/v1/embed/settings': () => ({ url: '/api/v1/embed/settings' }),
  'PUT /api/v1/embed/settings': () => ({
    url: '/api/v1/embed/settings',
    payload: { showDashboardChat: true, frameAncestors: ['https://app.example.com'] },
  }),
  'GET /api/v1/embed-tenants': () => ({ url: '/api/v1/embed-tenants?first=5&search=t' }),
  'POST /api/v1/embed-tenants': () => ({
    url: '/api/v1/embed-tenants',
    payload: { name: `t-${unique()}`, displayName: 'Sample' },
  }),
  'GET /api/v1/embed-tenants/:embedTenantName': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}`,
  }),
  'DELETE /api/v1/embed-tenants/:embedTenantName': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}`,
  }),
  'GET /api/v1/embed-tenants/:embedTenantName/groups': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}/groups?first=5`,
  }),
  'POST /api/v1/embed-tenants/:embedTenantName/groups': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}/groups`,
    payload: { name: 'analysts', description: 'sample' },
  }),
  'GET /api/v1/embed-tenants/:embedTenantName/groups/:id': async (f) => ({ url: await embedGroup(f) }),
  'PATCH /api/v1/embed-tenants/:embedTenantName/groups/:id': async (f) => ({
    url: await embedGroup(f),
    payload: { description: 'updated' },
  }),
  'DELETE /api/v1/embed-tenants/:embedTenantName/groups/:id': async (f) => ({ url: await embedGroup(f) }),
  'GET /api/v1/embed-tenants/:embedTenantName/groups/:id/users': async (f) => ({
    url: `${await embedGroup(f)}/users?first=5`,
  }),
  'POST /api/v1/embed-tenants/:embedTenantName/groups/:id/users': async (f) => ({
    url: `${await embedGroup(f)}/users`,
    payload: { members: [{ externalId: 'member-1' }] },
  }),
  'DELETE /api/v1/embed-tenants/:embedTenantName/groups/:id/users': async (f) => ({
    url: `${await embedGroup(f)}/users`,
    payload: { members: [{ externalId: 'member-1' }] },
  }),
  'GET /api/v1/embed-tenants/:embedTenantName/users': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}/users?first=5&search=a`,
  }),
  'POST /api/v1/embed-tenants/:embedTenantName/user': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}/user`,
    payload: { externalId: `u-${unique()}`, email: 'ada@example.com', userProfile: { displayName: 'Ada' } },
  }),
  'POST /api/v1/embed-tenants/:embedTenantName/users': async (f) => ({
    url: `/api/v1/embed-tenants/${await embedTenant(f)}/users`,
    payload: { users: [{ externalId: `u-${unique()}` }] },
  }),
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId/embed-access': async (f) => ({
    url: `${ws(f)}/workbooks/${(await workbook(f)).id}/embed-access`,
  }),
  'PUT /api/v1/deployments/:deploymentId/workbooks/:workbookId/embed-access': async (f) => ({
    url: `${ws(f)}/workbooks/${(await publishSimpleBoard(f.server, f.deploymentId, false)).workbookId}/embed-access`,
    payload: { embedTenantName: await embedTenant(f), action: 'read', allowEmbed: true },
  }),
  'GET /api/v1/deployments/:deploymentId/embed-tenants/:embedTenantName/workbooks': async (f) => ({
    url: `${ws(f)}/embed-tenants/${await embedTenant(f)}/workbooks?first=5&accessSource=tenant`,
  }),

  'GET /api/v1/agents': () => ({ url: '/api/v1/agents?first=5' }),
  'POST /api/v1/agents': (f) => ({
    url: '/api/v1/agents',
    payload: { name: `agent ${unique()}`, deploymentId: f.deploymentId },
  }),
  'GET /api/v1/agents/:agentId': async (f) => ({ url: `/api/v1/agents/${(await sampleAgent(f)).id}` }),
  'PATCH /api/v1/agents/:agentId': async (f) => ({
    url: `/api/v1/agents/${(await sampleAgent(f)).id}`,
    payload: { instructions: 'Answer briefly.' },
  }),
  'DELETE /api/v1/agents/:agentId': async (f) => ({ url: `/api/v1/agents/${(await sampleAgent(f)).id}` }),

  'POST /api/v1/public/:accountName/agents/:agentId/chat/stream-chat-state': async (f) => ({
    url: `/api/v1/public/default/agents/${(await sampleAgent(f)).id}/chat/stream-chat-state`,
    payload: { sessionSettings: { externalId: 'matrix-user' } },
  }),
  'POST /api/v1/public/:accountName/agents/:agentId/chat/abort': async (f) => {
    const chat = `/api/v1/public/default/agents/${(await sampleAgent(f)).id}/chat`;
    const opened = await f.server.app.inject({
      method: 'POST',
      url: `${chat}/stream-chat-state`,
      headers: bearer(f.server.adminKey),
      payload: { sessionSettings: { externalId: 'matrix-user' } },
    });
    const chatId = JSON.parse(opened.body.split('\n')[0]).state.chatId;
    return { url: `${chat}/abort`, payload: { chatId } };
  },

  // Scheduled notifications and dashboard exports (modules/notifications): each sample makes its own.
  'GET /api/v1/deployments/:deploymentId/notifications': (f) => ({
    url: `${ws(f)}/notifications?first=5&recipientEmail=someone@example.com`,
  }),
  'POST /api/v1/deployments/:deploymentId/notifications': async (f) => ({
    url: `${ws(f)}/notifications`,
    payload: {
      scheduleType: 'DAILY',
      hour: 8,
      minute: 30,
      timezone: 'Europe/Berlin',
      dashboardPublicId: (await publishSimpleBoard(f.server, f.deploymentId, false)).publicId,
      notificationFormat: 'pdf',
    },
  }),
  'GET /api/v1/deployments/:deploymentId/notifications/:id': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}`,
  }),
  'PUT /api/v1/deployments/:deploymentId/notifications/:id': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}`,
    payload: { scheduleType: 'WEEKLY', dayOfWeek: 1, isEnabled: false },
  }),
  'DELETE /api/v1/deployments/:deploymentId/notifications/:id': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}`,
  }),
  'GET /api/v1/deployments/:deploymentId/notifications/:id/recipients': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}/recipients?first=5`,
  }),
  'POST /api/v1/deployments/:deploymentId/notifications/:id/recipients': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}/recipients`,
    payload: { recipients: [{ type: 'EMAIL', email: 'someone@example.com', username: 'Someone' }] },
  }),
  'DELETE /api/v1/deployments/:deploymentId/notifications/:id/recipients': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}/recipients`,
    payload: { recipients: [{ type: 'EMAIL', id: 'someone@example.com' }] },
  }),
  'GET /api/v1/deployments/:deploymentId/notifications/:id/runs': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}/runs?first=5`,
  }),
  'POST /api/v1/deployments/:deploymentId/notifications/:id/runs': async (f) => ({
    url: `${ws(f)}/notifications/${(await notification(f)).id}/runs`,
  }),
  // Alerts on measures (modules/alerts): each sample makes its own.
  'GET /api/v1/deployments/:deploymentId/alerts': (f) => ({ url: `${ws(f)}/alerts?first=5` }),
  'POST /api/v1/deployments/:deploymentId/alerts': (f) => ({ url: `${ws(f)}/alerts`, payload: alertBody() }),
  'GET /api/v1/deployments/:deploymentId/alerts/:alertId': async (f) => ({
    url: `${ws(f)}/alerts/${(await alert(f)).id}`,
  }),
  'PUT /api/v1/deployments/:deploymentId/alerts/:alertId': async (f) => ({
    url: `${ws(f)}/alerts/${(await alert(f)).id}`,
    payload: { condition: { type: 'below', threshold: 5 }, isEnabled: false },
  }),
  'DELETE /api/v1/deployments/:deploymentId/alerts/:alertId': async (f) => ({
    url: `${ws(f)}/alerts/${(await alert(f)).id}`,
  }),
  'POST /api/v1/deployments/:deploymentId/alerts/:alertId/check': async (f) => ({
    url: `${ws(f)}/alerts/${(await alert(f)).id}/check`,
  }),
  'GET /api/v1/deployments/:deploymentId/alerts/:alertId/checks': async (f) => ({
    url: `${ws(f)}/alerts/${(await alert(f)).id}/checks?first=5`,
  }),
  'POST /api/v1/deployments/:deploymentId/dashboard-exports': async (f) => ({
    url: `${ws(f)}/dashboard-exports`,
    payload: {
      format: 'png',
      dashboardPublicId: (await publishSimpleBoard(f.server, f.deploymentId, false)).publicId,
    },
  }),
  'GET /api/v1/deployments/:deploymentId/dashboard-exports/:jobId': async (f) => ({
    url: `${ws(f)}/dashboard-exports/${(await dashboardExport(f)).jobId}`,
  }),
  'GET /api/v1/deployments/:deploymentId/dashboard-exports/:jobId/download': async (f) => ({
    url: `${ws(f)}/dashboard-exports/${(await dashboardExport(f, true)).jobId}/download?filename=board`,
  }),

  'GET /api/v1/app-config': () => ({ url: '/api/v1/app-config' }),
  'PUT /api/v1/app-config': () => ({
    url: '/api/v1/app-config',
    payload: { applyThemeGlobally: true, appTheme: { logoUrl: 'https://example.com/logo.png' } },
  }),

  'GET /api/v1/tenant/settings': () => ({ url: '/api/v1/tenant/settings' }),
  'PUT /api/v1/tenant/settings': () => ({
    url: '/api/v1/tenant/settings',
    payload: {
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'monday',
      maintenanceWindowTime: '03:30',
    },
  }),
  'GET /api/v1/deployments/:deploymentId/env-vars': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/env-vars?first=10`,
  }),
  'PUT /api/v1/deployments/:deploymentId/env-vars': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/env-vars`,
    payload: { env_variables: [{ name: 'SAMPLE_VARIABLE', value: 'sample value' }] },
  }),
  'GET /api/v1/regions': () => ({ url: '/api/v1/regions?first=10' }),
  'GET /api/v1/spec': () => ({ url: '/api/v1/spec' }),
  'GET /api/v1/deployments/:deploymentId/query-history': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/query-history?first=10`,
  }),
  'POST /api/v1/deployments/:deploymentId/query-history': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/query-history`,
    payload: { sql: 'SELECT status, MEASURE(count) FROM orders GROUP BY 1', rowCount: 5, durationMs: 12 },
  }),
  'DELETE /api/v1/deployments/:deploymentId/query-history': (f) => ({
    url: `/api/v1/deployments/${f.deploymentId}/query-history`,
  }),
  'GET /api/v1/oauth-integrations': () => ({ url: '/api/v1/oauth-integrations' }),
  'POST /api/v1/oauth-integrations': () => ({
    url: '/api/v1/oauth-integrations',
    payload: {
      name: `provider ${unique()}`,
      type: 'generic',
      authUrl: 'https://idp.example.com/authorize',
      tokenUrl: 'https://idp.example.com/token',
      clientId: 'tessera',
      clientSecret: 'sample client secret',
      redirectUri: 'https://tessera.example.com/api/v1/oauth/callback',
      scopes: ['openid', 'offline_access'],
      config: { revocationUrl: 'https://idp.example.com/revoke' },
    },
  }),
  'GET /api/v1/oauth-integrations/:id': async (f) => ({
    url: `/api/v1/oauth-integrations/${(await oauthIntegration(f)).id}`,
  }),
  'PUT /api/v1/oauth-integrations/:id': async (f) => ({
    url: `/api/v1/oauth-integrations/${(await oauthIntegration(f)).id}`,
    payload: {
      name: `renamed ${unique()}`,
      type: 'generic',
      authUrl: 'https://idp.example.com/authorize',
      tokenUrl: 'https://idp.example.com/token',
      clientId: 'tessera',
      clientSecret: null,
      redirectUri: 'https://tessera.example.com/api/v1/oauth/callback',
    },
  }),
  'DELETE /api/v1/oauth-integrations/:id': async (f) => ({
    url: `/api/v1/oauth-integrations/${(await oauthIntegration(f)).id}`,
  }),
  'GET /api/v1/user-oauth-tokens': () => ({ url: '/api/v1/user-oauth-tokens' }),
  'GET /api/v1/user-oauth-tokens/:integrationId': async (f) => ({
    url: `/api/v1/user-oauth-tokens/${await connectedIntegration(f)}`,
  }),
  'DELETE /api/v1/user-oauth-tokens/:integrationId': async (f) => ({
    url: `/api/v1/user-oauth-tokens/${await connectedIntegration(f)}`,
  }),
  'GET /api/v1/oidc-token-configs': () => ({ url: '/api/v1/oidc-token-configs' }),
  'POST /api/v1/oidc-token-configs': () => ({
    url: '/api/v1/oidc-token-configs',
    payload: {
      name: `config-${unique()}`,
      audienceType: 'custom',
      customAudience: 'https://warehouse.example.com',
      subFormat: 'tessera:{deployment_id}:{region}',
      customClaims: { scp: 'session:role:ANALYST' },
      targetEnvVar: 'WAREHOUSE_TOKEN',
      isEnabled: true,
    },
  }),
  'GET /api/v1/oidc-token-configs/:id': async (f) => ({
    url: `/api/v1/oidc-token-configs/${(await oidcTokenConfig(f)).id}`,
  }),
  'PUT /api/v1/oidc-token-configs/:id': async (f) => ({
    url: `/api/v1/oidc-token-configs/${(await oidcTokenConfig(f)).id}`,
    payload: { name: `renamed-${unique()}`, subFormat: 'deployment:{deployment_id}', isEnabled: true },
  }),
  'DELETE /api/v1/oidc-token-configs/:id': async (f) => ({
    url: `/api/v1/oidc-token-configs/${(await oidcTokenConfig(f)).id}`,
  }),
  'POST /api/v1/oidc-token-configs/:id/token': async (f) => ({
    url: `/api/v1/oidc-token-configs/${(await oidcTokenConfig(f)).id}/token`,
    payload: { deploymentId: f.deploymentId },
  }),
  'POST /api/v1/user-oauth-tokens/:integrationId/initiate': async (f) => ({
    url: `/api/v1/user-oauth-tokens/${(await oauthIntegration(f)).id}/initiate`,
  }),

  'GET /api/v1/user-attributes': () => ({ url: '/api/v1/user-attributes?first=5&type=string' }),
  'POST /api/v1/user-attributes': () => ({
    url: '/api/v1/user-attributes',
    payload: { name: `attr_${unique()}`, type: 'string', defaultValue: 'DE', displayName: 'Country' },
  }),
  'PUT /api/v1/user-attributes/:id': async (f) => ({
    url: `/api/v1/user-attributes/${(await userAttribute(f)).id}`,
    payload: { displayName: 'Renamed', defaultValue: 'FR', description: 'Where the user sells' },
  }),
  'POST /api/v1/user-attribute-values': async (f) => ({
    url: '/api/v1/user-attribute-values',
    payload: { userId: String(f.userId), userAttributeId: String((await userAttribute(f)).id), value: 'DE' },
  }),
  'GET /api/v1/user-attribute-values/:userId': (f) => ({ url: `/api/v1/user-attribute-values/${f.userId}` }),
  'GET /api/v1/audit-log': () => ({ url: '/api/v1/audit-log?first=5&action=user.*' }),
  'GET /api/v1/audit-log/export': () => ({ url: '/api/v1/audit-log/export?targetType=user' }),

  // Dashboard comments (issue 25 item 4). Embed tokens only on the Embed routes: the fuzzer's token
  // names no embed tenant, so it checks that every request there is refused and changes nothing.
  'GET /api/v1/embed/dashboard/:publicId/comments': async (f) => ({
    url: `${await embedComments(f)}?first=5&includeResolved=true`,
  }),
  'POST /api/v1/embed/dashboard/:publicId/comments': async (f) => ({
    url: await embedComments(f),
    payload: { body: 'Looks right', parentId: null, mentions: [] },
  }),
  'GET /api/v1/embed/dashboard/:publicId/comments/mentionable-users': async (f) => ({
    url: `${await embedComments(f)}/mentionable-users?first=5&search=a`,
  }),
  'PATCH /api/v1/embed/dashboard/:publicId/comments/:commentId': async (f) => ({
    url: `${await embedComments(f)}/1`,
    payload: { body: 'Edited', mentions: [] },
  }),
  'DELETE /api/v1/embed/dashboard/:publicId/comments/:commentId': async (f) => ({
    url: `${await embedComments(f)}/1`,
  }),
  'POST /api/v1/embed/dashboard/:publicId/comments/:commentId/resolve': async (f) => ({
    url: `${await embedComments(f)}/1/resolve`,
    payload: { resolved: true },
  }),
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments': async (f) => ({
    url: `${(await workbookComment(f)).path}?first=5&resolvedOnly=false`,
  }),
  'POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments': async (f) => {
    const { path, id } = await workbookComment(f);
    return { url: path, payload: { body: 'A reply', parentId: id, mentions: [f.server.adminUserId] } };
  },
  'GET /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments/mentionable-users': async (
    f,
  ) => ({ url: `${(await workbookComment(f)).path}/mentionable-users?first=5&search=a` }),
  'PATCH /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments/:commentId': async (
    f,
  ) => {
    const { path, id } = await workbookComment(f);
    return { url: `${path}/${id}`, payload: { body: 'Edited', mentions: [] } };
  },
  'DELETE /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments/:commentId': async (
    f,
  ) => {
    const { path, id } = await workbookComment(f);
    return { url: `${path}/${id}` };
  },
  'POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/comments/:commentId/resolve':
    async (f) => {
      const { path, id } = await workbookComment(f);
      return { url: `${path}/${id}/resolve`, payload: { resolved: true } };
    },

  // Environment tokens (issue 25 item 1).
  'GET /api/v1/deployments/:deploymentId/environments/:environmentId/tokens': async (f) => ({
    url: `${await environmentPath(f)}/tokens?limit=5&offset=0`,
  }),
  'POST /api/v1/deployments/:deploymentId/environments/:environmentId/tokens': async (f) => ({
    url: `${await environmentPath(f)}/tokens`,
    payload: {
      security_context: { serviceCloud: { groups: ['sales'] } },
      expires_in: 600,
      scopes: ['meta', 'data'],
    },
  }),
  'POST /api/v1/deployments/:deploymentId/environments/:environmentId/tokens-for-meta-sync': async (f) => ({
    url: `${await environmentPath(f)}/tokens-for-meta-sync`,
    payload: { security_context: {}, expires_in: 60, scopes: ['meta'] },
  }),
  // Issue 25 item 5: a Usage Analytics token (no body; the reference takes none).
  'POST /api/v1/usage-analytics/token': () => ({ url: '/api/v1/usage-analytics/token' }),
  // dbt sync (issue 25 item 3): each sample makes its own job; `completed` ones are run first.
  'GET /api/v1/deployments/:deploymentId/dbt-sync': async (f) => {
    await dbtSync(f, true);
    return { url: `${ws(f)}/dbt-sync?first=5&status=COMPLETED&trigger=api` };
  },
  'POST /api/v1/deployments/:deploymentId/dbt-sync': (f) => ({
    url: `${ws(f)}/dbt-sync`,
    payload: {
      manifest: shopManifest('sample'),
      branchName: `dbt/${unique()}`,
      output: 'branch',
      ref: 'main',
      source: 'manifest',
    },
  }),
  'GET /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId': async (f) => ({
    url: await dbtSync(f, false),
  }),
  'DELETE /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId': async (f) => ({
    url: await dbtSync(f, false),
  }),
  'GET /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId/generated-files': async (f) => ({
    url: `${await dbtSync(f, true)}/generated-files?first=2`,
  }),
  'GET /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId/logs': async (f) => ({
    url: `${await dbtSync(f, false)}/logs`,
  }),
  'GET /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId/result': async (f) => ({
    url: `${await dbtSync(f, true)}/result`,
  }),
  // Issue 25 item 4: bulk moves and deletes, upserts by slug and by publicId.
  'POST /api/v1/deployments/:deploymentId/workspace/bulk-move': async (f) => ({
    url: `${ws(f)}/workspace/bulk-move`,
    payload: { items: [{ type: 'WORKBOOK', id: (await workbook(f)).id }], folderId: null },
  }),
  'POST /api/v1/deployments/:deploymentId/workspace/bulk-delete': async (f) => ({
    url: `${ws(f)}/workspace/bulk-delete`,
    payload: { items: [{ type: 'WORKBOOK', id: (await workbook(f)).id }] },
  }),
  'PUT /api/v1/deployments/:deploymentId/workbooks/by-slug/:slug': (f) => ({
    url: `${ws(f)}/workbooks/by-slug/sample-${unique()}`,
    payload: { name: 'by slug', meta: { a: 1 } },
  }),
  'PUT /api/v1/deployments/:deploymentId/reports/by-public-id/:publicId': (f) => ({
    url: `${ws(f)}/reports/by-public-id/${`${unique()}0000000000`.slice(0, 12)}`,
    payload: { name: 'by public id', sqlQuery: 'SELECT 1' },
  }),
  // Issue 25 item 1: the rest of the Deployments group, and Deployment Creation.
  'GET /api/v1/deployments/:deploymentId/settings': (f) => ({ url: `${ws(f)}/settings` }),
  'GET /api/v1/deployments/:deploymentId/build-status': (f) => ({
    url: `${ws(f)}/build-status?branchName=main`,
  }),
  'GET /api/v1/deployments/:deploymentId/logs': (f) => ({ url: `${ws(f)}/logs?source=production&first=10` }),
  'GET /api/v1/deployments/:deploymentId/versions': (f) => ({ url: `${ws(f)}/versions?first=10` }),
  'POST /api/v1/deployments/:deploymentId/creation-step/advance': (f) => ({
    url: `${ws(f)}/creation-step/advance`,
    payload: { creationStep: 'ready' },
  }),
  'POST /api/v1/deployments/:deploymentId/creation-step/reset': async (f) => ({
    url: `/api/v1/deployments/${(await post(f, '/api/v1/deployments', { name: `reset ${unique()}` })).id}/creation-step/reset`,
  }),
  'POST /build/api/v1/deployments': () => ({
    url: '/build/api/v1/deployments',
    payload: {
      name: `starter ${unique()}`,
      cloudProvider: 'cubecloud',
      isManaged: true,
      region: 'local',
      targetPlatform: 'cube',
      creationStep: 'project',
    },
  }),
  // Issue 25 item 4: a report placed in a spreadsheet.
  'PUT /api/v1/deployments/:deploymentId/reports/:reportId/connect-workbook': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}/connect-workbook`,
    payload: { externalWorkbookId: 'wb-sample', resultLocation: 'Sheet1!A1:C9', host: 'EXCEL' },
  }),
  'DELETE /api/v1/deployments/:deploymentId/reports/:reportId/connect-workbook': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}/connect-workbook`,
    payload: { externalWorkbookId: 'wb-sample', sheetName: 'Sheet1', anchorCell: 'A1' },
  }),
  'PUT /api/v1/deployments/:deploymentId/reports/:reportId/refresh': async (f) => ({
    url: `${ws(f)}/reports/${(await report(f)).id}/refresh`,
    payload: {},
  }),
  // Content as code reads and diffs a whole deployment: its samples get one of their own, kept
  // small, rather than the fixtures' deployment that every other sample (and fuzz run) fills.
  'GET /api/v1/deployments/:deploymentId/content': async (f) => ({ url: `${await contentHome(f)}/content` }),
  'POST /api/v1/deployments/:deploymentId/content/plan': async (f) => ({
    url: `${await contentHome(f)}/content/plan`,
    payload: {
      files: { 'workspace/planned/_folder.yaml': 'kind: folder\nname: Planned\nposition: 0\ngrants: []\n' },
    },
  }),
  // The deployment's own content and one folder more: applying it changes nothing else there.
  'POST /api/v1/deployments/:deploymentId/content/apply': async (f) => {
    const home = await contentHome(f);
    const res = await f.server.app.inject({ url: `${home}/content`, headers: bearer(f.server.adminKey) });
    if (res.statusCode !== 200) throw new Error(`fixture content: ${res.statusCode} ${res.body}`);
    const name = `sample-${unique()}`;
    const folder = `kind: folder\nname: ${name}\nposition: 0\ngrants: []\n`;
    return {
      url: `${home}/content/apply`,
      payload: { files: { ...res.json().files, [`workspace/${name}/_folder.yaml`]: folder } },
    };
  },
};

/** A fresh dbt sync job's path, run to completion first when `completed` (modules/dbt-sync). */
async function dbtSync(f: Fixtures, completed: boolean) {
  const { syncJobId } = (await post(f, `${ws(f)}/dbt-sync`, {
    manifest: shopManifest('sample'),
    output: 'files',
  })) as unknown as { syncJobId: string };
  if (completed) await f.server.services.dbtSyncRunner.process(syncJobId);
  return `${ws(f)}/dbt-sync/${syncJobId}`;
}

/** The target deployment's production environment, as its environments list names it. */
async function environmentPath(f: Fixtures) {
  const res = await f.server.app.inject({
    url: `${ws(f)}/environments?type=production`,
    headers: bearer(f.server.adminKey),
  });
  if (res.statusCode !== 200) throw new Error(`fixture environments: ${res.statusCode} ${res.body}`);
  return `${ws(f)}/environments/${res.json().items[0].id}`;
}

/** The comments path of a fresh embeddable dashboard. */
const embedComments = async (f: Fixtures) =>
  `/api/v1/embed/dashboard/${(await publishSimpleBoard(f.server, f.deploymentId, true)).publicId}/comments`;

/** A fresh published workbook with one comment of the admin's (issue 25 item 4). */
async function workbookComment(f: Fixtures) {
  const { workbookId } = await publishSimpleBoard(f.server, f.deploymentId, false);
  const path = `${ws(f)}/workbooks/${workbookId}/dashboard/comments`;
  return { path, id: (await post(f, path, { body: 'Why the dip?' })).id };
}

/** A fresh string user attribute (issue 22 item 3). */
const userAttribute = (f: Fixtures) =>
  post(f, '/api/v1/user-attributes', { name: `attr_${unique()}`, type: 'string' });

/** Gives the first admin a known password (whatever earlier requests set) and answers it. */
export async function knownAdminPassword(f: Fixtures): Promise<string> {
  const password = 'sample admin password';
  const res = await f.server.app.inject({
    method: 'PUT',
    url: `/api/v1/users/${f.server.adminUserId}/password`,
    headers: bearer(f.server.adminKey),
    payload: { password },
  });
  if (res.statusCode !== 204) throw new Error(`fixture admin password: ${res.statusCode} ${res.body}`);
  return password;
}

export async function createFixtures(server: TestServer): Promise<Fixtures> {
  const f = { server } as Fixtures;
  f.deploymentId = (await post(f, '/api/v1/deployments', { name: 'matrix target' })).id;
  f.otherDeploymentId = (await post(f, '/api/v1/deployments', { name: 'matrix other' })).id;
  // The demo model on the target, before anything reads its model: samples that name members
  // (alerts on `orders.count`) are checked against it.
  const demoFiles = await server.store.db
    .selectFrom('model_files')
    .select(['path', 'content', 'branch'])
    .where('deployment_id', '=', server.demoDeploymentId)
    .where('branch', '=', 'main')
    .execute();
  await server.store.db
    .insertInto('model_files')
    .values(demoFiles.map((file) => ({ ...file, deployment_id: f.deploymentId })))
    .execute();
  const email = `fixture-${unique()}@example.com`;
  f.userId = (await post(f, '/api/v1/users', { email, username: email, role: 'developer' })).id;
  f.groupId = (await post(f, '/api/v1/groups', { name: `fixture ${unique()}` })).id;
  f.apiKeyId = (await createKey(server, { name: 'fixture' })).id;
  return f;
}

/** Management routes: everything under /api/v1 that is not public. */
export function managementRoutes(server: TestServer) {
  return server.routes.filter(
    (r) =>
      (r.url.startsWith('/api/v1/') || r.url.startsWith('/build/api/v1/')) &&
      r.access &&
      !('public' in r.access) &&
      // Routes only embed tokens call (no API key ever gets 2xx) are covered by their own tests.
      r.access.credential !== 'embed',
  );
}

const contentHomes = new WeakMap<Fixtures, Promise<string>>();

export const sampleWebhookSecret = 'sample-webhook-secret-0123456789';
const gitHomes = new WeakMap<Fixtures, Map<string, Promise<string>>>();

/**
 * A deployment of the git samples' own (made once per fixtures and use), as a path prefix: for
 * `pull`, connected to a git server in this process (git-test-server.ts) holding its main branch.
 */
export function gitHome(f: Fixtures, use: 'settings' | 'pull'): Promise<string> {
  const homes = gitHomes.get(f) ?? new Map<string, Promise<string>>();
  gitHomes.set(f, homes);
  let home = homes.get(use);
  if (!home) {
    home = (async () => {
      const { id } = await post(f, '/api/v1/deployments', {
        name: `git ${use} ${unique()}`,
        dataSource: { type: 'duckdb', path: ':sample:' },
      });
      const base = `/build/api/v1/deployments/${id}`;
      const token = 'sample-git-token';
      if (use === 'pull') {
        // A repository of its own: test files sharing a worker must not push unrelated histories
        // onto one repository's main.
        const remote = await startGitTestServer(token, { unref: true });
        const put = await f.server.app.inject({
          method: 'PUT',
          url: `${base}/git/remote`,
          headers: bearer(f.server.adminKey),
          payload: { url: remote.url, token, webhookSecret: sampleWebhookSecret },
        });
        if (put.statusCode !== 200) throw new Error(`fixture git remote: ${put.statusCode} ${put.body}`);
        await post(f, `${base}/commit`, { branchName: 'main', message: 'Publish the sample model' });
      }
      return base;
    })();
    homes.set(use, home);
  }
  return home;
}

/** The content-as-code samples' own deployment (made once per fixtures), as a path prefix. */
function contentHome(f: Fixtures): Promise<string> {
  let home = contentHomes.get(f);
  if (!home) {
    home = post(f, '/api/v1/deployments', {
      name: `content ${unique()}`,
      dataSource: { type: 'duckdb', path: ':sample:' },
    }).then(({ id }) => `/api/v1/deployments/${id}`);
    contentHomes.set(f, home);
  }
  return home;
}
