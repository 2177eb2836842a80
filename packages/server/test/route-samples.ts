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
};

export async function createFixtures(server: TestServer): Promise<Fixtures> {
  const f = { server } as Fixtures;
  f.deploymentId = (await post(f, '/api/v1/deployments', { name: 'matrix target' })).id;
  f.otherDeploymentId = (await post(f, '/api/v1/deployments', { name: 'matrix other' })).id;
  const email = `fixture-${unique()}@example.com`;
  f.userId = (await post(f, '/api/v1/users', { email, username: email, role: 'developer' })).id;
  f.groupId = (await post(f, '/api/v1/groups', { name: `fixture ${unique()}` })).id;
  f.apiKeyId = (await createKey(server, { name: 'fixture' })).id;
  return f;
}

/** Management routes: everything under /api/v1 that is not public. */
export function managementRoutes(server: TestServer) {
  return server.routes.filter((r) => r.url.startsWith('/api/v1/') && r.access && !('public' in r.access));
}
