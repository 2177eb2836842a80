import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import { signDataToken } from '../tokens/sign.ts';
import type { UsageAnalyticsRepository } from './repository.ts';
import type { UsageAnalyticsTokenResponse } from './schemas.ts';
import { usageDeploymentId } from './source.ts';

/** The reference: "Tokens expire after 1 hour". */
export const usageTokenSeconds = 3600;

export interface UsageAnalyticsDeps {
  repository: UsageAnalyticsRepository;
  secrets: SecretBox;
  /** The server's public base URL, for `apiUrl`. */
  publicUrl: () => string;
}

/**
 * Usage Analytics tokens (reference `POST /api/v1/usage-analytics/token`; admins only, the route
 * says so): a data-API JWT signed with the tenant's usage secret, which no other deployment has,
 * so the token reads the built-in usage model (source.ts) of its own tenant and nothing else, and a
 * token of any other deployment never reads it. The secret is made on the first issue.
 */
export class UsageAnalyticsService {
  constructor(private readonly deps: UsageAnalyticsDeps) {}

  async issue(principal: Principal): Promise<Static<typeof UsageAnalyticsTokenResponse>> {
    const { repository, secrets } = this.deps;
    const sealed =
      (await repository.secret(principal.tenantId)) ??
      (await repository.secret(principal.tenantId, secrets.seal(randomToken())));
    if (sealed === undefined) throw new Error('usage secret missing after insert');
    const issuedAt = Math.floor(Date.now() / 1000);
    const claims = { usageAnalytics: { issuedBy: principal.userId } };
    const token = await signDataToken(secrets.open(sealed), claims, usageTokenSeconds, issuedAt);
    return {
      token,
      apiUrl: `${this.deps.publicUrl().replace(/\/+$/, '')}/data/${usageDeploymentId}/cubejs-api/v1`,
      deploymentId: usageDeploymentId,
      expiresAt: new Date((issuedAt + usageTokenSeconds) * 1000).toISOString(),
    };
  }
}
