import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { OidcTokenConfigRow } from '../../../db/schema.ts';

export interface TokenConfigValues {
  name: string;
  audienceType: string;
  customAudience: string | null;
  subFormat: string | null;
  customClaims: Record<string, unknown> | null;
  targetEnvVar: string | null;
  isEnabled: boolean;
}

/** `oidc_token_configs` and `oidc_signing_keys` (migration 0025); no rules. */
export class OidcIssuerRepository {
  constructor(private readonly db: Db) {}

  list(tenantId: number): Promise<OidcTokenConfigRow[]> {
    return this.db
      .selectFrom('oidc_token_configs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
  }

  find(tenantId: number, id: number): Promise<OidcTokenConfigRow | undefined> {
    return this.db
      .selectFrom('oidc_token_configs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  insert(tenantId: number, v: TokenConfigValues): Promise<OidcTokenConfigRow> {
    return this.db
      .insertInto('oidc_token_configs')
      .values({
        tenant_id: tenantId,
        name: v.name,
        audience_type: v.audienceType,
        custom_audience: v.customAudience,
        sub_format: v.subFormat,
        custom_claims: (v.customClaims === null ? null : JSON.stringify(v.customClaims)) as string,
        target_env_var: v.targetEnvVar,
        is_enabled: v.isEnabled,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  update(tenantId: number, id: number, v: TokenConfigValues): Promise<OidcTokenConfigRow | undefined> {
    return this.db
      .updateTable('oidc_token_configs')
      .set({
        name: v.name,
        audience_type: v.audienceType,
        custom_audience: v.customAudience,
        sub_format: v.subFormat,
        custom_claims: (v.customClaims === null ? null : JSON.stringify(v.customClaims)) as string,
        target_env_var: v.targetEnvVar,
        is_enabled: v.isEnabled,
        updated_at: sql<Date>`now()`,
      })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  async delete(tenantId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('oidc_token_configs')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** The enabled configs with a target env variable, of the tenant that owns the deployment. */
  forDeployment(deploymentId: number, db: Db = this.db) {
    return db
      .selectFrom('oidc_token_configs as c')
      .innerJoin('deployments as d', 'd.tenant_id', 'c.tenant_id')
      .selectAll('c')
      .where('d.id', '=', deploymentId)
      .where('c.is_enabled', '=', true)
      .where('c.target_env_var', 'is not', null)
      .orderBy('c.id')
      .execute();
  }

  /** Keys still published: not past the end of their overlap. */
  liveKeys() {
    return this.db
      .selectFrom('oidc_signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .orderBy('created_at', 'desc')
      .execute();
  }

  /** Adds a key and retires every other active one, which stays published until `retiredExpireAt`. */
  async rotate(key: { kid: string; publicJwk: object; privateJwkEnc: string }, retiredExpireAt: Date) {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('oidc_signing_keys')
        .set({ retired_at: sql<Date>`now()`, expires_at: retiredExpireAt })
        .where('retired_at', 'is', null)
        .execute();
      await trx
        .insertInto('oidc_signing_keys')
        .values({
          kid: key.kid,
          public_jwk: JSON.stringify(key.publicJwk),
          private_jwk_enc: key.privateJwkEnc,
        })
        .execute();
    });
  }
}
