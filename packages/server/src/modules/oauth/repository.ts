import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { OAuthIntegrationRow, UserOAuthTokenRow, UserOAuthTokenStatus } from '../../db/schema.ts';

export interface IntegrationValues {
  name: string;
  type: string;
  authUrl: string;
  tokenUrl: string;
  clientId: string;
  /** Sealed; undefined keeps the stored one (update). */
  clientSecretEnc?: string;
  redirectUri: string;
  scopes: string[] | null;
  config: Record<string, unknown> | null;
}

export interface TokenValues {
  status: UserOAuthTokenStatus;
  accessTokenEnc: string | null;
  refreshTokenEnc: string | null;
  accessTokenExpiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  lastError: string | null;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** `oauth_integrations`, `user_oauth_tokens` and `oauth_flows` (migration 0024); no rules. */
export class OAuthRepository {
  constructor(private readonly db: Db) {}

  listIntegrations(tenantId: number): Promise<OAuthIntegrationRow[]> {
    return this.db
      .selectFrom('oauth_integrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
  }

  findIntegration(tenantId: number, id: number): Promise<OAuthIntegrationRow | undefined> {
    return this.db
      .selectFrom('oauth_integrations')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** By id alone: an authorization callback names its integration through the flow it finishes. */
  findIntegrationById(id: number): Promise<OAuthIntegrationRow | undefined> {
    return this.db.selectFrom('oauth_integrations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insertIntegration(tenantId: number, v: IntegrationValues & { clientSecretEnc: string }) {
    return this.db
      .insertInto('oauth_integrations')
      .values({
        tenant_id: tenantId,
        name: v.name,
        type: v.type,
        auth_url: v.authUrl,
        token_url: v.tokenUrl,
        client_id: v.clientId,
        client_secret_enc: v.clientSecretEnc,
        redirect_uri: v.redirectUri,
        scopes: json(v.scopes) as string,
        config: json(v.config) as string,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  updateIntegration(tenantId: number, id: number, v: IntegrationValues) {
    return this.db
      .updateTable('oauth_integrations')
      .set({
        name: v.name,
        type: v.type,
        auth_url: v.authUrl,
        token_url: v.tokenUrl,
        client_id: v.clientId,
        ...(v.clientSecretEnc === undefined ? {} : { client_secret_enc: v.clientSecretEnc }),
        redirect_uri: v.redirectUri,
        scopes: json(v.scopes) as string,
        config: json(v.config) as string,
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteIntegration(tenantId: number, id: number): Promise<boolean> {
    const result = await this.db
      .deleteFrom('oauth_integrations')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The user's tokens of integrations of the tenant. */
  listTokens(tenantId: number, userId: number): Promise<UserOAuthTokenRow[]> {
    return this.db
      .selectFrom('user_oauth_tokens as t')
      .innerJoin('oauth_integrations as i', 'i.id', 't.integration_id')
      .selectAll('t')
      .where('i.tenant_id', '=', tenantId)
      .where('t.user_id', '=', userId)
      .orderBy('t.integration_id')
      .execute();
  }

  findToken(tenantId: number, userId: number, integrationId: number): Promise<UserOAuthTokenRow | undefined> {
    return this.db
      .selectFrom('user_oauth_tokens as t')
      .innerJoin('oauth_integrations as i', 'i.id', 't.integration_id')
      .selectAll('t')
      .where('i.tenant_id', '=', tenantId)
      .where('t.user_id', '=', userId)
      .where('t.integration_id', '=', integrationId)
      .executeTakeFirst();
  }

  /** One row per user and integration: connecting again replaces the tokens. */
  upsertToken(userId: number, integrationId: number, v: TokenValues): Promise<UserOAuthTokenRow> {
    const values = {
      status: v.status,
      access_token_enc: v.accessTokenEnc,
      refresh_token_enc: v.refreshTokenEnc,
      access_token_expires_at: v.accessTokenExpiresAt,
      refresh_token_expires_at: v.refreshTokenExpiresAt,
      last_error: v.lastError,
    };
    return this.db
      .insertInto('user_oauth_tokens')
      .values({ user_id: userId, integration_id: integrationId, ...values })
      .onConflict((oc) =>
        oc.columns(['user_id', 'integration_id']).doUpdateSet({ ...values, updated_at: sql<Date>`now()` }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Records a refresh's outcome. */
  async updateToken(id: number, v: Partial<TokenValues>): Promise<UserOAuthTokenRow | undefined> {
    return this.db
      .updateTable('user_oauth_tokens')
      .set({
        ...(v.status === undefined ? {} : { status: v.status }),
        ...(v.accessTokenEnc === undefined ? {} : { access_token_enc: v.accessTokenEnc }),
        ...(v.refreshTokenEnc === undefined ? {} : { refresh_token_enc: v.refreshTokenEnc }),
        ...(v.accessTokenExpiresAt === undefined ? {} : { access_token_expires_at: v.accessTokenExpiresAt }),
        ...(v.refreshTokenExpiresAt === undefined
          ? {}
          : { refresh_token_expires_at: v.refreshTokenExpiresAt }),
        ...(v.lastError === undefined ? {} : { last_error: v.lastError }),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteToken(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('user_oauth_tokens').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async insertFlow(flow: {
    stateHash: string;
    userId: number;
    integrationId: number;
    verifierEnc: string;
    expiresAt: Date;
  }): Promise<void> {
    // Flows nobody finished are dropped as new ones start.
    await this.db.deleteFrom('oauth_flows').where('expires_at', '<', sql<Date>`now()`).execute();
    await this.db
      .insertInto('oauth_flows')
      .values({
        state_hash: flow.stateHash,
        user_id: flow.userId,
        integration_id: flow.integrationId,
        verifier_enc: flow.verifierEnc,
        return_to: null,
        expires_at: flow.expiresAt,
      })
      .execute();
  }

  /** Removes and answers the flow: a state is good for one callback only. */
  takeFlow(stateHash: string) {
    return this.db
      .deleteFrom('oauth_flows')
      .where('state_hash', '=', stateHash)
      .returningAll()
      .executeTakeFirst();
  }
}
