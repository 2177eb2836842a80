import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from './harness.ts';

/**
 * Integer path parameters are decimal integers as written: a lenient reading of `1.5`, `1e0`,
 * ` 1` or `0x1` as an id would act on another resource than the one the caller named.
 */
describe('integer path parameters', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it.each([
    '1.5',
    '1e0',
    '%201',
    '0x1',
    '1.0',
  ])('refuses deployment id %s with a 400 naming it, deleting nothing', async (raw) => {
    const id = server.demoDeploymentId;
    const spelled = raw.replace('1', String(id));
    const res = await server.app.inject({
      method: 'DELETE',
      url: `/api/v1/deployments/${spelled}`,
      headers: bearer(server.adminKey),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'params/deploymentId', message: 'must be a decimal integer' },
    ]);
    const still = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${id}`,
      headers: bearer(server.adminKey),
    });
    expect(still.statusCode).toBe(200);
  });

  it('refuses an empty integer query parameter instead of reading it as 0', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${server.demoDeploymentId}/folders?parentId=`,
      headers: bearer(server.adminKey),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'querystring/parentId', message: 'must be a decimal integer' },
    ]);
  });

  it('reads a plain decimal id', async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/v1/deployments/${server.demoDeploymentId}`,
      headers: bearer(server.adminKey),
    });
    expect(res.statusCode).toBe(200);
  });
});
