import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sessionCookieName } from '../../../auth/session-cookie.ts';
import type { OidcSignInService } from './service.ts';

const tags = ['Session'];
export const oidcSignInPath = '/api/v1/session/oidc';
const callbackPath = `${oidcSignInPath}/callback`;

export interface OidcSignInRoutesOptions {
  /** null: no provider configured (TESSERA_OIDC_ISSUER unset). */
  oidc: OidcSignInService | null;
  secureCookie: boolean;
  /** TESSERA_PUBLIC_URL: the origin the provider sends browsers back to; else the request's own. */
  publicUrl: string | null;
}

const ProvidersAnswer = Type.Object({
  oidc: Type.Union([Type.Object({ name: Type.String(), signInUrl: Type.String() }), Type.Null()]),
});

/** Sign-in with an external OpenID provider for the web app (issue 22 item 7). */
export const oidcSignInRoutes: FastifyPluginAsyncTypebox<OidcSignInRoutesOptions> = async (
  app,
  { oidc, secureCookie, publicUrl },
) => {
  const origin = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;
  const cookieOptions: CookieSerializeOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookie,
  };

  app.get(
    '/api/v1/session/providers',
    {
      schema: {
        tags,
        operationId: 'listSignInProviders',
        summary: 'How users can sign in besides a password',
        security: [],
        response: { 200: ProvidersAnswer },
      },
      config: { access: { public: true } },
    },
    () => ({ oidc: oidc ? { name: oidc.displayName, signInUrl: oidcSignInPath } : null }),
  );

  app.get(
    oidcSignInPath,
    {
      schema: {
        tags,
        operationId: 'startOidcSignIn',
        summary: 'Sign in with the OpenID provider (browser only): redirects to it',
        description:
          'Redirects to `/sign-in?error=oidc_not_configured` when no provider is configured (TESSERA_OIDC_ISSUER).',
        security: [],
        response: { 302: Type.Null() },
        // A browser's redirect, no API call: left out of the OpenAPI document and the typed client.
        hide: true,
      },
      config: { access: { public: true } },
    },
    async (request, reply) => {
      if (!oidc) return reply.redirect('/sign-in?error=oidc_not_configured', 302);
      // A provider that cannot be reached is said so on the sign-in page, not as a bare 500.
      const target = await oidc
        .start(request.headers.host, `${origin(request)}${callbackPath}`)
        .catch((error) => {
          request.log.warn({ err: error }, 'OpenID provider discovery failed');
          return '/sign-in?error=provider_unreachable';
        });
      return reply.redirect(target, 302);
    },
  );

  app.get(
    callbackPath,
    {
      schema: {
        tags,
        operationId: 'finishOidcSignIn',
        summary: "The OpenID provider's redirect back (browser only)",
        description:
          'Sets the session cookie and redirects to `/`; on failure, redirects to `/sign-in?error={reason}`.',
        security: [],
        querystring: Type.Object({
          state: Type.Optional(Type.String({ maxLength: 512 })),
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          error: Type.Optional(Type.String({ maxLength: 200 })),
          error_description: Type.Optional(Type.String({ maxLength: 2000 })),
          error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
          iss: Type.Optional(Type.String({ maxLength: 2048 })),
          session_state: Type.Optional(Type.String({ maxLength: 2048 })),
          scope: Type.Optional(Type.String({ maxLength: 4096 })),
        }),
        response: { 302: Type.Null() },
        // A browser's redirect, no API call: left out of the OpenAPI document and the typed client.
        hide: true,
      },
      config: { access: { public: true } },
    },
    async (request, reply) => {
      if (!oidc) return reply.redirect('/sign-in?error=oidc_not_configured', 302);
      const url = new URL(`${origin(request)}${callbackPath}`);
      for (const [name, value] of Object.entries(request.query))
        if (typeof value === 'string') url.searchParams.set(name, value);
      const outcome = await oidc.finish(request.headers.host, url);
      if ('error' in outcome)
        return reply.redirect(`/sign-in?error=${encodeURIComponent(outcome.error)}`, 302);
      reply.setCookie(sessionCookieName, outcome.sessionId, { ...cookieOptions, expires: outcome.expiresAt });
      return reply.redirect('/', 302);
    },
  );
};
