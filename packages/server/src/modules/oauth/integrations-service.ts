import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { SecretBox } from '../../crypto/secrets.ts';
import type { OAuthIntegrationRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors/domain-errors.ts';
import type { OAuthRepository } from './repository.ts';
import type {
  CreateOAuthIntegrationInput,
  OAuthIntegration,
  UpdateOAuthIntegrationInput,
} from './schemas.ts';

export type IntegrationView = Static<typeof OAuthIntegration>;

export function integrationView(row: OAuthIntegrationRow): IntegrationView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    authUrl: row.auth_url,
    tokenUrl: row.token_url,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    scopes: row.scopes,
    config: row.config,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * OAuth integrations (reference group OAuth Integrations, issue 22 item 6): an admin registers a
 * provider's endpoints and this server's client credentials with it; users then connect their own
 * accounts through it (tokens-service.ts). The client secret is sealed at rest and write-only.
 */
export class OAuthIntegrationsService {
  constructor(
    private readonly repository: OAuthRepository,
    private readonly secrets: SecretBox,
  ) {}

  async list(principal: Principal): Promise<IntegrationView[]> {
    return (await this.repository.listIntegrations(principal.tenantId)).map(integrationView);
  }

  async get(principal: Principal, id: number): Promise<IntegrationView> {
    return integrationView(await this.require(principal.tenantId, id));
  }

  async create(
    principal: Principal,
    input: Static<typeof CreateOAuthIntegrationInput>,
  ): Promise<IntegrationView> {
    const row = await this.repository.insertIntegration(principal.tenantId, {
      ...this.values(input),
      clientSecretEnc: this.secrets.seal(input.clientSecret),
    });
    return integrationView(row);
  }

  async update(
    principal: Principal,
    id: number,
    input: Static<typeof UpdateOAuthIntegrationInput>,
  ): Promise<IntegrationView> {
    const row = await this.repository.updateIntegration(principal.tenantId, id, {
      ...this.values(input),
      ...(input.clientSecret ? { clientSecretEnc: this.secrets.seal(input.clientSecret) } : {}),
    });
    if (!row) throw new NotFoundError(`OAuth integration ${id}`, 'oauth_integration_not_found');
    return integrationView(row);
  }

  /** Deleting an integration deletes every user's tokens of it (the store cascades). */
  async delete(principal: Principal, id: number): Promise<{ id: number; deleted: true }> {
    if (!(await this.repository.deleteIntegration(principal.tenantId, id)))
      throw new NotFoundError(`OAuth integration ${id}`, 'oauth_integration_not_found');
    return { id, deleted: true };
  }

  async require(tenantId: number, id: number): Promise<OAuthIntegrationRow> {
    const row = await this.repository.findIntegration(tenantId, id);
    if (!row) throw new NotFoundError(`OAuth integration ${id}`, 'oauth_integration_not_found');
    return row;
  }

  private values(input: Static<typeof UpdateOAuthIntegrationInput>) {
    return {
      name: input.name,
      type: input.type,
      authUrl: input.authUrl,
      tokenUrl: input.tokenUrl,
      clientId: input.clientId,
      redirectUri: input.redirectUri,
      scopes: input.scopes ?? null,
      config: input.config ?? null,
    };
  }
}
