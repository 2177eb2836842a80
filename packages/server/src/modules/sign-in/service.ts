import type { Static } from 'typebox';
import type { Principal } from '../../auth/principal.ts';
import type { InvalidationBus } from '../../cache/invalidation-bus.ts';
import type { Db } from '../../db/database.ts';
import {
  DomainError,
  ForbiddenError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../errors/domain-errors.ts';
import type { AuditLog } from '../audit-log/service.ts';
import type { TenantResolver } from '../tenants/resolver.ts';
import { userView } from '../users/service.ts';
import type { AttemptLimiter } from './attempts.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { UserDirectory } from './ports.ts';
import type { SignInRepository } from './repository.ts';
import type { ChangePasswordBody, SessionAnswer, SetPasswordBody, SignInBody } from './schemas.ts';
import type { BrowserSessions } from './sessions.ts';
import { csrfTokenFor, newSessionId } from './tokens.ts';

export interface SignInDeps {
  db: Db;
  repository: SignInRepository;
  users: UserDirectory;
  sessions: BrowserSessions;
  tenants: TenantResolver;
  /** Failed sign-ins and password checks per email (or user) and client address. */
  attempts: AttemptLimiter;
  bus: InvalidationBus;
  /** Issue 22 item 5: a password set is recorded (that it was set, never the password). */
  audit: Pick<AuditLog, 'record'>;
}

export type SessionView = Static<typeof SessionAnswer>;

/** Who is calling and from where: what sign-in reads off the request. */
export interface Caller {
  host: string | undefined;
  ip: string;
}

/**
 * Browser sign-in (DESIGN.md "Web app and sessions"): a password opens a session whose id is set
 * as an HttpOnly cookie by the route and stored here only as its hash; the authentication hook
 * then accepts the cookie as the user's credential (modules/sign-in/sessions.ts).
 */
export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  /**
   * Unknown email, deactivated user, user without a password and wrong password are one answer,
   * after the same argon2 work (passwords.ts), so that neither it nor its timing says which
   * accounts exist. Refused while the email and address have failed too often.
   */
  async signIn(
    caller: Caller,
    input: Static<typeof SignInBody>,
  ): Promise<{ sessionId: string; expiresAt: Date; answer: SessionView }> {
    const tenant = await this.deps.tenants.resolve(caller.host);
    const email = input.email.trim();
    const user = await this.checkPassword(
      `sign-in:${tenant.id}:${email.toLowerCase()}:${caller.ip}`,
      async () => {
        const found = await this.deps.users.findByEmail(tenant.id, email);
        const usable = found !== undefined && !found.is_deactivated;
        const matches = await verifyPassword(usable ? found.password_hash : null, input.password);
        return usable && matches ? found : undefined;
      },
    );
    if (!user) throw new UnauthorizedError('sign_in_failed', 'The email or the password is not right');

    const { limits } = this.deps.sessions;
    const { id, hash } = newSessionId();
    const expiresAt = new Date(Date.now() + limits.maxAgeMs);
    await this.deps.db.transaction().execute(async (trx) => {
      await this.deps.repository.pruneDeadSessions(user.id, new Date(Date.now() - limits.idleMs), trx);
      await this.deps.repository.insertSession(
        { tenantId: tenant.id, userId: user.id, hash, expiresAt },
        trx,
      );
    });
    return { sessionId: id, expiresAt, answer: { user: userView(user), csrfToken: csrfTokenFor(id) } };
  }

  /** The caller's user; a fresh CSRF token when the caller is a browser session. */
  async current(principal: Principal, sessionId: string | undefined): Promise<SessionView> {
    const user = await this.deps.users.find(principal.tenantId, principal.userId);
    if (!user) throw new NotFoundError(`User ${principal.userId}`, 'user_not_found');
    const csrfToken =
      principal.credentialKind === 'session' && sessionId !== undefined ? csrfTokenFor(sessionId) : null;
    return { user: userView(user), csrfToken };
  }

  /**
   * Ends the session the cookie names, if it is still live (with its CSRF token: a page of
   * another site must not sign the user out); nothing to end is no error.
   */
  async signOut(caller: Caller, sessionId: string | undefined, csrfToken: unknown): Promise<void> {
    if (sessionId === undefined) return;
    const tenant = await this.deps.tenants.resolve(caller.host);
    const grant = await this.deps.sessions.verify(tenant.id, sessionId).catch((error) => {
      if (error instanceof UnauthorizedError) return undefined;
      throw error;
    });
    if (!grant) return;
    if (!this.deps.sessions.csrfTokenMatches(sessionId, csrfToken))
      throw new ForbiddenError(
        'Send the session CSRF token in the x-csrf-token header',
        'csrf_token_invalid',
      );
    await this.deps.repository.revokeSession(grant.id);
    this.deps.bus.publish('credentials');
  }

  /**
   * The caller's own password, given the current one (throttled like sign-in, per user and
   * address). Every other session of the user ends; the one making the change stays open.
   */
  async changePassword(principal: Principal, caller: Caller, input: Static<typeof ChangePasswordBody>) {
    const matches = await this.checkPassword(`password:${principal.userId}:${caller.ip}`, async () => {
      const stored = await this.deps.repository.passwordHash(principal.tenantId, principal.userId);
      return (await verifyPassword(stored, input.currentPassword)) ? true : undefined;
    });
    if (!matches)
      throw new ValidationError('The current password is not right', [
        { field: 'body/currentPassword', message: 'is not your current password' },
      ]);
    await this.replacePassword(principal, principal.userId, input.newPassword, 'user.change_password');
  }

  /** An admin sets a user's password; every session of that user ends (but the admin's own, if it is theirs). */
  async setPassword(principal: Principal, userId: number, input: Static<typeof SetPasswordBody>) {
    await this.replacePassword(principal, userId, input.password, 'user.set_password');
  }

  /**
   * The entry says who changed whose password (their own: `user.change_password`; an admin's
   * setting: `user.set_password`), and never holds the password or its hash.
   */
  private async replacePassword(
    principal: Principal,
    userId: number,
    password: string,
    action: 'user.change_password' | 'user.set_password',
  ) {
    const hash = await hashPassword(password);
    const keep =
      principal.credentialKind === 'session' && principal.userId === userId
        ? principal.credentialId
        : undefined;
    await this.deps.db.transaction().execute(async (trx) => {
      if (!(await this.deps.repository.setPasswordHash(principal.tenantId, userId, hash, trx)))
        throw new NotFoundError(`User ${userId}`, 'user_not_found');
      await this.deps.repository.revokeAllOfUser(userId, trx, keep);
      await this.deps.audit.record(trx, principal, {
        action,
        targetType: 'user',
        targetId: userId,
      });
    });
    this.deps.bus.publish('credentials');
  }

  /**
   * Runs a password check (its result, or undefined when the password did not match) under the
   * attempt limit of `key`; 429 while the key must wait.
   */
  private async checkPassword<T>(key: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    let result: T | undefined;
    const outcome = await this.deps.attempts.attempt(key, async () => {
      result = await check();
      return result !== undefined;
    });
    if ('retryAfterSeconds' in outcome)
      throw new DomainError(
        'sign_in_throttled',
        `Too many failed attempts; retry after ${outcome.retryAfterSeconds} seconds`,
        { retryAfterSeconds: outcome.retryAfterSeconds },
      );
    return result;
  }
}
