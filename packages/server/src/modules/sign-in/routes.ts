import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { csrfHeaderName, sessionCookieName } from '../../auth/session-cookie.ts';
import { UserIdParams } from '../users/schemas.ts';
import { sessionPath } from './constants.ts';
import { ChangePasswordBody, SessionAnswer, SetPasswordBody, SignInBody } from './schemas.ts';
import type { Caller, SignInService } from './service.ts';

const tags = ['Session'];
const NoContent = { 204: Type.Null() };

export interface SignInRoutesOptions {
  signIn: SignInService;
  /** Sets `Secure` on the cookie (production serves HTTPS only, spec section 8). */
  secureCookie: boolean;
}

const callerOf = (request: FastifyRequest): Caller => ({ host: request.headers.host, ip: request.ip });

/** The session cookie of a request that authenticates with it (no Authorization header). */
const cookieOf = (request: FastifyRequest): string | undefined =>
  request.headers.authorization === undefined ? request.cookies[sessionCookieName] : undefined;

/**
 * Browser sign-in (DESIGN.md "Web app and sessions"): the web app signs in, reads who is signed in
 * with a fresh CSRF token, and signs out; users change their password, admins set anyone's.
 */
export const signInRoutes: FastifyPluginAsyncTypebox<SignInRoutesOptions> = async (
  app,
  { signIn, secureCookie },
) => {
  const cookieOptions: CookieSerializeOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookie,
  };

  app.post(
    sessionPath,
    {
      schema: {
        tags,
        operationId: 'signIn',
        summary: 'Sign in with email and password',
        description:
          'Sets the HttpOnly session cookie `tessera_session` (SameSite=Lax, Path=/, Secure in production) and ' +
          'answers the user with a CSRF token for the `x-csrf-token` header of later writes. An unknown email, a ' +
          'wrong password and a deactivated user all answer 401 `sign_in_failed`. After 10 failed attempts for ' +
          'one email from one address within 15 minutes, 429 `sign_in_throttled` with Retry-After. The session ' +
          'ends after TESSERA_SESSION_IDLE_MINUTES without a request (default 12 hours) and ' +
          'TESSERA_SESSION_MAX_HOURS after sign-in (default 7 days).',
        security: [],
        body: SignInBody,
        response: { 200: SessionAnswer },
      },
      config: { access: { public: true } },
    },
    async (request, reply) => {
      const { sessionId, expiresAt, answer } = await signIn.signIn(callerOf(request), request.body);
      reply.setCookie(sessionCookieName, sessionId, { ...cookieOptions, expires: expiresAt });
      return answer;
    },
  );

  app.get(
    sessionPath,
    {
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'The signed-in user and a fresh CSRF token',
        description:
          'With the session cookie: its user and a new CSRF token (every token issued to the session stays valid). ' +
          '401 when the session is missing, ended or expired. With an Authorization header: its user, `csrfToken` null.',
        response: { 200: SessionAnswer },
      },
      config: { access: { role: 'viewer', scopedKeys: 'filter' } },
    },
    (request) => signIn.current(principalOf(request), cookieOf(request)),
  );

  app.delete(
    sessionPath,
    {
      schema: {
        tags,
        operationId: 'signOut',
        summary: 'Sign out',
        description:
          'Ends the session the cookie names (its CSRF token is required while it is live: 403 ' +
          '`csrf_token_invalid`) and clears the cookie. Without a live session there is nothing to end: 204 too. ' +
          'A request with an Authorization header leaves the cookie alone.',
        security: [{ cookieAuth: [] }, {}],
        response: NoContent,
      },
      config: { access: { public: true } },
    },
    async (request, reply) => {
      if (request.headers.authorization !== undefined) return reply.code(204).send(null);
      await signIn.signOut(callerOf(request), cookieOf(request), request.headers[csrfHeaderName]);
      reply.clearCookie(sessionCookieName, cookieOptions);
      return reply.code(204).send(null);
    },
  );

  app.put(
    `${sessionPath}/password`,
    {
      schema: {
        tags,
        operationId: 'changeOwnPassword',
        summary: "Change the caller's own password",
        description:
          'Needs the current password (400 naming `currentPassword` when it is not right; failed attempts are ' +
          'throttled like sign-in) and a new one of at least 12 characters. Every other session of the user ends.',
        body: ChangePasswordBody,
        response: NoContent,
      },
      config: { access: { role: 'viewer' } },
    },
    async (request, reply) => {
      await signIn.changePassword(principalOf(request), callerOf(request), request.body);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/api/v1/users/:id/password',
    {
      schema: {
        tags: ['Users Admin'],
        operationId: 'setUserPassword',
        summary: "Set a user's password",
        description:
          'Admins only. At least 12 characters. Every session of the user ends (the calling session stays when it ' +
          "is the user's own).",
        params: UserIdParams,
        body: SetPasswordBody,
        response: NoContent,
      },
      config: { access: { role: 'admin' } },
    },
    async (request, reply) => {
      await signIn.setPassword(principalOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );
};
