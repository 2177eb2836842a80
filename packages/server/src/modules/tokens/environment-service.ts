import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import { type SecretBox, sha256 } from '../../crypto/secrets.ts';
import type { EnvironmentRow, EnvironmentTokenRow } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors/domain-errors.ts';
import { type PageQuery, pageWindow, toPage } from '../../pagination/page.ts';
import { BRANCH_TOKEN_MAX_SECONDS, MAIN_BRANCH, TESSERA_CLAIMS } from '../data/branch.ts';
import type { DeploymentsService } from '../deployments/service.ts';
import type { EnvironmentTokensRepository } from './environment-repository.ts';
import {
  type CreateEnvironmentTokenBody,
  type EnvironmentToken,
  scopeOperations,
} from './environment-schemas.ts';
import { refuseReservedClaims, signDataToken } from './sign.ts';

export interface EnvironmentTokensDeps {
  deployments: DeploymentsService;
  repository: EnvironmentTokensRepository;
  secrets: SecretBox;
}

/** How much of a token's signature a list shows: enough to tell tokens apart, nothing to use. */
const hintLength = 8;

type Input = Static<typeof CreateEnvironmentTokenBody>;

/**
 * The reference's Environments group tokens (issue 25 item 1): data-API tokens (tokens/service.ts
 * signs the same JWTs) bound to one environment, so that they read its model branch: a
 * development environment's token carries the signed `tessera.branch` claim (data/branch.ts),
 * production's reads main. `scopes` become a signed list of the data-API operations the token may
 * call; a meta-sync token (for tools that mirror the model's metadata) may call `/v1/meta` only.
 * Every token lives at most an hour, as branch tokens do, and is recorded by hash for the list.
 */
export class EnvironmentTokensService {
  constructor(private readonly deps: EnvironmentTokensDeps) {}

  async list(principal: Principal, deploymentId: number, environmentId: number, query: PageQuery) {
    const environment = await this.environment(principal, deploymentId, environmentId);
    const window = pageWindow(query, 1);
    const [rows, total] = await Promise.all([
      this.deps.repository.live(environmentId, window),
      this.deps.repository.countLive(environmentId),
    ]);
    const page = toPage(
      rows,
      window,
      (r) => [r.id],
      (r) => tokenView(environment, r, `…${r.token_hint}`),
    );
    return {
      ...page,
      data: page.items,
      pagination: { total, offset: window.mode === 'offset' ? window.offset : 0, limit: window.size },
    };
  }

  async issue(
    principal: Principal,
    deploymentId: number,
    environmentId: number,
    input: Input,
    purpose: 'api' | 'meta-sync',
  ) {
    const deployment = await this.deps.deployments.require(principal.tenantId, deploymentId);
    const environment = await this.environment(principal, deploymentId, environmentId);
    const context = input.security_context as Record<string, unknown>;
    refuseReservedClaims(context, 'body/security_context');
    const scopes = purpose === 'meta-sync' ? metaSyncScopes(input.scopes) : (input.scopes ?? null);
    const operations = scopes === null ? undefined : [...new Set(scopes.flatMap((s) => scopeOperations[s]))];
    const branch = environment.branch === MAIN_BRANCH ? undefined : environment.branch;
    const own = { ...(branch ? { branch } : {}), ...(operations ? { operations } : {}) };
    const claims = Object.keys(own).length > 0 ? { ...context, [TESSERA_CLAIMS]: own } : context;
    const lifetime = input.expires_in ?? BRANCH_TOKEN_MAX_SECONDS;
    const issuedAt = Math.floor(Date.now() / 1000);
    const token = await signDataToken(
      this.deps.secrets.open(deployment.api_secret_enc),
      claims,
      lifetime,
      issuedAt,
    );
    const row = await this.deps.repository.insert({
      environmentId,
      tokenHash: sha256(token),
      tokenHint: token.slice(-hintLength),
      securityContext: context,
      scopes,
      metaSync: purpose === 'meta-sync',
      createdBy: principal.userId > 0 ? principal.userId : null,
      expiresAt: new Date((issuedAt + lifetime) * 1000),
    });
    return { data: tokenView(environment, row, token) };
  }

  private async environment(principal: Principal, deploymentId: number, environmentId: number) {
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const environment = await this.deps.repository.environment(deploymentId, environmentId);
    if (!environment) throw new NotFoundError(`Environment ${environmentId}`, 'environment_not_found');
    return environment;
  }
}

/** A meta-sync token reads metadata only: `scopes`, if given, may name nothing else. */
function metaSyncScopes(scopes: Input['scopes']): ['meta'] {
  const others = (scopes ?? []).flatMap((s, i) => (s === 'meta' ? [] : [i]));
  if (others.length > 0)
    throw new ValidationError(
      'A meta-sync token reads metadata only',
      others.map((i) => ({ field: `body/scopes/${i}`, message: 'must be meta for a meta-sync token' })),
    );
  return ['meta'];
}

function tokenView(
  environment: EnvironmentRow,
  row: EnvironmentTokenRow,
  token: string,
): Static<typeof EnvironmentToken> {
  return {
    token,
    security_context: row.security_context,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    branch: environment.branch,
    scopes: row.scopes,
  };
}
