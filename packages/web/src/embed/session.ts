import { type Client, createClient } from '@tessera/client';

/**
 * The embed page's credential handling (spec 2.6 and 4.3; DESIGN.md "Web app and sessions"): the
 * one-time session id is taken out of the address at once, redeemed once for an embed token, and
 * the token lives in this module's memory only: never in localStorage, sessionStorage or a cookie
 * that another page of the origin could read. Nothing renews it: when it ends, the page says so.
 */

export interface EmbedLocation {
  /** The dashboard's public id from `/embed/dashboard/{publicId}`, or null on another path. */
  publicId: string | null;
  /** The `session` query parameter as it was when the page opened, or null. */
  sessionId: string | null;
}

let captured: EmbedLocation | undefined;

/**
 * Reads the page's address once and removes `session` from it (history.replaceState), so that the
 * id is not in the history, a bookmark, a copied link or a later Referer. Later calls answer the
 * first reading: a re-render (or React's double effects in development) never sees the session gone.
 */
export function captureEmbedLocation(): EmbedLocation {
  if (captured) return captured;
  const url = new URL(window.location.href);
  const sessionId = url.searchParams.get('session');
  if (url.searchParams.has('session')) {
    url.searchParams.delete('session');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  captured = {
    publicId: dashboardIdOf(url.pathname),
    sessionId: sessionId === null || sessionId === '' ? null : sessionId,
  };
  return captured;
}

/** The public id in an embed page's path (`/embed/dashboard/{publicId}`), or null on another path. */
export function dashboardIdOf(pathname: string): string | null {
  const match = /^\/embed\/dashboard\/([^/]+)\/?$/.exec(pathname);
  return match ? safeDecode(match[1]) : null;
}

/** The embed page's address of a dashboard: never with the session, which was redeemed once. */
export function dashboardPath(publicId: string): string {
  return `/embed/dashboard/${encodeURIComponent(publicId)}`;
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The display parts of the token's `embed` claim (modules/embed/claims.ts on the server). */
export interface EmbedTheme {
  primaryColor?: string | null;
  font?: string | null;
  chat?: { inputColor?: string | null } | null;
  analyticsChat?: {
    backgroundColor?: string | null;
    chatInput?: { backgroundColor?: string | null; borderColor?: string | null } | null;
  } | null;
}

export interface EmbedClaims {
  deploymentId: number;
  externalId: string;
  /** Creator mode (issue 12): the user creates and shares inside its embed tenant's space. */
  creatorMode?: boolean;
  embedTenantName?: string | null;
  /** The embed user this token acts as: the owner of what it creates in creator mode. */
  embedUserId?: number;
  publicDashboardId: string | null;
  theme: EmbedTheme | null;
  userProfile: { displayName?: string | null; picture?: string | null } | null;
  settings: { showDashboardChat: boolean };
}

export interface EmbedCredential {
  token: string;
  claims: EmbedClaims;
  /** When the token stops working, on this browser's clock (its lifetime counted from redemption). */
  expiresAt: number;
}

/** Why the page cannot show the dashboard; `code` is the server's stable error code when it gave one. */
export class EmbedFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const redemptions = new Map<string, Promise<EmbedCredential>>();

/**
 * Exchanges the session for an embed token (`POST /api/v1/embed/session/token`), once per session
 * id for the life of the page. No cookie goes with it: the session id is the credential.
 */
export function redeemSession(sessionId: string): Promise<EmbedCredential> {
  let redemption = redemptions.get(sessionId);
  if (!redemption) {
    redemption = redeem(sessionId);
    redemptions.set(sessionId, redemption);
  }
  return redemption;
}

async function redeem(sessionId: string): Promise<EmbedCredential> {
  const client = createClient({ baseUrl: window.location.origin, credentials: 'omit', retry: false });
  const { data, error, response } = await client.POST('/api/v1/embed/session/token', {
    body: { sessionId },
  });
  if (!data) throw failureOf(response.status, error);
  const payload = decodePayload(data.token);
  if (!payload) throw new EmbedFailure('token_unreadable', 'The embed token could not be read.');
  const lifetime =
    typeof payload.exp === 'number' && typeof payload.iat === 'number' ? payload.exp - payload.iat : 0;
  return {
    token: data.token,
    claims: payload.embed as EmbedClaims,
    expiresAt: Date.now() + Math.max(0, lifetime) * 1000,
  };
}

/** The JWT's payload, unverified: the server verifies every use, the page only reads its display parts. */
function decodePayload(token: string): { exp?: unknown; iat?: unknown; embed?: unknown } | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const payload = JSON.parse(new TextDecoder().decode(bytes));
    return payload && typeof payload === 'object' && payload.embed ? payload : null;
  } catch {
    return null;
  }
}

export function failureOf(status: number, body: unknown): EmbedFailure {
  const code =
    body && typeof body === 'object' && 'code' in body && typeof body.code === 'string'
      ? body.code
      : `http_${status}`;
  return new EmbedFailure(code, messageFor(code, status));
}

/** What the viewer is told, per error code of the embed routes (modules/embed/routes.ts). */
export function messageFor(code: string, status?: number): string {
  switch (code) {
    case 'missing_session':
      return 'This page needs an embed session. Open it from the application that embeds it.';
    case 'embed_session_invalid':
      return 'This embed session is not valid. Reload the application that embeds this dashboard.';
    case 'embed_session_redeemed':
      return 'This embed session has already been used; each one opens the dashboard once. Reload the application that embeds it.';
    case 'embed_session_expired':
      return 'This embed session has expired before it was opened. Reload the application that embeds this dashboard.';
    case 'embed_session_revoked':
    case 'credential_revoked':
      return 'This embed session has been ended by the application that embeds it.';
    case 'credential_expired':
      return 'This embedded view has expired. Reload the application that embeds it to continue.';
    case 'credential_invalid':
      return 'The credential of this embedded view is not valid. Reload the application that embeds it.';
    case 'embedding_disabled':
      return 'Embedding is turned off for this account.';
    case 'embedding_not_allowed':
      return 'This dashboard does not allow embedding.';
    case 'dashboard_not_found':
    case 'missing_dashboard':
      return 'This dashboard does not exist or is not available to this session.';
    default:
      return status && status >= 500
        ? 'The analytics server could not answer. Try again in a moment.'
        : 'This embedded dashboard could not be opened.';
  }
}

/** Codes after which the token is of no further use: the page stops and says why. */
export const endingCodes = new Set([
  'credential_expired',
  'credential_revoked',
  'credential_invalid',
  'embedding_disabled',
]);

/**
 * A client that sends the embed token as `Authorization: Bearer` (no cookie) and reports an answer
 * that ends the token (401, or 403 `embedding_disabled`) to `onEnded`. `forget` drops the token:
 * nothing is sent with it afterwards.
 */
export function embedClient(
  credential: EmbedCredential,
  onEnded: (failure: EmbedFailure) => void,
): { client: Client; forget: () => void } {
  let token: string | null = credential.token;
  const client = createClient({
    baseUrl: window.location.origin,
    credentials: 'omit',
    token: () => token,
    fetch: async (request) => {
      const response = await globalThis.fetch(request);
      if (response.status === 401 || response.status === 403) {
        const body = await response
          .clone()
          .json()
          .catch(() => null);
        const failure = failureOf(response.status, body);
        if (response.status === 401 || endingCodes.has(failure.code)) {
          token = null;
          onEnded(failure);
        }
      }
      return response;
    },
  });
  return {
    client,
    forget: () => {
      token = null;
    },
  };
}

/** What a creator is told when a call of its actions fails (the server's message for a 4xx). */
export function creatorMessageOf(error: { status: number; body?: unknown }): string {
  const body = error.body as
    | { detail?: unknown; message?: unknown; errors?: { field?: unknown; message?: unknown }[] }
    | undefined;
  // A dashboard the user only views (its own tenant's, shared with it, or the host's) cannot be
  // shared or changed by it: the server answers 403 or, outside its reach, 404.
  if (error.status === 403 || error.status === 404)
    return 'you can do this only with dashboards you own. Save a copy first.';
  if (body && error.status < 500) {
    // Problem details (DESIGN.md "Errors"): the field's own problem says most, then the detail.
    const field = body.errors?.[0];
    if (field && typeof field.field === 'string' && typeof field.message === 'string')
      return `${field.field.replace(/^body\//, '')} ${field.message}.`;
    if (typeof body.detail === 'string') return body.detail;
    if (typeof body.message === 'string') return body.message;
  }
  return 'the server could not answer. Try again in a moment.';
}
