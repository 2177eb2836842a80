import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer } from '../../../test/harness.ts';
import { warehouseKinds } from '../../datasources/kinds/index.ts';

/**
 * Bad data-source settings of every warehouse kind, read from the kinds' table so that a kind added
 * later is covered too (issue 24 "What it must show": the bad-input tests cover the new settings):
 * each is a 400 naming the field, saves nothing, and never echoes a secret it was given.
 */
describe('bad data-source settings of every kind', () => {
  let server: TestServer;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    server.app.inject({ method, url, headers: bearer(server.adminKey), ...(payload ? { payload } : {}) });
  const deployments = async () => (await call('GET', '/api/v1/deployments')).json();

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  for (const kind of warehouseKinds) {
    /** Each secret field of the kind, with a value that must never come back. */
    const secrets = Object.fromEntries(kind.secretFields.map((f) => [f, `never-shown-${kind.type}-${f}`]));
    const leaked = (body: string) => Object.values(secrets).filter((s) => body.includes(s));

    it(`${kind.type}: a field the kind does not have is a 400 naming it, and nothing is saved`, async () => {
      const before = await deployments();
      const res = await call('POST', '/api/v1/deployments', {
        name: `bad ${kind.type}`,
        dataSource: { type: kind.type, ...secrets, noSuchSetting: 1 },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toMatch(/noSuchSetting/);
      expect(leaked(res.body)).toEqual([]);
      expect(await deployments()).toEqual(before);
    });

    it(`${kind.type}: maxConnections that is no count is a 400 naming it`, async () => {
      const res = await call('POST', '/api/v1/data-sources/test', {
        type: kind.type,
        ...secrets,
        maxConnections: 'many',
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toMatch(/maxConnections/);
      expect(leaked(res.body)).toEqual([]);
    });

    it.runIf(kind.secretFields.length > 0)(
      `${kind.type}: settings missing what the kind requires are a 400 naming a field, never echoing a secret`,
      async () => {
        const res = await call('POST', '/api/v1/data-sources/test', { type: kind.type, ...secrets });
        expect(res.statusCode, res.body).toBe(400);
        const fields = (res.json().errors ?? []) as Array<{ field?: string }>;
        expect(fields.length, res.body).toBeGreaterThan(0);
        expect(fields.every((f) => typeof f.field === 'string' && f.field.length > 0)).toBe(true);
        expect(leaked(res.body)).toEqual([]);
      },
    );
  }
});
