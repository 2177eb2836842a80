import { STATUS_CODES } from 'node:http';
import type { FastifySchema, RouteOptions } from 'fastify';
import { type ErrorCode, type ErrorScope, errorCatalogue, errorCodes } from '../errors/catalogue.ts';
import { ProblemSchema } from '../errors/problem.ts';
import { ScimErrorBodySchema } from '../errors/scim-error.ts';
import { scimPrefix } from '../modules/scim/constants.ts';
import { sessionPath } from '../modules/sign-in/constants.ts';

/** Schemas every documented error response refers to (`#/components/schemas/...`). */
export const errorSchemas = { Problem: ProblemSchema, ScimError: ScimErrorBodySchema };

const ref = (name: keyof typeof errorSchemas) => ({ $ref: `#/components/schemas/${name}` });

type Route = Pick<RouteOptions, 'method' | 'url' | 'config'> & { schema?: FastifySchema };

/**
 * Which catalogue scopes (catalogue.ts `on`) hold for a route: a route reading a body can answer
 * body refusals; a credentialed one the credential, rate-limit and store codes, and the rules of
 * its API (management or SCIM); a public route none of those.
 */
export function scopesOf(route: Route): Set<ErrorScope> {
  const scopes = new Set<ErrorScope>(['any']);
  if ([route.method].flat().some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) scopes.add('body');
  if (/[:*]/.test(route.url)) scopes.add('params');
  const access = route.config?.access;
  if (/\/embed(\/|-|$)/.test(route.url) || (access && 'embed' in access)) scopes.add('embed');
  if (access && !('public' in access)) {
    scopes.add('credentialed');
    if (
      route.url.includes(':deploymentId') ||
      access.scopedKeys === 'service' ||
      access.deploymentInBody !== undefined
    )
      scopes.add('deployment');
    else if (access.scopedKeys !== 'filter') scopes.add('account');
    scopes.add(route.url.startsWith(scimPrefix) ? 'scim' : 'management');
    if (!route.url.startsWith(scimPrefix) && access.credential !== 'embed') scopes.add('cookie');
  }
  if (route.url.endsWith('/webhook')) scopes.add('webhook');
  if (route.url === sessionPath || route.url.startsWith(`${sessionPath}/`)) {
    scopes.add('sign-in');
    scopes.add('cookie');
  }
  return scopes;
}

/** The codes a route can answer, by status. */
export function codesOf(route: Route): Map<number, ErrorCode[]> {
  const scopes = scopesOf(route);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) {
    const { status, on } = errorCatalogue[code];
    if (scopes.has(on)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

function problemResponse(status: number, codes: ErrorCode[]) {
  return {
    description: `${STATUS_CODES[status]}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
    content: {
      'application/problem+json': {
        schema: {
          allOf: [
            ref('Problem'),
            { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } },
          ],
        },
      },
    },
  };
}

function scimResponse(status: number, codes: ErrorCode[]) {
  const scimTypes = [
    ...new Set(codes.flatMap((c) => ('scimType' in errorCatalogue[c] ? [errorCatalogue[c].scimType] : []))),
  ];
  return {
    description: `${STATUS_CODES[status]} (RFC 7644 section 3.12)`,
    content: {
      'application/scim+json': {
        schema:
          scimTypes.length === 0
            ? ref('ScimError')
            : {
                allOf: [
                  ref('ScimError'),
                  { type: 'object', properties: { scimType: { type: 'string', enum: scimTypes } } },
                ],
              },
      },
    },
  };
}

/**
 * The swagger `transform`: documents every error response a management or SCIM operation can
 * give, with the codes of the catalogue that can arise there, so that a generated client has
 * typed errors. Responses a route declares itself are left as they are; the data API documents
 * Cube's error shapes itself.
 */
export function documentErrors({ schema, url, route }: { schema: FastifySchema; url: string; route: Route }) {
  if (!schema || url.startsWith('/data/')) return { schema, url };
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const render = url.startsWith(scimPrefix) ? scimResponse : problemResponse;
  const added: Record<string, unknown> = {};
  for (const [status, codes] of codesOf(route)) {
    if (!(String(status) in declared)) added[status] = render(status, codes);
  }
  // A browser session cookie authenticates every route of the `cookie` scope, as an API key does.
  const alternatives: Record<string, string[]>[] = [{ bearerAuth: [] }, { cookieAuth: [] }];
  const security = 'security' in schema || !scopesOf(route).has('cookie') ? {} : { security: alternatives };
  return { schema: { ...schema, ...security, response: { ...declared, ...added } }, url };
}
