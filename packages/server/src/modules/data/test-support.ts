import cube from '@cubejs-client/core';
import type { TestServer } from '../../../test/harness.ts';
import { bearer } from '../../../test/harness.ts';

/** Shared by the data-API tests: a listening server, tokens from the management API, a client. */
export async function listen(server: TestServer): Promise<string> {
  const address = await server.app.listen({ host: '127.0.0.1', port: 0 });
  return address;
}

export async function tokenFor(
  server: TestServer,
  deploymentId: number,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/v1/deployments/${deploymentId}/token`,
    headers: bearer(server.adminKey),
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return res.json().serviceApiToken;
}

/**
 * Gives `deploymentId` the demo deployment's model files (on their branch), plus `extra` files,
 * so that a deployment on another engine answers the same queries as the demo's DuckDB one.
 */
export async function copyDemoModel(
  server: TestServer,
  deploymentId: number,
  extra: Array<{ path: string; content: string }> = [],
): Promise<void> {
  const files = await server.store.db
    .selectFrom('model_files')
    .select(['path', 'content', 'branch'])
    .where('deployment_id', '=', server.demoDeploymentId)
    .execute();
  const branch = files[0]!.branch;
  await server.store.db
    .insertInto('model_files')
    .values([
      ...files.map((f) => ({ ...f, deployment_id: deploymentId })),
      ...extra.map((f) => ({ ...f, branch, deployment_id: deploymentId })),
    ])
    .execute();
}

export function client(baseUrl: string, deploymentId: number, token: string) {
  return cube(token, { apiUrl: `${baseUrl}/data/${deploymentId}/cubejs-api/v1` });
}

/** Numbers as strings differ in float digits between engines (numeric vs double); round them. */
export function normalizeNumbers(rows: Record<string, unknown>[]) {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        typeof v === 'string' && /^-?\d+(\.\d+)?(e-?\d+)?$/.test(v)
          ? String(Number(Number(v).toFixed(6)))
          : v,
      ]),
    ),
  );
}

/** The raw `/v1/load` body behind a ResultSet, through its public `serialize()`. */
export function rawResponse(rs: { serialize(): { loadResponse: unknown } }) {
  return rs.serialize().loadResponse as {
    queryType: string;
    results: (Record<string, unknown> & { lastRefreshTime: string; dbType: string })[];
  };
}
