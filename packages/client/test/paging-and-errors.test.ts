import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, isApiError } from '../src/index.ts';
import { type ListeningServer, startListening, unique } from './support.ts';

describe('pagination, typed errors and abort against a listening server', () => {
  let s: ListeningServer;
  let deploymentId: number;
  beforeAll(async () => {
    s = await startListening();
    deploymentId = s.server.demoDeploymentId;
  });
  afterAll(() => s?.close());

  it('walks first/after across pages until hasNextPage is false', async () => {
    const path = { deploymentId };
    const parent = await s.client.POST('/api/v1/deployments/{deploymentId}/folders', {
      params: { path },
      body: { name: unique('parent') },
    });
    const parentId = parent.data!.id;
    const names = Array.from({ length: 25 }, (_, i) => `child-${String(i).padStart(2, '0')}`);
    for (const name of names) {
      const child = await s.client.POST('/api/v1/deployments/{deploymentId}/folders', {
        params: { path },
        body: { name, parentId },
      });
      expect(child.error).toBeUndefined();
    }

    const requested: string[] = [];
    const counting = createClient({
      baseUrl: s.baseUrl,
      token: s.server.adminKey,
      fetch: (request) => {
        requested.push(new URL(request.url).search);
        return fetch(request);
      },
    });
    const seen: string[] = [];
    for await (const folder of counting.paginate('/api/v1/deployments/{deploymentId}/folders', {
      params: { path, query: { parentId, first: 10 } },
    })) {
      seen.push(folder.name);
    }
    expect(seen.sort()).toEqual(names);
    expect(requested).toHaveLength(3);
    expect(requested[0]).not.toContain('after=');
    expect(requested[1]).toContain('after=');

    // Release 0.1.0: the deprecated data and count stay populated next to items and pageInfo.
    const firstPage = await s.client.GET('/api/v1/deployments/{deploymentId}/folders', {
      params: { path, query: { parentId, first: 10 } },
    });
    expect(firstPage.data?.items).toHaveLength(10);
    expect(firstPage.data?.pageInfo.hasNextPage).toBe(true);
    expect(firstPage.data?.count).toBe(25);
    expect(firstPage.data?.data.length).toBeGreaterThan(0);
  });

  it('reads a 404 through the typed problem body', async () => {
    const { data, error, response } = await s.client.GET(
      '/api/v1/deployments/{deploymentId}/folders/{folderId}/ancestors',
      { params: { path: { deploymentId, folderId: 987654 } } },
    );
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(error?.status).toBe(404);
    expect(error?.code).toMatch(/not_found$/);
    expect(error?.detail).toEqual(expect.any(String));
  });

  it('reads a 400 with its field-level errors', async () => {
    const { error, response } = await s.client.GET('/api/v1/deployments/{deploymentId}/folders', {
      params: { path: { deploymentId }, query: { first: 0 } },
    });
    expect(response.status).toBe(400);
    expect(error?.code).toBe('validation_failed');
    expect(error?.errors).toContainEqual({
      field: expect.stringMatching(/\/first$/),
      message: expect.any(String),
    });
  });

  it('throws an ApiError carrying the problem when a page fails', async () => {
    const pages = s.client.paginate('/api/v1/deployments/{deploymentId}/folders', {
      params: { path: { deploymentId: 987654 } },
    });
    const failure = await pages.next().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ApiError);
    expect(isApiError(failure)).toBe(true);
    if (!isApiError<{ code: string }>(failure)) return;
    expect(failure.status).toBe(404);
    expect(failure.code).toBe(failure.body.code);
    expect(failure.body.code).toMatch(/not_found$/);
  });

  it('rejects a call whose signal aborts while the request is on its way', async () => {
    const controller = new AbortController();
    let sent = 0;
    const aborting = createClient({
      baseUrl: s.baseUrl,
      token: s.server.adminKey,
      fetch: (request) => {
        sent++;
        const pending = fetch(request);
        controller.abort();
        return pending;
      },
    });
    await expect(aborting.GET('/api/v1/deployments', { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(sent).toBe(1);
  });

  it('sends cookies instead of a token in credentials include mode', async () => {
    const seen: { credentials: string; authorization: string | null }[] = [];
    const cookieClient = createClient({
      baseUrl: s.baseUrl,
      credentials: 'include',
      fetch: (request) => {
        seen.push({ credentials: request.credentials, authorization: request.headers.get('authorization') });
        return fetch(request);
      },
    });
    const { response } = await cookieClient.GET('/api/v1/users/me');
    expect(seen).toEqual([{ credentials: 'include', authorization: null }]);
    // No session cookie here (sign-in comes with the web app): the server says who is missing.
    expect(response.status).toBe(401);
  });
});
