import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { bodyMutations, check } from './body-mutations.ts';
import {
  absurdContentTypes,
  garbageRequestIds,
  Huge,
  malformedIds,
  materialize,
  rawBodies,
} from './hostile-values.ts';
import { type JsonSchema, typesOf, validValue } from './json-schema-arbitrary.ts';
import { type Credential, type RouteCase, urlOf } from './route-cases.ts';

/** One request the fuzzer sends, as fast-check prints it in a counterexample. */
export interface FuzzRequest {
  /** Which generator made it: `valid`, `body: unknown field`, `header: content-type`, ... */
  kind: string;
  method: string;
  url: string;
  /** The credential of the route's family, or a raw Authorization header. */
  credential: Credential | { authorization: string };
  headers: Record<string, string>;
  /** Sent as JSON; Huge and Deep values are built when serialised. */
  body?: unknown;
  /** Sent as it is, instead of `body`. */
  raw?: string;
  /** Malformed: only a 4xx is a right answer. */
  invalid: boolean;
  /** The field a 400 validation answer must name (or a field inside it). */
  field?: string;
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what the screening refuses
const unstorable = /[\u0000\p{Cs}]/u;

type Query = Record<string, string | string[]>;

function request(
  c: RouteCase,
  kind: string,
  parts: {
    params?: Record<string, string>;
    query?: Query;
    body?: unknown;
    raw?: string;
    headers?: Record<string, string>;
    credential?: FuzzRequest['credential'];
  },
  verdict: { invalid: boolean; field?: string },
): FuzzRequest {
  const body = 'body' in parts ? parts.body : c.payload;
  // The data API answers an unknown deployment (404) and a bad token (403) before it validates
  // (modules/data/routes.ts), so a path that names no operation is a 404 whatever else is wrong.
  const field = c.family === 'data' && c.route.endsWith('/*') ? undefined : verdict.field;
  return {
    kind,
    method: c.method,
    url: urlOf(c.route, parts.params ?? c.params, parts.query ?? c.query),
    credential: parts.credential ?? c.credential,
    headers: parts.headers ?? {},
    ...(parts.raw !== undefined
      ? { raw: parts.raw }
      : body !== undefined && bodyMethods.has(c.method)
        ? { body }
        : {}),
    invalid: verdict.invalid,
    ...(verdict.invalid && field ? { field } : {}),
  };
}

/**
 * Whether query-string or path text is well formed for the schema. Text becomes a number only
 * when it is one in decimal (`12`, not `1.5` for an integer, `0x10`, `1e3` or `true`), a boolean
 * only when it says true or false (or 1 or 0): what a client means, not what a lenient conversion makes of
 * it (`1.9` read as id 1 would address another resource).
 */
function textValid(schema: JsonSchema | undefined, value: Record<string, unknown>): boolean {
  if (!schema) return true;
  const converted: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(value)) {
    const types = typesOf(schema.properties?.[name] ?? {});
    converted[name] =
      typeof text !== 'string'
        ? text
        : types.includes('integer') && /^-?\d+$/.test(text)
          ? Number(text)
          : types.includes('number') && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text)
            ? Number(text)
            : types.includes('boolean') && /^(true|false|1|0)$/i.test(text)
              ? /^(true|1)$/i.test(text)
              : text;
  }
  return Value.Check(schema as TSchema, converted);
}

const asText = (v: unknown): string | string[] =>
  Array.isArray(v) ? v.map((x) => String(asText(x))) : v === null ? '' : String(v);

/** Ids that name nothing: integers above any id the run creates, text that is not an id. */
function freshParam(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  if (schema?.type === 'integer') return fc.integer({ min: 1_000_000_000, max: 2_147_483_647 }).map(String);
  const minLength = schema?.minLength ?? 1;
  return fc
    .string({ unit: 'binary', minLength, maxLength: Math.min(schema?.maxLength ?? 40, 40) })
    .filter((s) => !unstorable.test(s) && !(/^\d{1,10}$/.test(s) && Number(s) < 1_000_000_000))
    .map(encodeURIComponent);
}

function validRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> {
  const paramSchemas = c.schema.params?.properties ?? {};
  const params = fc.record(
    Object.fromEntries(
      Object.entries(c.params).map(([name, sample]) => [
        name,
        name === '*'
          ? fc.oneof(fc.constant(sample), fc.stringMatching(/^[\w.-]{1,12}(\/[\w.-]{1,12}){0,3}$/))
          : fc.oneof({ arbitrary: fc.constant(sample), weight: 3 }, freshParam(paramSchemas[name])),
      ]),
    ),
  );
  const qs = c.schema.querystring;
  const generatedQuery = qs?.properties
    ? validValue(qs, '', c.hints).map((q) =>
        Object.fromEntries(Object.entries(q as object).map(([k, v]) => [k, asText(v)])),
      )
    : fc.constant({});
  const query = fc.oneof(
    fc.constant(c.query),
    generatedQuery.map((q) => ({ ...c.query, ...q })),
    generatedQuery,
  );
  const body =
    c.schema.body && bodyMethods.has(c.method)
      ? fc.oneof(
          fc.constant(c.payload),
          validValue(c.schema.body, '', c.hints),
          validValue(c.schema.body, '', c.hints).map((b) => ({ ...(c.payload as object), ...(b as object) })),
        )
      : fc.constant(c.payload);
  return fc
    .record({ params, query, body })
    .map((parts) => request(c, 'valid by the schema', parts, { invalid: false }));
}

function bodyRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> | undefined {
  if (!c.schema.body || !bodyMethods.has(c.method)) return undefined;
  const schema = c.schema.body;
  return bodyMutations(schema, c.payload).map((m) => {
    // JSON null reads as no body where no field is required (an optional body, spec 4 duplicate).
    const noBody = m.body === null && (schema.required ?? []).length === 0;
    const invalid = m.unstorable === true || (!noBody && !check(schema, materialize(m.body)));
    return request(c, `body: ${m.note}`, { body: m.body }, { invalid, field: m.field });
  });
}

function queryRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> {
  const schema = c.schema.querystring;
  const properties = Object.entries(schema?.properties ?? {});
  const withValue = (name: string, value: string | string[], note: string) => {
    const query = { ...c.query, [name]: value };
    const field = `querystring/${name}`;
    const screened = [value].flat().some((v) => unstorable.test(v));
    return request(c, `query: ${note}`, { query }, { invalid: screened || !textValid(schema, query), field });
  };
  const badText = [
    'abc',
    '1.5',
    '',
    ' ',
    '1,2',
    'NaN',
    'Infinity',
    '0x10',
    '1e3',
    'maybe',
    'TRUE',
    'no-such-value',
    '-1',
    '0',
    '99999999999999999999',
    '-99999999999999999999',
    'has space',
    'a\u0000b',
    '%ZZ',
  ];
  const options: fc.Arbitrary<FuzzRequest>[] = [
    // An unknown parameter: refused where the route's query schema is closed.
    fc
      .stringMatching(/^[a-z][a-zA-Z0-9_-]{0,15}$/)
      .filter((n) => !(n in (schema?.properties ?? {})))
      .map((name) => {
        const query = { ...c.query, [name]: '1' };
        const closed = schema?.additionalProperties === false;
        return request(
          c,
          'query: unknown parameter',
          { query },
          { invalid: closed, field: `querystring/${name}` },
        );
      }),
    fc
      .constant(withValue('nul\u0000name', '1', 'parameter name with U+0000'))
      .map((r) => ({ ...r, field: 'querystring' })),
  ];
  if (properties.length > 0) {
    const name = fc.constantFrom(...properties.map(([n]) => n));
    options.push(
      fc.tuple(name, fc.constantFrom(...badText)).map(([n, v]) => withValue(n, v, 'malformed value')),
      fc
        .tuple(name, fc.constantFrom(new Huge(8_000), new Huge(2_000, '\u{1F600}')))
        .map(([n, v]) => withValue(n, v.toJSON(), `${v.length} characters`)),
      fc
        .tuple(name, fc.constantFrom('1', 'x', 'true'))
        .map(([n, v]) => withValue(n, [v, v], 'repeated parameter')),
    );
    const required = (schema?.required ?? []).filter((n) => n in c.query);
    if (required.length > 0)
      options.push(
        fc.constantFrom(...required).map((n) => {
          const { [n]: _dropped, ...query } = c.query;
          return request(
            c,
            'query: missing required parameter',
            { query },
            { invalid: true, field: `querystring/${n}` },
          );
        }),
      );
  }
  return fc.oneof(...options);
}

function paramRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> | undefined {
  const names = Object.keys(c.params);
  if (names.length === 0) return undefined;
  return fc.tuple(fc.constantFrom(...names), fc.constantFrom(...malformedIds)).map(([name, raw]) => {
    const params = { ...c.params, [name]: raw };
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      decoded = undefined;
    }
    const field = `params/${name}`;
    // The router refuses what it cannot decode, and parameters over 100 characters (maxParamLength).
    const unroutable = decoded === undefined || raw.length > 100;
    const values = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, k === name ? decoded : decodeURIComponent(v)]),
    );
    const invalid =
      unroutable || unstorable.test(decoded ?? '') || (name !== '*' && !textValid(c.schema.params, values));
    // A malformed data-API deployment id is an unknown deployment: 404 before any validation.
    const named = !unroutable && c.family !== 'data';
    return request(c, 'path: malformed parameter', { params }, { invalid, field: named ? field : undefined });
  });
}

function headerRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> {
  const screened = (name: string, value: string, note: string) =>
    request(
      c,
      `header: ${note}`,
      { headers: { [name]: value } },
      {
        invalid: unstorable.test(value),
        field: `headers/${name}`,
      },
    );
  const options: fc.Arbitrary<FuzzRequest>[] = [
    garbageRequestIds.map((v) => screened('x-request-id', v, 'x-request-id')),
    fc.constantFrom('a\u0000b', '\uDFFF').map((v) => screened('x-custom-header', v, 'custom header')),
    fc
      .constantFrom('application/xml', 'text/html;q=abc', '*/*;q=2', '\u0001')
      .map((v) => screened('accept', v, 'accept')),
    fc
      .constantFrom('evil.example.com', 'localhost:99999', '[::1', '')
      .map((v) => request(c, 'header: host', { headers: { host: v } }, { invalid: false })),
    fc
      .constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer \u0000',
        `Bearer ${'x'.repeat(10_000)}`,
        'Basic Og==',
        'Api-Key nope',
        'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
        'Bearer tsk_\uD800',
      )
      .map((authorization) =>
        request(
          c,
          'header: authorization',
          { credential: { authorization } },
          { invalid: c.credential !== 'none' },
        ),
      ),
  ];
  if (c.family === 'scim')
    options.push(
      fc
        .constantFrom('W/"nope"', '*', 'W/', '"', '\u0001', 'W/"1", *')
        .map((v) => screened('if-match', v, 'if-match')),
    );
  // The branch header is part of the data API's caller check, answered (403) before validation.
  if (c.family === 'data')
    options.push(
      fc
        .constantFrom('main', 'dev', 'a\u0000b', '../../etc', 'x'.repeat(300))
        .map((v) =>
          request(
            c,
            'header: x-tessera-branch',
            { headers: { 'x-tessera-branch': v } },
            { invalid: unstorable.test(v) },
          ),
        ),
    );
  if (bodyMethods.has(c.method) && c.payload !== undefined) {
    const json = (type: string) => {
      const media = type.split(';')[0].trim().toLowerCase();
      return media === 'application/json' || (c.family === 'scim' && media === 'application/scim+json');
    };
    options.push(
      absurdContentTypes.map((type) =>
        request(
          c,
          'header: content-type',
          { raw: JSON.stringify(c.payload), headers: { 'content-type': type } },
          {
            invalid: !json(type),
          },
        ),
      ),
    );
  }
  return fc.oneof(...options);
}

function rawBodyRequest(c: RouteCase): fc.Arbitrary<FuzzRequest> | undefined {
  if (!bodyMethods.has(c.method)) return undefined;
  return rawBodies.map((raw) => {
    let invalid: boolean;
    try {
      const parsed = JSON.parse(raw);
      const poisoned = raw.includes('__proto__') || (c.family !== 'scim' && raw.includes('constructor'));
      // JSON null reads as no body on routes whose body is optional: refused only where a field is required.
      const refused =
        c.schema.body !== undefined &&
        !check(c.schema.body, parsed) &&
        (parsed !== null || (c.schema.body.required ?? []).length > 0);
      invalid = poisoned || unstorable.test(JSON.stringify(parsed) ?? '') || refused;
      if (/\\u0000|\\ud800/.test(raw)) invalid = true;
    } catch (error) {
      // JSON nested deeper than this stack can parse is still JSON: a route may ignore it.
      if (error instanceof RangeError)
        return request(
          c,
          'body: raw text',
          { raw, headers: { 'content-type': c.contentType } },
          { invalid: false },
        );
      // Empty and unparseable JSON is the caller's error, except where SCIM reads an empty body as none.
      invalid = raw.startsWith('\uFEFF') ? false : !(c.family === 'scim' && raw.trim() === '');
    }
    return request(c, 'body: raw text', { raw, headers: { 'content-type': c.contentType } }, { invalid });
  });
}

/**
 * Requests for one route: valid ones generated from its schema around its sample, and malformed
 * ones in every part (body, query string, path, headers, raw body text).
 */
export function requestArbitrary(c: RouteCase): fc.Arbitrary<FuzzRequest> {
  const weighted: fc.WeightedArbitrary<FuzzRequest>[] = [
    { arbitrary: validRequest(c), weight: 4 },
    { arbitrary: queryRequest(c), weight: 2 },
    { arbitrary: headerRequest(c), weight: 2 },
  ];
  const body = bodyRequest(c);
  if (body) weighted.push({ arbitrary: body, weight: 5 });
  const params = paramRequest(c);
  if (params) weighted.push({ arbitrary: params, weight: 2 });
  const raw = rawBodyRequest(c);
  if (raw) weighted.push({ arbitrary: raw, weight: 1 });
  return fc.oneof(...weighted);
}
