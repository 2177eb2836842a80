import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ConflictError, ValidationError } from '../../errors/domain-errors.ts';
import type { ViewerResolver } from '../dashboard-data/security-context.ts';
import { embedViewer, type Viewer } from '../dashboard-data/viewer.ts';
import { embedSecurityContext } from '../embed/session-rules.ts';
import type { EmbedIdentities } from '../embed-tenants/identities.ts';
import type { Lifetime } from '../embed-tenants/records.ts';
import type { ChatRepository, ThreadOwner } from './repository.ts';
import { EPHEMERAL_TTL_MAX_SECONDS, type SessionSettingsInput } from './request.ts';

/** Spec 5 rule 4 and spec 8: non-ephemeral external chat users per account. */
export const PERMANENT_CHAT_USERS_MAX = 10_000;

export interface ChatSession {
  owner: ThreadOwner;
  /** Whom the agent answers (issue 22 item 0): an account user, or an embed user and its context. */
  viewer: Viewer;
  /** What every query of the agent runs under (`serviceCloud.groups`, `serviceCloud.userAttributes`). */
  securityContext: Record<string, unknown>;
}

export interface SessionDeps {
  db: Db;
  repository: ChatRepository;
  /** External chat users are embed users, written only through modules/embed-tenants. */
  embedUsers: Pick<EmbedIdentities, 'upsertUser'>;
  viewers: ViewerResolver;
}

/**
 * The chat session of spec 4.6 `sessionSettings`: an internal user by login, with their own
 * groups and attributes; or an external user created or reused by `externalId`, kept as an
 * account-level embed user (embed_tenant_id null) so that the ephemeral-user sweeper
 * (modules/embed/sweeper.ts) removes them, and their threads with them, once their lifetime passes.
 */
export async function resolveSession(
  deps: SessionDeps,
  tenantId: number,
  settings: SessionSettingsInput,
  /** The agent's deployment, the one an external user's viewer reads. */
  deploymentId: number,
): Promise<ChatSession> {
  if (settings.internalId !== undefined) {
    const user = await deps.repository.findAccountUser(tenantId, settings.internalId.trim().toLowerCase());
    if (!user || user.is_deactivated)
      throw new ValidationError('sessionSettings.internalId is not an existing user of this account', [
        { field: 'body/sessionSettings/internalId', message: 'is not an existing user of this account' },
      ]);
    const viewer = await deps.viewers.user(tenantId, user.id);
    return { owner: { userId: user.id }, viewer, securityContext: viewer.securityContext };
  }
  const externalId = (settings.externalId as string).trim();
  const lifetime: Lifetime =
    settings.isEphemeral === false
      ? { kind: 'permanent' }
      : {
          kind:
            settings.isEphemeral === true || settings.ephemeralTtlSeconds !== undefined
              ? 'ephemeral'
              : 'keep',
          ttlSeconds: Math.min(
            settings.ephemeralTtlSeconds ?? EPHEMERAL_TTL_MAX_SECONDS,
            EPHEMERAL_TTL_MAX_SECONDS,
          ),
        };
  const user = await deps.db.transaction().execute(async (trx) => {
    if (lifetime.kind === 'permanent') {
      // One permanent user more at a time per account, so that the limit holds across replicas.
      await sql`select pg_advisory_xact_lock(9009, ${tenantId}::int)`.execute(trx);
      const existing = await deps.repository.findExternalUser(tenantId, externalId, trx);
      const alreadyPermanent = existing !== undefined && existing.expires_at === null;
      if (
        !alreadyPermanent &&
        (await deps.repository.permanentExternalUsers(tenantId, trx)) >= PERMANENT_CHAT_USERS_MAX
      )
        throw new ConflictError(
          `The account has ${PERMANENT_CHAT_USERS_MAX} non-ephemeral chat users, the limit; send isEphemeral: true or remove users`,
          'chat_user_limit',
        );
    }
    return deps.embedUsers.upsertUser(
      { tenantId, embedTenantId: null, externalId, email: settings.email, lifetime, signsIn: true },
      trx,
    );
  });
  const attributes = Object.fromEntries((settings.userAttributes ?? []).map((a) => [a.name, a.value]));
  const viewer = embedViewer(tenantId, {
    deploymentId,
    embedUserId: user.id,
    externalId: user.external_id,
    embedTenantId: null,
    embedTenantName: null,
    creatorMode: false,
    publicDashboardId: null,
    securityContext: embedSecurityContext({
      callerContext: settings.securityContext ?? {},
      groups: [...new Set(settings.groups ?? [])],
      tenantGroups: [],
      embedTenantName: null,
      userAttributes: attributes,
    }),
  });
  return { owner: { embedUserId: user.id }, viewer, securityContext: viewer.securityContext };
}

export function sameOwner(a: ThreadOwner, thread: { embed_user_id: number | null; user_id: number | null }) {
  return 'embedUserId' in a ? thread.embed_user_id === a.embedUserId : thread.user_id === a.userId;
}
