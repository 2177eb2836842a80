import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import type { OAuthIntegrationsService } from './integrations-service.ts';
import {
  CallbackQuery,
  CreateOAuthIntegrationInput,
  DeletedAnswer,
  InitiateAnswer,
  IntegrationIdParams,
  OAuthIntegration,
  RevokeAnswer,
  UpdateOAuthIntegrationInput,
  UserOAuthToken,
  UserTokenParams,
} from './schemas.ts';
import type { UserOAuthTokensService } from './tokens-service.ts';

/** Where the provider sends the browser back: the path an integration's `redirectUri` names. */
export const oauthCallbackPath = '/api/v1/oauth/callback';
/** The web app's page for a user's connections, where the callback sends the browser. */
const connectedAccountsPage = '/settings/connected-accounts';

export interface OAuthRoutesOptions {
  integrations: OAuthIntegrationsService;
  tokens: UserOAuthTokensService;
}

/** Reference groups OAuth Integrations and User OAuth Tokens (spec 4.1; issue 22 item 6). */
export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (
  app,
  { integrations, tokens },
) => {
  const integrationTags = ['OAuth Integrations'];
  const tokenTags = ['User OAuth Tokens'];

  // Every user reads the integrations, to connect their accounts; only admins change them.
  app.get(
    '/api/v1/oauth-integrations',
    {
      schema: {
        tags: integrationTags,
        operationId: 'listOAuthIntegrations',
        summary: 'List OAuth integrations',
        response: { 200: Type.Array(OAuthIntegration) },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => integrations.list(principalOf(r)),
  );
  app.post(
    '/api/v1/oauth-integrations',
    {
      schema: {
        tags: integrationTags,
        operationId: 'createOAuthIntegration',
        summary: 'Create OAuth integration (admin); the client secret is sealed and never returned',
        body: CreateOAuthIntegrationInput,
        response: { 200: OAuthIntegration },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => integrations.create(principalOf(r), r.body),
  );
  app.get(
    '/api/v1/oauth-integrations/:id',
    {
      schema: {
        tags: integrationTags,
        operationId: 'getOAuthIntegration',
        summary: 'Get OAuth integration',
        params: IntegrationIdParams,
        response: { 200: OAuthIntegration },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => integrations.get(principalOf(r), r.params.id),
  );
  app.put(
    '/api/v1/oauth-integrations/:id',
    {
      schema: {
        tags: integrationTags,
        operationId: 'updateOAuthIntegration',
        summary: 'Update OAuth integration (admin); a null or absent clientSecret keeps the stored one',
        params: IntegrationIdParams,
        body: UpdateOAuthIntegrationInput,
        response: { 200: OAuthIntegration },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => integrations.update(principalOf(r), r.params.id, r.body),
  );
  app.delete(
    '/api/v1/oauth-integrations/:id',
    {
      schema: {
        tags: integrationTags,
        operationId: 'deleteOAuthIntegration',
        summary: "Delete OAuth integration (admin), with every user's tokens of it",
        params: IntegrationIdParams,
        response: { 200: DeletedAnswer },
      },
      config: { access: { role: 'admin' } },
    },
    (r) => integrations.delete(principalOf(r), r.params.id),
  );

  app.get(
    '/api/v1/user-oauth-tokens',
    {
      schema: {
        tags: tokenTags,
        operationId: 'listUserOAuthTokens',
        summary: "List the caller's OAuth connections (never the tokens)",
        response: { 200: Type.Array(UserOAuthToken) },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => tokens.list(principalOf(r)),
  );
  app.get(
    '/api/v1/user-oauth-tokens/:integrationId',
    {
      schema: {
        tags: tokenTags,
        operationId: 'getUserOAuthToken',
        summary: "Get the caller's OAuth connection of an integration",
        params: UserTokenParams,
        response: { 200: UserOAuthToken },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => tokens.get(principalOf(r), r.params.integrationId),
  );
  app.delete(
    '/api/v1/user-oauth-tokens/:integrationId',
    {
      schema: {
        tags: tokenTags,
        operationId: 'revokeUserOAuthToken',
        summary: "Revoke the caller's OAuth token (spec 4.1)",
        description:
          "Ends the caller's connection to the integration; when the integration has a `config.revocationUrl`, " +
          'the refresh and access tokens are revoked there first (RFC 7009). `providerRevoked` says whether the ' +
          'provider confirmed. 404 `oauth_token_not_found` when the caller has no connection.',
        params: UserTokenParams,
        response: { 200: RevokeAnswer },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => tokens.revoke(principalOf(r), r.params.integrationId, r.log),
  );
  app.post(
    '/api/v1/user-oauth-tokens/:integrationId/initiate',
    {
      schema: {
        tags: tokenTags,
        operationId: 'initiateOAuthFlow',
        summary: 'Initiate OAuth flow',
        description:
          "Starts the authorization-code flow with PKCE (RFC 7636) for the caller: send the browser to `authorizationUrl`. The provider returns it to the integration's redirect URI (`" +
          oauthCallbackPath +
          '`), which stores the tokens and sends the browser to the connected-accounts page.',
        params: UserTokenParams,
        response: { 200: InitiateAnswer },
      },
      config: { access: { role: 'viewer' } },
    },
    (r) => tokens.initiate(principalOf(r), r.params.integrationId),
  );

  app.get(
    oauthCallbackPath,
    {
      schema: {
        tags: tokenTags,
        operationId: 'oauthCallback',
        summary: "The OAuth provider's redirect back (browser only)",
        description:
          'Exchanges the code of the flow that `state` names (once, within 10 minutes) and stores the tokens, then ' +
          `redirects to \`${connectedAccountsPage}?connected={integrationId}\`, or \`?error={reason}\`.`,
        security: [],
        querystring: CallbackQuery,
        response: { 302: Type.Null() },
        // A browser's redirect, no API call: left out of the OpenAPI document and the typed client.
        hide: true,
      },
      config: { access: { public: true } },
    },
    async (request, reply) => {
      const outcome = await tokens.complete(request.query, request.log);
      const target =
        'connected' in outcome
          ? `${connectedAccountsPage}?connected=${outcome.connected}`
          : `${connectedAccountsPage}?error=${encodeURIComponent(outcome.error)}`;
      return reply.redirect(target, 302);
    },
  );
};
