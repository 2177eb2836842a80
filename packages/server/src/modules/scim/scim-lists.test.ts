import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';

describe('SCIM lists: pagination, projection, sorting, .search', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  beforeAll(async () => {
    server = await startTestServer();
    scim = await scimClient(server);
    for (const n of ['u1', 'u2', 'u3', 'u4'])
      await scim.user(`${n}@example.com`, {
        name: { givenName: n.toUpperCase(), familyName: 'F' },
        emails: [{ value: `${n}@example.com` }],
      });
    await scim.group('Team');
  });
  afterAll(() => server?.close());

  const list = async (query: string) => (await scim.call('GET', `/Users?${query}`)).body;

  it('pages per RFC 7644 section 3.4.2.4', async () => {
    const all = await list('');
    expect(all).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 5,
      startIndex: 1,
      itemsPerPage: 5,
    });
    expect(await list('startIndex=2&count=2')).toMatchObject({
      totalResults: 5,
      startIndex: 2,
      itemsPerPage: 2,
    });
    expect((await list('startIndex=2&count=2')).Resources.map((u: { id: string }) => u.id)).toEqual(
      all.Resources.slice(1, 3).map((u: { id: string }) => u.id),
    );
    expect(await list('startIndex=0&count=1')).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect(await list('startIndex=-5&count=1')).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect(await list('count=0')).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 5,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    expect(await list('count=-3')).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect(await list('startIndex=99999999999&count=10')).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
      Resources: [],
    });
    expect(await list('startIndex=6')).toMatchObject({ totalResults: 5, startIndex: 6, Resources: [] });
    expect((await scim.call('GET', '/Users?count=abc')).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
  });

  it('sorts by an attribute, ascending or descending', async () => {
    const asc = await list('sortBy=name.givenName&filter=userName sw "u"');
    expect(asc.Resources.map((u: { userName: string }) => u.userName)).toEqual([
      'u1@example.com',
      'u2@example.com',
      'u3@example.com',
      'u4@example.com',
    ]);
    const desc = await list('sortBy=userName&sortOrder=descending&count=2');
    expect(desc.Resources.map((u: { userName: string }) => u.userName)).toEqual([
      'u4@example.com',
      'u3@example.com',
    ]);
    expect((await scim.call('GET', '/Users?sortBy=emails')).body).toMatchObject({ status: '400' });
  });

  it('returns only the attributes asked for, or all but the excluded ones', async () => {
    const some = await list('attributes=userName,name.givenName&count=1&startIndex=2');
    expect(some.Resources[0]).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: expect.any(String),
      userName: 'u1@example.com',
      name: { givenName: 'U1' },
    });
    const emails = await list('attributes=EMAILS.value&count=1&startIndex=2');
    expect(emails.Resources[0].emails).toEqual([{ value: 'u1@example.com' }]);
    const fewer = await list('excludedAttributes=emails,name,meta,id&count=1&startIndex=2');
    expect(fewer.Resources[0].emails).toBeUndefined();
    expect(fewer.Resources[0].meta).toBeUndefined();
    expect(fewer.Resources[0].id).toBeDefined();
    const one = await scim.call('GET', `/Users/${some.Resources[0].id}?attributes=userName`);
    expect(Object.keys(one.body).sort()).toEqual(['id', 'schemas', 'userName']);
  });

  it('searches with POST /.search per type and at the root (RFC 7644 section 3.4.3)', async () => {
    const search = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName sw "u"',
      attributes: ['userName'],
      startIndex: 1,
      count: 2,
      sortBy: 'userName',
    };
    const users = await scim.call('POST', '/Users/.search', search);
    expect(users.status).toBe(200);
    expect(users.body).toMatchObject({
      totalResults: 4,
      itemsPerPage: 2,
      Resources: [{ userName: 'u1@example.com' }, { userName: 'u2@example.com' }],
    });
    const root = await scim.call('POST', '/.search', { filter: 'meta.created pr', count: 100 });
    expect(root.body.totalResults).toBe(6);
    expect(root.body.Resources.at(-1)).toMatchObject({
      displayName: 'Team',
      meta: { resourceType: 'Group' },
    });
    const groupsOnly = await scim.call('POST', '/.search', { filter: 'displayName eq "team"' });
    expect(groupsOnly.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: 'Team' }] });
    const paged = await scim.call('POST', '/.search', { startIndex: 5, count: 2 });
    expect(paged.body.Resources.map((r: { meta: { resourceType: string } }) => r.meta.resourceType)).toEqual([
      'User',
      'Group',
    ]);
    expect((await scim.call('POST', '/.search', { filter: 'nope eq "x"' })).body).toMatchObject({
      status: '400',
      scimType: 'invalidFilter',
    });
  });
});
