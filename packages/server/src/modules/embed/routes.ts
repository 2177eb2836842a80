import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../auth/authenticate.ts';
import { PublishedDashboard } from '../dashboards/schemas.ts';
import type { EmbedDashboardsService } from './dashboard-service.ts';
import {
  DashboardEmbeddingResponse,
  EmbeddableDashboardsQuery,
  EmbeddableDashboardsResponse,
  EmbedSettings,
  GenerateSessionBody,
  GenerateSessionResponse,
  PublicIdParams,
  RevokeSessionBody,
  SessionTokenBody,
  SessionTokenResponse,
  UpdateDashboardEmbeddingBody,
  UpdateEmbedSettingsBody,
} from './schemas.ts';
import type { EmbedSessionService } from './session-service.ts';
import type { EmbedSettingsService } from './settings-service.ts';

const tags = ['Embed'];
const admin = { access: { role: 'admin' as const } };

export interface EmbedRoutesOptions {
  sessions: EmbedSessionService;
  dashboards: EmbedDashboardsService;
  settings: EmbedSettingsService;
}

export const embedRoutes: FastifyPluginAsyncTypebox<EmbedRoutesOptions> = async (
  app,
  { sessions, dashboards, settings },
) => {
  app.post(
    '/api/v1/embed/generate-session',
    {
      schema: {
        tags,
        operationId: 'generateSession',
        summary: 'Generate an embed session',
        description:
          "Spec 4.3. Admin only; `deploymentId` must be within the key's deployments (403 `deployment_out_of_scope`) and " +
          'exist (404). 403 `embedding_disabled` when embedding is off for the account. `groups` must name existing global ' +
          'groups and are placed verbatim at `serviceCloud.groups`; `tenantGroups` must exist in the embed tenant or be ' +
          'defined in `tenantGroupDefinitions` (which create or update them) and appear as ' +
          '`system:tenant:{embedTenantName}:group:{group}`; unknown names are 400 `unknown_group`, each named in `errors`. ' +
          '`tenantGroups` and `tenantGroupDefinitions` need `creatorMode: true` and `embedTenantName`. `userAttributes` ' +
          "must be defined by `userAttributeDefinitions` or be one of the account's user attributes, and fit their type; " +
          'they appear at `serviceCloud.userAttributes`. `userAttributeDefinitions` become account user attributes when new ' +
          '(a stored one keeps its type: another is 400). `securityContext` is merged in; `serviceCloud`, `tessera`, ' +
          "`exp`, `iat` and `nbf` are the server's and are refused (400). `publicDashboardId` restricts the session to " +
          'that published dashboard of the deployment (404 when there is none, 403 `embedding_not_allowed` when it does ' +
          'not allow embedding). The end user (`externalId`, else `email`) is created or reused per embed tenant; ' +
          'ephemeral unless `isEphemeral: false`, removed one week after their last session. The session expires after ' +
          '5 minutes and is redeemed once with `POST /api/v1/embed/session/token`.',
        body: GenerateSessionBody,
        response: { 200: GenerateSessionResponse },
      },
      config: { access: { role: 'admin', scopedKeys: 'service' } },
    },
    (r) => sessions.generate(principalOf(r), r.body),
  );
  app.post(
    '/api/v1/embed/session/token',
    {
      schema: {
        tags,
        operationId: 'postTokenBySessionId',
        summary: 'Exchange a session for an embed token',
        description:
          'Unauthenticated: the session id is the credential. Redeems the session once, within its lifetime, for an ' +
          'HS256 embed token valid 24 hours; send it as `Authorization: Bearer <token>` to `GET /api/v1/embed/dashboard/' +
          '{publicId}` and the dashboard widget-data endpoint. 401 `embed_session_invalid`, `embed_session_redeemed`, ' +
          '`embed_session_expired` or `embed_session_revoked` otherwise; a session of another account than the ' +
          "host's is unknown (401 `embed_session_invalid`) and stays redeemable on its own account's host.",
        security: [],
        body: SessionTokenBody,
        response: { 200: SessionTokenResponse },
      },
      config: { access: { public: true } },
    },
    (r) => sessions.redeem(r.headers.host, r.body.sessionId),
  );
  app.post(
    '/api/v1/embed/session/revoke',
    {
      schema: {
        tags,
        operationId: 'revokeSession',
        summary: 'Revoke an embed session',
        description:
          'Ends the session: not yet redeemed, it can no longer be; redeemed, its token is refused (401) from now on. ' +
          'Idempotent: an unknown, expired or revoked id also answers 204.',
        body: RevokeSessionBody,
        response: { 204: Type.Null() },
      },
      config: { access: { role: 'admin', scopedKeys: 'service' } },
    },
    async (r, reply) => {
      await sessions.revoke(principalOf(r), r.body.sessionId);
      return reply.code(204).send(null);
    },
  );
  app.get(
    '/api/v1/embed',
    {
      schema: {
        tags,
        operationId: 'listEmbeddableDashboards',
        summary: 'List embeddable dashboards',
        description: "Published dashboards with `allowEmbed`, in the credential's deployments.",
        querystring: EmbeddableDashboardsQuery,
        response: { 200: EmbeddableDashboardsResponse },
      },
      config: { access: { role: 'developer', scopedKeys: 'filter' } },
    },
    (r) => dashboards.list(principalOf(r), r.query),
  );
  app.get(
    '/api/v1/embed/dashboard/:publicId',
    {
      schema: {
        tags,
        operationId: 'getEmbedDashboard',
        summary: 'Get an embeddable dashboard',
        description:
          'With an embed token: the dashboard when its session reaches it (its deployment, its `publicDashboardId` ' +
          'if any; 404 otherwise) and it allows embedding (403 `embedding_not_allowed`; a creator-mode session also ' +
          'reads dashboards shared with its embed tenant or every embed user). With an API key: view access to the ' +
          "dashboard's workbook.",
        params: PublicIdParams,
        response: { 200: PublishedDashboard },
      },
      config: { access: { role: 'viewer', embed: 'read', scopedKeys: 'service' } },
    },
    (r) => dashboards.open(principalOf(r), r.params.publicId),
  );
  app.patch(
    '/api/v1/embed/dashboard/:publicId',
    {
      schema: {
        tags,
        operationId: 'updateDashboardEmbedding',
        summary: 'Enable or disable signed embedding for a dashboard',
        description: 'Sets `allowEmbed`; developers and admins with edit access to the workbook.',
        params: PublicIdParams,
        body: UpdateDashboardEmbeddingBody,
        response: { 200: DashboardEmbeddingResponse },
      },
      config: { access: { role: 'developer', scopedKeys: 'service' } },
    },
    (r) => dashboards.setAllowEmbed(principalOf(r), r.params.publicId, r.body.allowEmbed),
  );
  app.get(
    '/api/v1/embed/settings',
    {
      schema: {
        tags,
        operationId: 'getEmbedSettings',
        summary: "The account's embedding settings",
        response: { 200: EmbedSettings },
      },
      config: admin,
    },
    (r) => settings.get(principalOf(r)),
  );
  app.put(
    '/api/v1/embed/settings',
    {
      schema: {
        tags,
        operationId: 'updateEmbedSettings',
        summary: "Change the account's embedding settings",
        description:
          'Only the fields sent change. `enabled: false` makes generate-session answer 403 and refuses existing tokens.',
        body: UpdateEmbedSettingsBody,
        response: { 200: EmbedSettings },
      },
      config: admin,
    },
    (r) => settings.update(principalOf(r), r.body),
  );
};
