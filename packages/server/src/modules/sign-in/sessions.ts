import { effectiveAccess } from '../../auth/roles.ts';
import type { SessionGrant, SessionVerifier } from '../../auth/session-cookie.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import { ReadCache } from '../../cache/read-cache.ts';
import { sha256 } from '../../crypto/secrets.ts';
import { UnauthorizedError } from '../../errors/domain-errors.ts';
import type { SessionLookup, SignInRepository } from './repository.ts';
import { csrfTokenMatches, isWellFormedSessionId } from './tokens.ts';

/** How long a browser session lives (config: TESSERA_SESSION_IDLE_MINUTES, TESSERA_SESSION_MAX_HOURS). */
export interface SessionLimits {
  idleMs: number;
  maxAgeMs: number;
}

/** Writing last_seen_at on every request would double the store's load; once a minute is enough. */
const touchIntervalMs = 60_000;

/**
 * The browser-session side of authentication (auth/session-cookie.ts): a cookie value to the live
 * session it names. Lookups are cached like API keys' and dropped on every credential change
 * (sign-out, deactivation, password change), which the store announces to every replica.
 */
export class BrowserSessions implements SessionVerifier {
  private readonly cache = new ReadCache<SessionLookup | undefined>(
    30_000,
    10_000,
    (found) => found !== undefined,
  );
  private readonly lastTouched = new Map<number, number>();

  constructor(
    private readonly repository: SignInRepository,
    bus: InvalidationBus,
    readonly limits: SessionLimits,
  ) {
    bus.subscribe('credentials', () => this.cache.clear());
  }

  async verify(tenantId: number, sessionId: string): Promise<SessionGrant> {
    if (!isWellFormedSessionId(sessionId))
      throw new UnauthorizedError('credential_malformed', 'The session cookie is malformed: sign in again');
    const hash = sha256(sessionId);
    const found = await this.cache.get(hash, () => this.repository.findSession(hash));
    if (!found || found.tenant_id !== tenantId || found.is_deactivated)
      throw new UnauthorizedError('credential_invalid', 'The session is not valid: sign in again');
    if (found.revoked_at !== null)
      throw new UnauthorizedError('credential_revoked', 'The session has ended: sign in again');
    const now = Date.now();
    // The cached row may predate this replica's last touch: the later of the two counts.
    const lastSeen = Math.max(found.last_seen_at.getTime(), this.lastTouched.get(found.id) ?? 0);
    if (found.expires_at.getTime() <= now || lastSeen + this.limits.idleMs <= now)
      throw new UnauthorizedError('credential_expired', 'The session has expired: sign in again');
    const { role, deploymentRoles } = effectiveAccess(found.role, found.held_roles);
    return { id: found.id, tenantId: found.tenant_id, userId: found.user_id, role, deploymentRoles };
  }

  csrfTokenMatches(sessionId: string, token: unknown): boolean {
    return csrfTokenMatches(sessionId, token);
  }

  touch(grant: SessionGrant): Promise<void> | undefined {
    const now = Date.now();
    if (now - (this.lastTouched.get(grant.id) ?? 0) <= touchIntervalMs) return undefined;
    if (this.lastTouched.size >= 100_000) this.lastTouched.clear();
    this.lastTouched.set(grant.id, now);
    return this.repository.touchSession(grant.id).then(() => undefined);
  }
}
