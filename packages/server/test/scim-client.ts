import { createKey, type TestServer } from './harness.ts';

export interface ScimResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: SCIM bodies are open-ended JSON read by tests
  body: any;
}

/** A SCIM token (an API key of kind scim) and a small client over app.inject for the SCIM tests. */
export async function scimClient(server: TestServer) {
  const token = (
    await createKey(server, { name: `scim ${Math.random().toString(36).slice(2, 8)}`, kind: 'scim' })
  ).key;
  async function call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimResponse> {
    const res = await server.app.inject({
      method,
      url: `/api/scim/v2${url}`,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(payload === undefined
        ? {}
        : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    });
    return { status: res.statusCode, headers: res.headers, body: res.body === '' ? undefined : res.json() };
  }
  const user = async (userName: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName,
      ...extra,
    });
    if (res.status !== 201)
      throw new Error(`creating ${userName}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; meta: { version: string } };
  };
  const group = async (displayName: string, members: string[] = []) => {
    const res = await call('POST', '/Groups', { displayName, members: members.map((value) => ({ value })) });
    if (res.status !== 201)
      throw new Error(`creating ${displayName}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; meta: { version: string } };
  };
  const patchOp = (...Operations: unknown[]) => ({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations,
  });
  return { token, call, user, group, patchOp };
}
