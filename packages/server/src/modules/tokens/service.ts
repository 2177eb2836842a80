import { SignJWT } from 'jose';
import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { DeploymentsRepository } from '../deployments/repository.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { CreateDeploymentTokenBody } from './schemas.ts';

export interface TokensServiceDeps {
  deployments: DeploymentsService;
  repository: DeploymentsRepository;
  secrets: SecretBox;
  bus: InvalidationBus;
}

/** Registered claims the server sets itself; a caller's context may not override them. */
const reserved = ['exp', 'iat', 'nbf'];

/**
 * Data-API tokens (reference: `POST /api/v1/deployments/{deploymentId}/token`): HS256 JWTs
 * signed with the deployment's API secret, whose payload is the security context. Rotating the
 * secret invalidates every token issued before.
 */
export class TokensService {
  constructor(private readonly deps: TokensServiceDeps) {}

  async issue(principal: Principal, deploymentId: number, input: Static<typeof CreateDeploymentTokenBody>) {
    const row = await this.deps.deployments.require(principal.tenantId, deploymentId);
    const context = (input.securityContext ?? {}) as Record<string, unknown>;
    const clash = reserved.filter((k) => k in context);
    if (clash.length > 0) {
      throw new ValidationError(
        'The security context may not set registered claims',
        clash.map((k) => ({ field: `body/securityContext/${k}`, message: 'is set by the server' })),
      );
    }
    const secret = this.deps.secrets.open(row.api_secret_enc);
    const serviceApiToken = await new SignJWT(context)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${input.expiresIn ?? 86_400}s`)
      .sign(new TextEncoder().encode(secret));
    return { serviceApiToken };
  }

  async rotateSecret(principal: Principal, deploymentId: number) {
    const updated = await this.deps.repository.update(principal.tenantId, deploymentId, {
      apiSecretEnc: this.deps.secrets.seal(randomToken(32)),
    });
    if (!updated) throw new NotFoundError(`Deployment ${deploymentId}`, 'deployment_not_found');
    // Cached deployment rows hold the old secret: drop them here and, via the store, everywhere.
    this.deps.bus.publish('deployments');
    return { success: true };
  }
}
