import type { QueryClient } from '@tanstack/react-query';
import { type Client, createDataApi, type DataApi, unwrap } from '@tessera/client';

/** A data-API token lives an hour; the pages ask for a new one well before it ends. */
const tokenLifetime = 3600;
const tokenStaleAfter = 30 * 60_000;

/**
 * The data API of a deployment (DESIGN.md "Addresses") as the signed-in user may call it: with a
 * data-API token from `POST /api/v1/deployments/{id}/token` (a developer's), kept in the query
 * cache for half an hour, so that the report page and the SQL editor share one token.
 */
export async function dataApiFor(
  queryClient: QueryClient,
  client: Client,
  deploymentId: number,
): Promise<DataApi> {
  const token = await queryClient.fetchQuery({
    queryKey: ['data-api-token', deploymentId],
    queryFn: () => issueToken(client, deploymentId),
    staleTime: tokenStaleAfter,
  });
  return createDataApi({ baseUrl: window.location.origin, deploymentId, token, retry: false });
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
