import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../../auth/authenticate.ts';
import {
  CreateOidcTokenConfigInput,
  DeletedAnswer,
  MintedToken,
  MintTokenInput,
  OidcTokenConfig,
  OidcTokenConfigIdParams,
  UpdateOidcTokenConfigInput,
} from './schemas.ts';
import type { OidcIssuerService } from './service.ts';

const tags = ['OIDC Token Configs'];

/** Reference group OIDC Token Configs, and the issuer's public discovery document and keys. */
export const oidcIssuerRoutes: FastifyPluginAsyncTypebox<{ issuer: OidcIssuerService }> = async (
  app,
  { issuer },
) => {
  const admin = { access: { role: 'admin' as const } };

  app.get(
    '/api/v1/oidc-token-configs',
    {
      schema: {
        tags,
        operationId: 'listOidcTokenConfigs',
        summary: 'List OIDC token configs',
        response: { 200: Type.Array(OidcTokenConfig) },
      },
      config: admin,
    },
    (r) => issuer.list(principalOf(r)),
  );
  app.post(
    '/api/v1/oidc-token-configs',
    {
      schema: {
        tags,
        operationId: 'createOidcTokenConfig',
        summary: 'Create OIDC token config',
        body: CreateOidcTokenConfigInput,
        response: { 200: OidcTokenConfig },
      },
      config: admin,
    },
    (r) => issuer.create(principalOf(r), r.body),
  );
  app.get(
    '/api/v1/oidc-token-configs/:id',
    {
      schema: {
        tags,
        operationId: 'getOidcTokenConfig',
        summary: 'Get OIDC token config',
        params: OidcTokenConfigIdParams,
        response: { 200: OidcTokenConfig },
      },
      config: admin,
    },
    (r) => issuer.get(principalOf(r), r.params.id),
  );
  app.put(
    '/api/v1/oidc-token-configs/:id',
    {
      schema: {
        tags,
        operationId: 'updateOidcTokenConfig',
        summary: 'Update OIDC token config; fields left out keep their values',
        params: OidcTokenConfigIdParams,
        body: UpdateOidcTokenConfigInput,
        response: { 200: OidcTokenConfig },
      },
      config: admin,
    },
    (r) => issuer.update(principalOf(r), r.params.id, r.body),
  );
  app.delete(
    '/api/v1/oidc-token-configs/:id',
    {
      schema: {
        tags,
        operationId: 'deleteOidcTokenConfig',
        summary: 'Delete OIDC token config',
        params: OidcTokenConfigIdParams,
        response: { 200: DeletedAnswer },
      },
      config: admin,
    },
    (r) => issuer.delete(principalOf(r), r.params.id),
  );
  app.post(
    '/api/v1/oidc-token-configs/:id/token',
    {
      schema: {
        tags,
        operationId: 'mintOidcToken',
        summary: "Mint a deployment's short-lived token (15 minutes) under a config",
        description:
          'An ES256 JWT: `iss` this server, `sub` from `subFormat`, `aud` from the audience type, the custom claims, ' +
          'and `tenant`. Verify it with the keys of `/.well-known/jwks.json`.',
        params: OidcTokenConfigIdParams,
        body: MintTokenInput,
        response: { 200: MintedToken },
      },
      config: admin,
    },
    (r) => issuer.mint(principalOf(r), r.params.id, r.body.deploymentId),
  );

  app.get(
    '/.well-known/openid-configuration',
    {
      schema: {
        tags,
        operationId: 'getOpenIdConfiguration',
        summary: "The issuer's discovery document (OpenID Connect Discovery 1.0)",
        security: [],
        response: { 200: Type.Record(Type.String(), Type.Unknown()) },
      },
      config: { access: { public: true } },
    },
    () => issuer.discovery(),
  );
  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags,
        operationId: 'getJwks',
        summary:
          "The issuer's public signing keys (RFC 7517), the retired ones included until their overlap ends",
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }) },
      },
      config: { access: { public: true } },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return issuer.jwks();
    },
  );
};
