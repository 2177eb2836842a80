import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { regionsFrom } from '../../config/config.ts';

/** The regions this server serves (issue 22 item 4; reference group Regions), from TESSERA_REGIONS. */
describe('regions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      regions: regionsFrom('eu-west:Europe West,us-east,ap-south:Asia: South'),
    });
  });
  afterAll(() => server?.close());

  const get = async (url: string, key: string | null = server.adminKey) => {
    const res = await server.app.inject({ method: 'GET', url, headers: key === null ? {} : bearer(key) });
    return { status: res.statusCode, body: res.json() };
  };

  it('lists the configured regions, paged with first and after; data holds them all', async () => {
    const first = await get('/api/v1/regions?first=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([
      {
        id: 1,
        name: 'eu-west',
        title: 'Europe West',
        provider: 'self-hosted',
        isPublic: true,
        isDedicated: false,
        isHybrid: false,
        useAiEngineer: false,
      },
      expect.objectContaining({ id: 2, name: 'us-east', title: 'us-east' }),
    ]);
    expect(first.body.data.map((r: { name: string }) => r.name)).toEqual(['eu-west', 'us-east', 'ap-south']);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await get(`/api/v1/regions?first=2&after=${first.body.pageInfo.endCursor}`);
    expect(next.body.items).toEqual([
      expect.objectContaining({ id: 3, name: 'ap-south', title: 'Asia: South' }),
    ]);
    expect(next.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('is read by any role; 401 without a credential; 400 for a bad page size or cursor', async () => {
    const { key } = await userWithKey(server, 'viewer');
    expect((await get('/api/v1/regions', key)).body.items).toHaveLength(3);
    expect((await get('/api/v1/regions', null)).status).toBe(401);
    const bad = await get('/api/v1/regions?first=0');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['querystring/first']);
    expect((await get('/api/v1/regions?after=not-a-cursor')).status).toBe(400);
  });

  it('defaults to one region, local; refuses a malformed or repeated configuration naming it', () => {
    expect(regionsFrom(undefined)).toEqual([{ name: 'local', title: 'Local' }]);
    expect(() => regionsFrom('EU West')).toThrow(/TESSERA_REGIONS entry "EU West"/);
    expect(() => regionsFrom('eu,eu')).toThrow(/region "eu" twice/);
  });
});
