import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadCache } from '../cache/read-cache.ts';
import { sha256 } from '../crypto/secrets.ts';
import type { TenantRow } from '../db/schema.ts';
import { ForbiddenError, UnauthorizedError } from '../errors/domain-errors.ts';
import type { ApiKeysRepository, CredentialLookup } from '../modules/api-keys/repository.ts';
import type { TenantResolver } from '../modules/tenants/resolver.ts';
import { parseAuthorization } from './credentials.ts';
import { type EmbedTokenVerifier, embedTokenIn } from './embed-token.ts';
import { type ExternalTokenVerifier, externalTokenIn } from './external-token.ts';
import {
  type Access,
  canReachDeployment,
  type EmbedGrant,
  type EmbedLevel,
  hasRole,
  type Principal,
} from './principal.ts';
import { effectiveAccess } from './roles.ts';
import {
  csrfHeaderName,
  type SessionVerifier,
  sessionCookieName,
  stateChangingMethods,
} from './session-cookie.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; enforced for every route by the hook below. */
    access?: Access;
  }
  interface FastifyRequest {
    /** Set by the hook below on every credentialed route; null on public routes. */
    tenant: TenantRow | null;
    principal: Principal | null;
  }
}

export interface AuthDeps {
  tenants: TenantResolver;
  apiKeys: ApiKeysRepository;
  /** Credential lookups by hash, cached until a change to keys or users is announced. */
  credentials: ReadCache<CredentialLookup | undefined>;
  /** Embed tokens (`Bearer` + a JWT), checked by the embed module. */
  embedTokens?: EmbedTokenVerifier;
  /** Browser sessions (the `tessera_session` cookie), checked by the sign-in module. */
  sessions?: SessionVerifier;
  /** An external OpenID provider's access tokens (`Bearer`), checked by the OIDC module when configured. */
  externalTokens?: ExternalTokenVerifier;
}

const touchIntervalMs = 60_000;

type CredentialedAccess = Exclude<Access, { public: true }>;

/**
 * A credential resolved to its Principal: `verify` runs after the route's access was granted (a
 * browser's CSRF token), `touch` after the request was admitted (last-used bookkeeping).
 */
interface Resolved {
  principal: Principal;
  verify?: () => void;
  touch?: () => void;
}

/**
 * The one place where credentials are checked (spec section 5): every route declares
 * `config.access`; the request's credential is resolved to a Principal by the resolver of its
 * kind (401: missing, malformed, unknown, revoked, expired), then checked against the declaration
 * by `authorize` (403: valid but not allowed: out of deployment scope, wrong credential kind, role
 * or embed level too low).
 */
export function registerAuthentication(app: FastifyInstance, deps: AuthDeps) {
  const lastTouched = new Map<number, number>();
  app.decorateRequest('tenant', null);
  app.decorateRequest('principal', null);

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.access;
    if (!access || 'public' in access) return;
    const tenant = await deps.tenants.resolve(request.headers.host);
    request.tenant = tenant;
    const resolved = await resolveCredential(request, access, tenant.id, deps, lastTouched);
    const principal = authorize(request, access, resolved.principal);
    resolved.verify?.();
    request.principal = { ...principal, requestId: request.id };
    resolved.touch?.();
  });

  // After the body is parsed and validated: the deployment checks of a route that names its
  // deployment there (`access.deploymentInBody`), which `authorize` could not make without it.
  app.addHook('preHandler', async (request) => {
    const access = request.routeOptions.config?.access;
    if (!access || 'public' in access || access.deploymentInBody === undefined) return;
    const principal = request.principal;
    if (!principal || principal.embed) return;
    const raw = (request.body as Record<string, unknown> | undefined)?.[access.deploymentInBody];
    request.principal = authorizeOnDeployment(principal, access, raw);
  });
}

/** Picks the resolver for the credential the request carries. */
function resolveCredential(
  request: FastifyRequest,
  access: CredentialedAccess,
  tenantId: number,
  deps: AuthDeps,
  lastTouched: Map<number, number>,
): Promise<Resolved> {
  // The cookie counts only without an Authorization header: a request that names a credential
  // there is judged by it alone, and API keys need no CSRF token.
  const sessionId =
    deps.sessions && request.headers.authorization === undefined
      ? request.cookies?.[sessionCookieName]
      : undefined;
  if (deps.sessions && sessionId !== undefined)
    return sessionCredential(request, deps.sessions, tenantId, sessionId);
  const externalToken = deps.externalTokens ? externalTokenIn(request.headers.authorization) : null;
  if (deps.externalTokens && externalToken !== null && deps.externalTokens.claims(externalToken))
    return externalCredential(deps.externalTokens, tenantId, externalToken);
  const embedToken = deps.embedTokens ? embedTokenIn(request.headers.authorization) : null;
  if (deps.embedTokens && embedToken !== null) return embedCredential(deps.embedTokens, tenantId, embedToken);
  return apiKeyCredential(request, access, deps, lastTouched);
}

/** A browser session (the `tessera_session` cookie) acts as its user's unscoped key. */
async function sessionCredential(
  request: FastifyRequest,
  sessions: SessionVerifier,
  tenantId: number,
  sessionId: string,
): Promise<Resolved> {
  const grant = await sessions.verify(tenantId, sessionId);
  return {
    principal: {
      tenantId: grant.tenantId,
      userId: grant.userId,
      role: grant.role,
      credentialId: grant.id,
      credentialKind: 'session',
      deploymentIds: null,
      deploymentRoles: grant.deploymentRoles,
    },
    // A browser sends the cookie with requests other sites make it send: a write must prove it
    // comes from our own page with the token only that page could read (OWASP CSRF cheat sheet).
    verify: () => {
      if (
        stateChangingMethods.has(request.method) &&
        !sessions.csrfTokenMatches(sessionId, request.headers[csrfHeaderName])
      ) {
        throw new ForbiddenError(
          `Send the session's CSRF token in the ${csrfHeaderName} header (GET /api/v1/session answers one)`,
          'csrf_token_invalid',
        );
      }
    },
    touch: () =>
      sessions.touch(grant)?.catch((err) => request.log.warn({ err }, 'last_seen_at update failed')),
  };
}

/** An external provider's access token (spec 5) acts as its user's unscoped key, as a session does. */
async function externalCredential(
  verifier: ExternalTokenVerifier,
  tenantId: number,
  token: string,
): Promise<Resolved> {
  const grant = await verifier.verify(tenantId, token);
  return {
    principal: {
      tenantId,
      userId: grant.userId,
      role: grant.role,
      credentialId: grant.userId,
      credentialKind: 'oidc',
      deploymentIds: null,
    },
  };
}

/**
 * An embed token is a credential of its own kind (DESIGN.md "Identity and access"): a viewer of the
 * one deployment its session named; what it may do there is its grant (spec 2.6), checked against
 * the route's `embed` level by `authorize`.
 */
async function embedCredential(
  verifier: EmbedTokenVerifier,
  tenantId: number,
  token: string,
): Promise<Resolved> {
  const grant = await verifier.verify(tenantId, token);
  return {
    principal: {
      tenantId,
      userId: 0,
      role: 'viewer',
      credentialId: -grant.sessionId,
      credentialKind: 'embed',
      deploymentIds: [grant.deploymentId],
      embed: grant,
    },
  };
}

/** An API key, OAuth access token or SCIM token, looked up by its hash. */
async function apiKeyCredential(
  request: FastifyRequest,
  access: CredentialedAccess,
  deps: AuthDeps,
  lastTouched: Map<number, number>,
): Promise<Resolved> {
  const parsed = parseAuthorization(
    request.headers.authorization,
    access.credential === 'scim' || access.apiKeyScheme === true,
  );
  if (!parsed.ok) {
    throw parsed.reason === 'missing'
      ? new UnauthorizedError(
          'credential_missing',
          'Send a credential in the Authorization header: Bearer <API key>',
        )
      : new UnauthorizedError('credential_malformed', 'The Authorization header is not "Bearer <API key>"');
  }
  const hash = sha256(parsed.key);
  const found = await deps.credentials.get(hash, () => deps.apiKeys.findByHash(hash));
  if (!found || found.tenant_id !== request.tenant?.id || found.is_deactivated) {
    throw new UnauthorizedError('credential_invalid', 'The credential is not valid');
  }
  if (found.revoked_at !== null)
    throw new UnauthorizedError('credential_revoked', 'The credential has been revoked');
  if (found.expires_at !== null && found.expires_at.getTime() <= Date.now()) {
    throw new UnauthorizedError('credential_expired', 'The credential has expired');
  }
  const { role, deploymentRoles } = effectiveAccess(found.role, found.held_roles);
  const principal: Principal = {
    tenantId: found.tenant_id,
    userId: found.user_id,
    role,
    credentialId: found.id,
    credentialKind: found.kind,
    deploymentIds: found.deployment_ids,
    deploymentRoles,
  };
  return {
    principal,
    // Writing last_used_at on every request would double the store's load: once a minute.
    touch: () => {
      const now = Date.now();
      if (now - (lastTouched.get(principal.credentialId) ?? 0) <= touchIntervalMs) return;
      lastTouched.set(principal.credentialId, now);
      deps.apiKeys
        .touch(principal.credentialId)
        .catch((err) => request.log.warn({ err }, 'last_used_at update failed'));
    },
  };
}

/**
 * Checks a resolved principal against what the route declares (403s), and answers the principal
 * the request acts as: on a deployment where a role assigned to the user gives more than their
 * account role, that role (auth/roles.ts).
 */
function authorize(request: FastifyRequest, access: CredentialedAccess, resolved: Principal): Principal {
  if (resolved.embed) {
    authorizeEmbedLevel(access.embed, resolved.embed);
    // An embed token acts only on its session's deployment; its level, not a role, is its limit.
    checkDeployment((request.params as Record<string, unknown> | undefined)?.deploymentId, resolved);
    return resolved;
  }
  const principal = resolved;
  const kind = principal.credentialKind;
  const wanted = access.credential ?? 'api';
  // SCIM tokens only provision; an unscoped admin API key may also call SCIM (spec 5 rule 2). A
  // browser session acts as its user's unscoped API key, but never provisions (SCIM is for
  // identity providers) and never reads what only embed tokens may.
  const kindAllowed =
    kind === wanted ||
    ((kind === 'session' || kind === 'oidc') && wanted === 'api') ||
    (wanted === 'scim' && kind === 'api' && principal.role === 'admin' && principal.deploymentIds === null);
  if (!kindAllowed)
    throw new ForbiddenError(
      kind === 'session'
        ? 'A browser session cannot call this API'
        : `A ${kind} credential cannot call this API`,
      'credential_kind_not_allowed',
    );

  const raw = (request.params as Record<string, unknown> | undefined)?.deploymentId;
  if (raw === undefined && access.deploymentInBody !== undefined) {
    // The body, parsed after this hook, names the deployment: its checks wait for it (the
    // preHandler above). Refused now is only a role no deployment would raise high enough.
    const reachable = Object.values(principal.deploymentRoles ?? {}).some((r) =>
      hasRole({ ...principal, role: r }, access.role),
    );
    if (!hasRole(principal, access.role) && !reachable)
      throw new ForbiddenError(`This operation needs the ${access.role} role`, 'insufficient_role');
    return principal;
  }
  return authorizeOnDeployment(principal, access, raw);
}

/**
 * The checks that depend on the deployment a request acts on (`raw`, from the path or the body;
 * undefined: an account-level request): the credential's scope, the role a role assigned to the
 * user holds there (auth/roles.ts), then the route's role.
 */
function authorizeOnDeployment(resolved: Principal, access: CredentialedAccess, raw: unknown): Principal {
  let principal = resolved;
  checkDeployment(raw, principal);
  const deploymentRole = raw === undefined ? undefined : principal.deploymentRoles?.[String(raw)];
  if (deploymentRole && !hasRole(principal, deploymentRole))
    principal = { ...principal, role: deploymentRole };
  const serviceChecksScope = access.scopedKeys === 'filter' || access.scopedKeys === 'service';
  if (raw === undefined && principal.deploymentIds !== null && !serviceChecksScope) {
    throw new ForbiddenError(
      'Account-level operations need a credential scoped to all deployments',
      'deployment_scoped_credential',
    );
  }
  if (!hasRole(principal, access.role)) {
    throw new ForbiddenError(`This operation needs the ${access.role} role`, 'insufficient_role');
  }
  return principal;
}

/** An embed token's grant against the route's `embed` level. */
function authorizeEmbedLevel(level: EmbedLevel | undefined, grant: EmbedGrant): void {
  if (level === 'chat' && !grant.showDashboardChat)
    throw new ForbiddenError(
      'The embed session does not allow dashboard chat (settings.showDashboardChat)',
      'embed_chat_not_allowed',
    );
  if (level === 'create' && !(grant.creatorMode && grant.embedTenantId !== null))
    throw new ForbiddenError(
      'The embed session is not in creator mode (creatorMode with an embedTenantName)',
      'embed_creator_mode_required',
    );
  if (level === undefined)
    throw new ForbiddenError(
      'An embed token can only read the dashboards it was issued for',
      'credential_kind_not_allowed',
    );
}

/** 403 when the request names (`raw`) a deployment the credential does not reach. */
function checkDeployment(raw: unknown, principal: Principal): void {
  const deploymentId = Number(raw);
  if (raw !== undefined && Number.isInteger(deploymentId) && !canReachDeployment(principal, deploymentId)) {
    throw new ForbiddenError(`This credential is not scoped to deployment ${raw}`, 'deployment_out_of_scope');
  }
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('credential_missing', 'Authentication required');
  return request.principal;
}
