import type { Static } from 'typebox';
import type { Principal } from '../../../auth/principal.ts';
import type { Db } from '../../../db/database.ts';
import type { OidcTokenConfigRow } from '../../../db/schema.ts';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../../errors/domain-errors.ts';
import type { DeploymentsService } from '../../deployments/service.ts';
import type { SigningKeys } from './keys.ts';
import { signingAlg } from './keys.ts';
import type { OidcIssuerRepository, TokenConfigValues } from './repository.ts';
import type { CreateOidcTokenConfigInput, OidcTokenConfig, UpdateOidcTokenConfigInput } from './schemas.ts';

export type TokenConfigView = Static<typeof OidcTokenConfig>;

/** Deployment tokens are short-lived: a warehouse trusts them instead of a stored password. */
const tokenLifetimeMs = 15 * 60_000;
const defaultSubFormat = 'deployment:{deployment_id}';
const reservedClaims = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'tenant']);

export interface IssuerDeps {
  repository: OidcIssuerRepository;
  keys: SigningKeys;
  deployments: DeploymentsService;
  /** The issuer identifier: this server's public URL. */
  issuer: () => string;
  /** The region a deployment's tokens name (`{region}`). */
  region: string;
}

/**
 * Tessera as an OpenID issuer for its deployments (reference group OIDC Token Configs; issue 22
 * item 7): a config says what a deployment's token carries (audience, subject, custom claims) and
 * which env variable receives it; tokens are ES256 JWTs verifiable with the published JWKS
 * (`/.well-known/openid-configuration`), so a warehouse can trust them instead of a password.
 */
export class OidcIssuerService {
  /** Tokens handed to data sources, reused until 5 minutes before they expire (a new one opens a new pool). */
  private readonly issued = new Map<string, { token: string; renewAt: number }>();

  constructor(private readonly deps: IssuerDeps) {}

  /**
   * A deployment's issued variables: for each enabled config with a `targetEnvVar`, a token of the
   * deployment under it (what `${NAME}` in its data source settings reads, beside its env variables).
   */
  /** The names of the deployment's issued variables, read through `db` (a caller's transaction). */
  async variableNamesFor(deploymentId: number, db?: Db): Promise<string[]> {
    return (await this.deps.repository.forDeployment(deploymentId, db)).map(
      (c) => c.target_env_var as string,
    );
  }

  async variablesFor(deploymentId: number): Promise<ReadonlyMap<string, string>> {
    const values = new Map<string, string>();
    for (const config of await this.deps.repository.forDeployment(deploymentId)) {
      const key = `${config.id}:${config.updated_at.getTime()}:${deploymentId}`;
      let held = this.issued.get(key);
      if (!held || held.renewAt <= Date.now()) {
        const { token, expiresAt } = await this.signFor(config, config.tenant_id, deploymentId);
        held = { token, renewAt: expiresAt.getTime() - 5 * 60_000 };
        if (this.issued.size >= 10_000) this.issued.clear();
        this.issued.set(key, held);
      }
      values.set(config.target_env_var as string, held.token);
    }
    return values;
  }

  async list(principal: Principal): Promise<TokenConfigView[]> {
    return (await this.deps.repository.list(principal.tenantId)).map((r) => this.view(r));
  }

  async get(principal: Principal, id: number): Promise<TokenConfigView> {
    return this.view(await this.require(principal.tenantId, id));
  }

  async create(
    principal: Principal,
    input: Static<typeof CreateOidcTokenConfigInput>,
  ): Promise<TokenConfigView> {
    const values = this.checked({
      name: input.name ?? `oidc-${Date.now().toString(36)}`,
      audienceType: input.audienceType,
      customAudience: input.customAudience ?? null,
      subFormat: input.subFormat ?? null,
      customClaims: input.customClaims ?? null,
      targetEnvVar: input.targetEnvVar ?? null,
      isEnabled: input.isEnabled ?? true,
    });
    return this.view(await this.unique(() => this.deps.repository.insert(principal.tenantId, values)));
  }

  async update(
    principal: Principal,
    id: number,
    input: Static<typeof UpdateOidcTokenConfigInput>,
  ): Promise<TokenConfigView> {
    const row = await this.require(principal.tenantId, id);
    const values = this.checked({
      name: input.name ?? row.name,
      audienceType: input.audienceType ?? row.audience_type,
      customAudience: input.customAudience !== undefined ? input.customAudience : row.custom_audience,
      subFormat: input.subFormat !== undefined ? input.subFormat : row.sub_format,
      customClaims: input.customClaims !== undefined ? input.customClaims : row.custom_claims,
      targetEnvVar: input.targetEnvVar !== undefined ? input.targetEnvVar : row.target_env_var,
      isEnabled: input.isEnabled ?? row.is_enabled,
    });
    const updated = await this.unique(() => this.deps.repository.update(principal.tenantId, id, values));
    if (!updated) throw new NotFoundError(`OIDC token config ${id}`, 'oidc_token_config_not_found');
    return this.view(updated);
  }

  async delete(principal: Principal, id: number): Promise<{ id: number; deleted: true }> {
    if (!(await this.deps.repository.delete(principal.tenantId, id)))
      throw new NotFoundError(`OIDC token config ${id}`, 'oidc_token_config_not_found');
    return { id, deleted: true };
  }

  /** A deployment's token under a config: what its `targetEnvVar` carries to the data source. */
  async mint(
    principal: Principal,
    id: number,
    deploymentId: number,
  ): Promise<{ token: string; expiresAt: string }> {
    const config = await this.require(principal.tenantId, id);
    if (!config.is_enabled) throw new DomainError('conflict', `OIDC token config ${id} is disabled`);
    await this.deps.deployments.require(principal.tenantId, deploymentId);
    const { token, expiresAt } = await this.signFor(config, principal.tenantId, deploymentId);
    return { token, expiresAt: expiresAt.toISOString() };
  }

  private async signFor(config: OidcTokenConfigRow, tenantId: number, deploymentId: number) {
    // Whole seconds: the token's `exp` and the answer's `expiresAt` say the same instant.
    const expiresAt = new Date(Math.floor((Date.now() + tokenLifetimeMs) / 1000) * 1000);
    const sub = (config.sub_format ?? defaultSubFormat)
      .replaceAll('{deployment_id}', String(deploymentId))
      .replaceAll('{component}', 'data-api')
      .replaceAll('{region}', this.deps.region);
    const custom = Object.fromEntries(
      Object.entries(config.custom_claims ?? {}).filter(([name]) => !reservedClaims.has(name)),
    );
    const token = await this.deps.keys.sign(
      { ...custom, iss: this.deps.issuer(), sub, aud: this.audience(config), tenant: tenantId },
      expiresAt,
    );
    return { token, expiresAt };
  }

  /** OIDC Discovery 1.0 section 3, for an issuer that signs tokens but runs no user sign-in. */
  discovery() {
    const issuer = this.deps.issuer();
    return {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [signingAlg],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'tenant'],
    };
  }

  jwks() {
    return this.deps.keys.jwks();
  }

  /** A new signing key now; the current one stays published for the overlap. */
  rotateKeys(): Promise<void> {
    return this.deps.keys.rotate();
  }

  private audience(row: Pick<OidcTokenConfigRow, 'audience_type' | 'custom_audience'>): string {
    return row.audience_type === 'custom' && row.custom_audience ? row.custom_audience : this.deps.issuer();
  }

  private checked(values: TokenConfigValues): TokenConfigValues {
    if (values.audienceType === 'custom' && !values.customAudience)
      throw new ValidationError('A custom audience needs its value', [
        { field: 'body/customAudience', message: 'is required when audienceType is custom' },
      ]);
    return values;
  }

  private async unique<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === '23505')
        throw new ConflictError('An OIDC token config of this name exists', 'oidc_token_config_exists');
      throw error;
    }
  }

  private async require(tenantId: number, id: number): Promise<OidcTokenConfigRow> {
    const row = await this.deps.repository.find(tenantId, id);
    if (!row) throw new NotFoundError(`OIDC token config ${id}`, 'oidc_token_config_not_found');
    return row;
  }

  private view(row: OidcTokenConfigRow): TokenConfigView {
    return {
      id: row.id,
      name: row.name,
      audienceType: row.audience_type,
      audience: this.audience(row),
      subFormat: row.sub_format,
      customClaims: row.custom_claims,
      targetEnvVar: row.target_env_var,
      isEnabled: row.is_enabled,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }
}
