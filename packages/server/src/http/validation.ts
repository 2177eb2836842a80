import type { FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { DomainError } from '../errors/domain-errors.ts';
import { describeProblems, type SchemaIssue, validationProblems } from '../errors/validation-problems.ts';
import type { App } from './types.ts';

/**
 * Text the store cannot hold: PostgreSQL (and PGlite) refuse U+0000 in text (SQLSTATE 22021) and
 * in jsonb (22P05); a lone UTF-16 surrogate is silently turned into U+FFFD in text and refused in
 * jsonb (22P02). With the `u` flag a well-formed surrogate pair is one code point, so `\p{Cs}`
 * matches only the lone halves. Other control characters are stored as they are and stay allowed.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what the store refuses
const unstorable = /[\u0000\p{Cs}]/u;

function describe(text: string): string {
  return text.includes('\u0000') ? 'U+0000 (NUL)' : 'an unpaired UTF-16 surrogate';
}

/** A JSON pointer segment (RFC 6901 section 3), as ajv writes instance paths. */
const segment = (key: string | number) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * Every string and object key anywhere in `value` that the store cannot hold, with its JSON
 * pointer. Walks with an explicit stack: a deeply nested body must not overflow the call stack.
 */
export function unstorableText(value: unknown): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (unstorable.test(current))
        issues.push({
          instancePath: path,
          keyword: 'unstorableText',
          message: `must not contain ${describe(current)}, which cannot be stored`,
        });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}${segment(i)}`]);
    } else if (current !== null && typeof current === 'object' && !Buffer.isBuffer(current)) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        if (unstorable.test(key))
          issues.push({
            instancePath: path,
            keyword: 'unstorableText',
            message: `has a key that contains ${describe(key)}, which cannot be stored`,
          });
        else stack.push([item, `${path}${segment(key)}`]);
      }
    }
  }
  return issues;
}

/** The parts of a request in the order Fastify validates them, named as in its errors. */
const parts = [
  ['params', (r: FastifyRequest) => r.params],
  ['body', (r: FastifyRequest) => r.body],
  ['querystring', (r: FastifyRequest) => r.query],
  ['headers', (r: FastifyRequest) => r.headers],
] as const;

/**
 * Refuses text the store cannot hold in any part of any request before a handler sees it,
 * whether or not the route declares a schema for that part (the data API and some SCIM inputs are
 * read without one). DESIGN.md "Errors": bad input is a 4xx naming the field. It runs after the
 * credential checks and schema validation (preHandler), so that a caller without a valid token
 * still learns nothing about the request format first (modules/data/routes.ts).
 */
export function registerInputScreening(app: App) {
  app.addHook('preHandler', async (request) => {
    for (const [context, read] of parts) {
      const issues = unstorableText(read(request));
      if (issues.length === 0) continue;
      const errors = validationProblems(context, issues);
      throw new DomainError('validation_failed', describeProblems(errors), { errors });
    }
  });
}

/** What a route that declares no query string accepts: nothing. */
const noQueryParameters = Type.Object({}, { additionalProperties: false });

/**
 * The query-string schema a route is registered with: a declared object schema refuses names it
 * does not list (a typo in a filter must not become an unfiltered list), unless it says
 * `additionalProperties` itself; a credentialed route that declares none accepts none. Public
 * routes without a schema (the data API, which reads Cube's parameters itself, the API reference
 * pages, /api/openapi.json) are left as they are.
 */
export function strictQuerystring(
  route: Pick<RouteOptions, 'schema' | 'config'>,
): FastifySchema['querystring'] {
  const declared = route.schema?.querystring as
    | { type?: unknown; additionalProperties?: unknown }
    | undefined;
  if (declared === undefined) {
    const access = route.config?.access;
    return access && !('public' in access) ? noQueryParameters : undefined;
  }
  if (declared.type !== 'object' || declared.additionalProperties !== undefined) return declared;
  // A copy with every property descriptor: TypeBox keeps its kind in a non-enumerable key, which a
  // spread would drop (and with it the conversion of query-string text to integers and booleans).
  const strict = Object.defineProperties({}, Object.getOwnPropertyDescriptors(declared));
  return Object.assign(strict, { additionalProperties: false });
}

/** Applies `strictQuerystring` to every route registered after this call, in every scope. */
export function registerStrictQuerystrings(app: App) {
  app.addHook('onRoute', (route) => {
    const querystring = strictQuerystring(route);
    if (querystring !== undefined) route.schema = { ...route.schema, querystring };
  });
}

const decimalInteger = /^-?\d+$/;

type PropertiesSchema = { properties?: Record<string, { type?: unknown }> } | undefined;

function nonDecimalIntegers(context: string, schema: PropertiesSchema, values: unknown) {
  const given = (values ?? {}) as Record<string, unknown>;
  return Object.entries(schema?.properties ?? {})
    .filter(([name, property]) => {
      const raw = given[name];
      return property.type === 'integer' && typeof raw === 'string' && !decimalInteger.test(raw);
    })
    .map(([name]) => ({ field: `${context}/${name}`, message: 'must be a decimal integer' }));
}

/**
 * Integer path and query parameters must be written as decimal integers. The schema's conversion
 * is lenient (`1.5`, `1e0`, ` 1`, `0x1` and the empty string all read as numbers), so without this
 * a DELETE of /deployments/1.5 removed deployment 1 and `?parentId=` read as the root. Runs before
 * validation, on the raw text, after the credential checks; public routes (the data API answers an
 * unknown deployment with 404 in Cube's shape) read their own parameters.
 */
export function registerDecimalIntegers(app: App) {
  app.addHook('preValidation', async (request) => {
    const access = request.routeOptions.config?.access;
    if (!access || 'public' in access) return;
    const schema = request.routeOptions.schema;
    const errors = [
      ...nonDecimalIntegers('params', schema?.params as PropertiesSchema, request.params),
      ...nonDecimalIntegers('querystring', schema?.querystring as PropertiesSchema, request.query),
    ];
    if (errors.length > 0) throw new DomainError('validation_failed', describeProblems(errors), { errors });
  });
}
