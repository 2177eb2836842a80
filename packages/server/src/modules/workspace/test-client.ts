import { bearer, type TestServer } from '../../../test/harness.ts';

/** A thin HTTP client for the workspace-content tests: every call goes through app.inject. */
export function contentClient(server: TestServer, deploymentId: number) {
  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    key = server.adminKey,
  ) => {
    const url = path.startsWith('/api/') ? path : `/api/v1/deployments/${deploymentId}${path}`;
    const res = await server.app.inject({
      method,
      url,
      headers: bearer(key),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, raw: res };
  };
  const ok = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    key?: string,
  ) => {
    const res = await call(method, path, payload, key);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    call,
    ok,
    folder: (name: string, parentId: number | null = null, key?: string) =>
      ok('POST', '/folders', { name, parentId }, key),
    workbook: (name: string, folderId: number | null = null, key?: string) =>
      ok('POST', '/workbooks', { name, folderId }, key),
    report: (body: Record<string, unknown>, key?: string) => ok('POST', '/reports', body, key),
    grant: (body: Record<string, unknown>, key?: string) => ok('PUT', '/permissions', body, key),
    move: (type: string, id: number, folderId: number | null, key?: string) =>
      call('POST', '/workspace/move', { type, id, folderId }, key),
  };
}

export async function newDeployment(server: TestServer, name = 'content'): Promise<number> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/deployments',
    headers: bearer(server.adminKey),
    payload: { name },
  });
  return res.json().id;
}
