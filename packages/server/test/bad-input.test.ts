import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from './harness.ts';
import { createFixtures, type Fixtures, managementRoutes, routeSamples } from './route-samples.ts';
import { storeChangedSince, storeMark } from './store-changes.ts';

type JsonSchema = TSchema & {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  maxLength?: number;
  type?: string | string[];
};

/** Values of every JSON type: a wrong-typed value is the first one the property's schema rejects. */
const candidates: unknown[] = [12345.5, 'not-the-right-type', true, ['x'], { nested: true }, -1];

function wrongTypes(schema: JsonSchema): unknown[] {
  return candidates.filter((value) => !Value.Check(schema, value)).slice(0, 2);
}

function isStringy(schema: JsonSchema): boolean {
  return schema.type === 'string' || (schema.anyOf ?? []).some((s) => s.type === 'string');
}

function maxLengthOf(schema: JsonSchema): number | undefined {
  return schema.maxLength ?? (schema.anyOf ?? []).find((s) => s.maxLength !== undefined)?.maxLength;
}

/**
 * Generated from the route schemas: for every management route with a body or a query string,
 * malformed JSON, wrong types, missing required fields, unknown enum values and huge strings are
 * answered 4xx problem+json naming the field, and the store is unchanged afterwards.
 */
describe('bad input on every management route', () => {
  let server: TestServer;
  let fixtures: Fixtures;
  beforeAll(async () => {
    server = await startTestServer();
    fixtures = await createFixtures(server);
  });
  afterAll(() => server?.close());

  /**
   * The routes in parts, a test each, so that a test's work (and its time on a loaded machine)
   * does not grow with the number of routes; every route is in exactly one part.
   */
  const parts = 6;
  let checked = 0;
  for (let part = 0; part < parts; part++)
    it(`rejects bad bodies and queries with 4xx problem+json and writes nothing (part ${part + 1} of ${parts})`, async () => {
      const failures: string[] = [];
      for (const route of managementRoutes(server).filter((_, i) => i % parts === part)) {
        const schema = route.schema as { body?: JsonSchema; querystring?: JsonSchema } | undefined;
        if (!schema?.body && !schema?.querystring) continue;
        const id = `${route.method} ${route.url}`;
        const sample = await routeSamples[id](fixtures);
        const before = await storeMark(server);
        const cases: { label: string; url: string; payload?: unknown; raw?: string; field?: string }[] = [];

        if (schema.body) {
          const body = sample.payload ?? {};
          cases.push({ label: 'malformed JSON', url: sample.url, raw: '{"name": "x",' });
          cases.push({ label: 'not an object', url: sample.url, payload: [1, 2, 3] });
          if ((schema.body.required ?? []).length > 0)
            cases.push({
              label: 'missing required',
              url: sample.url,
              payload: {},
              field: `body/${schema.body.required![0]}`,
            });
          for (const [name, prop] of Object.entries(schema.body.properties ?? {})) {
            for (const wrong of wrongTypes(prop))
              cases.push({
                label: `wrong type ${name}=${JSON.stringify(wrong)}`,
                url: sample.url,
                payload: { ...body, [name]: wrong },
                field: `body/${name}`,
              });
            if (prop.enum)
              cases.push({
                label: `unknown enum ${name}`,
                url: sample.url,
                payload: { ...body, [name]: 'no-such-value' },
                field: `body/${name}`,
              });
            if (isStringy(prop))
              cases.push({
                label: `huge ${name}`,
                url: sample.url,
                payload: { ...body, [name]: 'x'.repeat((maxLengthOf(prop) ?? 2_000_000) + 1) },
              });
          }
        }
        for (const [name, prop] of Object.entries(schema.querystring?.properties ?? {})) {
          const base = sample.url.split('?')[0];
          const bad = prop.enum
            ? 'no-such-value'
            : isStringy(prop)
              ? 'x'.repeat((maxLengthOf(prop) ?? 100_000) + 1)
              : 'not-a-number';
          cases.push({
            label: `bad query ${name}`,
            url: `${base}?${name}=${bad}`,
            payload: sample.payload,
            field: `querystring/${name}`,
          });
        }

        for (const c of cases) {
          checked++;
          const res = await server.app.inject({
            method: route.method as 'POST',
            url: c.url,
            headers: { ...bearer(server.adminKey), 'content-type': 'application/json' },
            ...(c.raw !== undefined
              ? { payload: c.raw }
              : c.payload !== undefined
                ? { payload: JSON.stringify(c.payload) }
                : {}),
          });
          const where = `${id} ${c.label}`;
          if (res.statusCode < 400 || res.statusCode >= 500) {
            failures.push(`${where}: ${res.statusCode}`);
            continue;
          }
          if (!String(res.headers['content-type']).includes('application/problem+json'))
            failures.push(`${where}: not problem+json`);
          if (
            c.field &&
            res.statusCode === 400 &&
            !(res.json().errors ?? []).some((e: { field: string }) => e.field === c.field)
          ) {
            failures.push(`${where}: errors do not name ${c.field}: ${res.body.slice(0, 300)}`);
          }
        }
        if ((await storeChangedSince(server, before)).length > 0)
          failures.push(`${id}: the store changed after bad input`);
      }
      expect(failures).toEqual([]);
    });

  it('checked every part', () => {
    expect(checked).toBeGreaterThan(80);
  });

  it('lists every problem of a request, not only the first', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: bearer(server.adminKey),
      payload: { email: 42, role: 'emperor', firstName: ['x'] },
    });
    expect(res.statusCode).toBe(400);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining(['body/email', 'body/username', 'body/role', 'body/firstName']),
    );
  });

  it('explains each problem in words: unknown fields, enum values, unions', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: bearer(server.adminKey),
      payload: { name: 5, kind: 'root', expiresAt: 7, colour: 'red' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { field: 'body/colour', message: 'is not a known field' },
        { field: 'body/name', message: 'must be string' },
        { field: 'body/kind', message: 'must be one of: api, scim' },
        { field: 'body/expiresAt', message: 'must be string or null' },
      ]),
    );
    expect(res.json().errors).toHaveLength(4);
  });

  it('answers an oversized body with 413', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/groups',
      headers: { ...bearer(server.adminKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'big', description: 'x'.repeat(server.config.bodyLimit) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('body_too_large');
  });
});
