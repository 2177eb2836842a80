import type { RouteInfo } from '../../src/http/app.ts';
import type { TestServer } from '../harness.ts';
import { type Fixtures, gitHome, knownAdminPassword, routeSamples } from '../route-samples.ts';
import type { DataFixtures } from './data-samples.ts';
import { type Hints, type JsonSchema, noHints } from './json-schema-arbitrary.ts';
import type { ScimFixtures } from './scim-samples.ts';

/** Which error shape a route answers in (DESIGN.md "Errors"). */
export type Family = 'management' | 'scim' | 'data' | 'public';
export type Credential = 'admin' | 'scim' | 'data' | 'embed' | 'none';

/** A route of the table with one valid request of it, split into the parts the fuzzer varies. */
export interface RouteCase {
  id: string;
  method: string;
  route: string;
  family: Family;
  credential: Credential;
  contentType: string;
  schema: { params?: JsonSchema; querystring?: JsonSchema; body?: JsonSchema };
  /** Path parameters as the sample sends them (percent-encoded); `*` for a wildcard. */
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  payload?: unknown;
  hints: Hints;
}

function embedOnly(route: RouteInfo): boolean {
  return route.access !== undefined && 'role' in route.access && route.access.credential === 'embed';
}

export function familyOf(route: RouteInfo): Family {
  if (route.url.startsWith('/api/scim/v2/')) return 'scim';
  if (route.url.startsWith('/data/')) return 'data';
  if (!route.access || 'public' in route.access) return 'public';
  return 'management';
}

/** The route's parameters read off a concrete path (`/api/v1/users/:id` and `/api/v1/users/7`). */
function paramsOf(route: string, path: string): Record<string, string> | undefined {
  const pattern = route.split('/');
  const actual = path.split('/');
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*') {
      params['*'] = actual.slice(i).join('/');
      return params;
    }
    if (pattern[i].startsWith(':')) params[pattern[i].slice(1)] = actual[i];
    else if (pattern[i] !== actual[i]) return undefined;
  }
  return pattern.length === actual.length ? params : undefined;
}

function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [seen, value].flat();
  }
  return query;
}

export function urlOf(
  route: string,
  params: Record<string, string>,
  query: Record<string, string | string[]>,
) {
  const path = route
    .split('/')
    .map((segment) =>
      segment === '*' ? params['*'] : segment.startsWith(':') ? params[segment.slice(1)] : segment,
    )
    .join('/');
  const search = Object.entries(query)
    .flatMap(([name, value]) =>
      [value].flat().map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(v)}`),
    )
    .join('&');
  return search ? `${path}?${search}` : path;
}

/**
 * Public routes: the API reference, health, metrics and the home page take no body; those that
 * do (the embed session exchange, sign-in) need a sample here, or they are reported uncovered.
 */
async function publicSample(route: RouteInfo, fixtures: Fixtures) {
  const id = `${route.method} ${route.url}`;
  if (id === 'POST /api/v1/embed/session/token') {
    const generate = await routeSamples['POST /api/v1/embed/generate-session'](fixtures);
    const res = await fixtures.server.app.inject({
      method: 'POST',
      url: generate.url,
      headers: { authorization: `Bearer ${fixtures.server.adminKey}` },
      payload: generate.payload,
    });
    return { url: route.url, payload: { sessionId: res.json().sessionId } };
  }
  if (id === 'POST /api/v1/session') {
    const password = await knownAdminPassword(fixtures);
    return { url: route.url, payload: { email: fixtures.server.adminEmail, password } };
  }
  // The git remote's push webhook (modules/data-model): a push event to a connected deployment.
  // Samples carry no headers, so it is unsigned and every variant is refused with 401, changing
  // nothing; the signed path is tested in git.test.ts.
  if (id === 'POST /build/api/v1/deployments/:deploymentId/git/webhook')
    return { url: `${await gitHome(fixtures, 'pull')}/git/webhook`, payload: { ref: 'refs/heads/main' } };
  return (route.schema as { body?: unknown } | undefined)?.body
    ? undefined
    : { url: route.url.replace('*', 'swagger-ui.css') };
}

export interface CaseSources {
  server: TestServer;
  fixtures: Fixtures;
  scim: ScimFixtures;
  data: DataFixtures;
}

/**
 * One case per route of the table (HEAD aside, which Fastify derives from GET). Routes the fuzzer
 * has no sample for are returned as `uncovered`, so that a new route fails the test until it has
 * one.
 */
export async function routeCases(
  routes: RouteInfo[],
  { fixtures, scim, data }: CaseSources,
): Promise<{ cases: RouteCase[]; uncovered: string[] }> {
  const cases: RouteCase[] = [];
  const uncovered: string[] = [];
  for (const route of routes) {
    const id = `${route.method} ${route.url}`;
    const family = familyOf(route);
    const sample: { url: string; payload?: unknown } | undefined =
      family === 'scim'
        ? await scim.sample(route.method, route.url)
        : family === 'data'
          ? data.sample(route.method, route.url)
          : family === 'public'
            ? await publicSample(route, fixtures)
            : await routeSamples[id]?.(fixtures);
    const [path, search = ''] = sample?.url.split('?') ?? [];
    const params = path === undefined ? undefined : paramsOf(route.url, path);
    if (!sample || !params) {
      uncovered.push(id);
      continue;
    }
    const schema = (route.schema ?? {}) as RouteCase['schema'];
    cases.push({
      id,
      method: route.method,
      route: route.url,
      family,
      // Routes for embed tokens alone are fuzzed with one (every other credential gets 403 there).
      credential: embedOnly(route)
        ? 'embed'
        : ({ management: 'admin', scim: 'scim', data: 'data', public: 'none' }[family] as Credential),
      contentType: family === 'scim' ? 'application/scim+json' : 'application/json',
      schema: { params: schema.params, querystring: schema.querystring, body: schema.body },
      params,
      query: queryOf(search),
      payload: sample.payload,
      hints:
        family === 'scim' ? scim.hints : family === 'data' ? data.hintsFor(route.method, route.url) : noHints,
    });
  }
  // Embed-token routes first: the fuzzing of other routes (embed settings, session revocation,
  // users) may legitimately end the one embed session the token came from.
  const embedFirst = (c: RouteCase) => (c.credential === 'embed' ? 0 : 1);
  cases.sort((a, b) => embedFirst(a) - embedFirst(b));
  return { cases, uncovered };
}
