import type { Static } from 'typebox';
import { hasRole, type Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { randomToken, type SecretBox } from '../../crypto/secrets.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import { BRANCH_TOKEN_MAX_SECONDS, MAIN_BRANCH, TESSERA_CLAIMS } from '../data/branch.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { UserAttributesService } from '../user-attributes/service.ts';
import type { DeploymentRecords, ModelBranches } from './ports.ts';
import type { CreateDeploymentTokenBody } from './schemas.ts';
import { refuseReservedClaims, signDataToken } from './sign.ts';

export interface TokensServiceDeps {
  deployments: DeploymentsService;
  repository: DeploymentRecords;
  secrets: SecretBox;
  bus: InvalidationBus;
  /** The deployment's model branches: a branch token names one that exists. */
  modelFiles: ModelBranches;
  /** The minting user's attributes (issue 22 item 3), carried at `serviceCloud.userAttributes`. */
  userAttributes: Pick<UserAttributesService, 'attributesOf'>;
  /** Issue 22 item 5: a rotation is recorded (that it happened, never the secret). */
  audit: Pick<AuditLog, 'record'>;
}

/**
 * Data-API tokens (reference: `POST /api/v1/deployments/{deploymentId}/token`): HS256 JWTs
 * signed with the deployment's API secret, whose payload is the security context. Rotating the
 * secret invalidates every token issued before. A token for a model branch other than main carries
 * the signed `tessera.branch` claim (data/branch.ts): minted only for developers and admins (who
 * may already push any model and mint any security context, so it grants them nothing new), only
 * for an existing branch, and for at most BRANCH_TOKEN_MAX_SECONDS.
 */
export class TokensService {
  constructor(private readonly deps: TokensServiceDeps) {}

  async issue(principal: Principal, deploymentId: number, input: Static<typeof CreateDeploymentTokenBody>) {
    const row = await this.deps.deployments.require(principal.tenantId, deploymentId);
    const context = (input.securityContext ?? {}) as Record<string, unknown>;
    refuseReservedClaims(context, 'body/securityContext');
    const branch = input.branch === MAIN_BRANCH ? undefined : input.branch;
    if (branch !== undefined) await this.checkBranch(principal, deploymentId, branch, input.expiresIn);
    const withAttributes = await this.withUserAttributes(principal, context);
    const claims =
      branch === undefined ? withAttributes : { ...withAttributes, [TESSERA_CLAIMS]: { branch } };
    const lifetime = input.expiresIn ?? (branch === undefined ? 86_400 : BRANCH_TOKEN_MAX_SECONDS);
    const secret = this.deps.secrets.open(row.api_secret_enc);
    const serviceApiToken = await signDataToken(secret, claims, lifetime);
    return { serviceApiToken };
  }

  /**
   * Issue 22 item 3: a token minted by an account user carries their user attributes (their own
   * values, else the defaults) at `serviceCloud.userAttributes`, as their dashboards and chats do.
   * Attributes the caller names in `securityContext.serviceCloud.userAttributes` win: only
   * developers and admins mint tokens, and they may mint any security context anyway.
   */
  private async withUserAttributes(
    principal: Principal,
    context: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (principal.userId <= 0) return context;
    const stored = await this.deps.userAttributes.attributesOf(principal.tenantId, principal.userId);
    if (Object.keys(stored).length === 0) return context;
    const serviceCloud = context.serviceCloud ?? {};
    if (!isPlainObject(serviceCloud)) return context;
    const given = serviceCloud.userAttributes ?? {};
    if (!isPlainObject(given)) return context;
    return { ...context, serviceCloud: { ...serviceCloud, userAttributes: { ...stored, ...given } } };
  }

  private async checkBranch(
    principal: Principal,
    deploymentId: number,
    branch: string,
    expiresIn: number | null | undefined,
  ) {
    // The route already asks for the developer role; a branch stays a developer's even if it changes.
    if (!hasRole(principal, 'developer'))
      throw new ForbiddenError('Only developers and admins may mint a branch token', 'insufficient_role');
    if (expiresIn != null && expiresIn > BRANCH_TOKEN_MAX_SECONDS) {
      throw new ValidationError('A branch token is short-lived', [
        {
          field: 'body/expiresIn',
          message: `must be at most ${BRANCH_TOKEN_MAX_SECONDS} for a branch token`,
        },
      ]);
    }
    if (!(await this.deps.modelFiles.branches(deploymentId)).includes(branch)) {
      throw new ValidationError(`Branch ${branch} does not exist on deployment ${deploymentId}`, [
        { field: 'body/branch', message: 'is not a branch of this deployment' },
      ]);
    }
  }

  async rotateSecret(principal: Principal, deploymentId: number) {
    const updated = await this.deps.repository.transaction(async (trx) => {
      const row = await this.deps.repository.update(
        principal.tenantId,
        deploymentId,
        { apiSecretEnc: this.deps.secrets.seal(randomToken(32)) },
        trx,
      );
      if (row)
        await this.deps.audit.record(trx, principal, {
          action: 'deployment.rotate_api_secret',
          targetType: 'deployment',
          targetId: deploymentId,
        });
      return row;
    });
    if (!updated) throw new NotFoundError(`Deployment ${deploymentId}`, 'deployment_not_found');
    // Cached deployment rows hold the old secret: drop them here and, via the store, everywhere.
    this.deps.bus.publish('deployments');
    return { success: true };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
