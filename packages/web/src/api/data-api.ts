import type { QueryClient } from '@tanstack/react-query';
import { type Client, createDataApi, type DataApi, unwrap } from '@tessera/client';

/** A data-API token lives an hour; the pages ask for a new one well before it ends. */
const tokenLifetime = 3600;
const tokenStaleAfter = 30 * 60_000;

/**
 * The data API of a deployment (DESIGN.md "Addresses") as the signed-in user may call it: with a
 * data-API token from `POST /api/v1/deployments/{id}/token` (a developer's), kept in the query
 * cache for half an hour, so that the report page, Explore and the SQL editor share one token;
 * the token too, for a call the client's helpers do not make.
 */
export async function dataApiFor(
  queryClient: QueryClient,
  client: Client,
  deploymentId: number,
): Promise<{ api: DataApi; token: string }> {
  const token = await queryClient.fetchQuery({
    queryKey: ['data-api-token', deploymentId],
    queryFn: () => issueToken(client, deploymentId),
    staleTime: tokenStaleAfter,
  });
  return {
    api: createDataApi({ baseUrl: window.location.origin, deploymentId, token, retry: false }),
    token,
  };
}

async function issueToken(client: Client, deploymentId: number): Promise<string> {
  const answer = unwrap(
    await client.POST('/api/v1/deployments/{deploymentId}/token', {
      params: { path: { deploymentId } },
      body: { expiresIn: tokenLifetime },
    }),
  );
  return answer.serviceApiToken;
}
