import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestServer, type TestServer, userWithKey } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';

const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('SCIM Users', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  beforeAll(async () => {
    server = await startTestServer();
    scim = await scimClient(server);
  });
  afterAll(() => server?.close());

  it('creates a Tessera viewer with Location, ETag and meta, and reads it back', async () => {
    const res = await scim.call('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', enterprise],
      UserName: 'jane@example.com',
      Name: { GivenName: 'Jane', familyName: 'Doe', formatted: 'Jane Doe' },
      emails: [{ Value: 'jane.doe@example.com', Primary: 'True', type: 'work' }],
      [enterprise]: { employeeNumber: '42', Manager: { Value: '7' } },
      password: 'never stored',
    });
    expect(res.status).toBe(201);
    const user = res.body;
    expect(res.headers.location).toBe(user.meta.location);
    expect(res.headers.etag).toBe(user.meta.version);
    expect(user).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', enterprise],
      userName: 'jane@example.com',
      name: { givenName: 'Jane', familyName: 'Doe', formatted: 'Jane Doe' },
      emails: [{ value: 'jane.doe@example.com', primary: true, type: 'work' }],
      active: true,
      [enterprise]: { employeeNumber: '42', manager: { value: '7' } },
      meta: {
        resourceType: 'User',
        location: expect.stringMatching(new RegExp(`/api/scim/v2/Users/${user.id}$`)),
      },
    });
    expect(JSON.stringify(user)).not.toContain('never stored');
    const tessera = await server.app.inject({
      method: 'GET',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(server.adminKey),
    });
    expect(tessera.json()).toMatchObject({
      username: 'jane@example.com',
      email: 'jane.doe@example.com',
      role: 'viewer',
      firstName: 'Jane',
      lastName: 'Doe',
    });
    const read = await scim.call('GET', `/Users/${user.id}`);
    expect(read.body).toEqual(user);
    expect(
      (await scim.call('GET', `/Users/${user.id}`, undefined, { 'if-none-match': user.meta.version })).status,
    ).toBe(304);
  });

  it('refuses a duplicate userName, case-insensitively, with 409 uniqueness', async () => {
    await scim.user('Dup@Example.com');
    const res = await scim.call('POST', '/Users', { userName: 'dup@example.COM' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
    });
  });

  it('creates exactly one user out of 20 concurrent identical requests; the others get 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        scim.call('POST', '/Users', {
          userName: 'race@example.com',
          emails: [{ value: 'race@example.com' }],
        }),
      ),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.scimType === 'uniqueness')).toBe(true);
    const found = await scim.call('GET', '/Users?filter=userName eq "RACE@example.com"');
    expect(found.body.totalResults).toBe(1);
  });

  it('lets users share an email: the second keeps it in SCIM and gets a synthetic Tessera email', async () => {
    const a = await scim.user('share-a', { emails: [{ value: 'shared@example.com', primary: true }] });
    const b = await scim.user('share-b', { emails: [{ value: 'shared@example.com', primary: true }] });
    expect((await scim.call('GET', `/Users/${b.id}`)).body.emails).toEqual([
      { value: 'shared@example.com', primary: true },
    ]);
    const row = async (id: string) =>
      (
        await server.app.inject({
          method: 'GET',
          url: `/api/v1/users/${id}`,
          headers: bearer(server.adminKey),
        })
      ).json();
    expect((await row(a.id)).email).toBe('shared@example.com');
    expect((await row(b.id)).email).toBe('share-b@scim.invalid');
  });

  it('replaces with PUT, honours If-Match (412 on a stale version) and clears omitted attributes', async () => {
    const u = await scim.user('put@example.com', { title: 'Engineer', displayName: 'Put' });
    const stale = await scim.call(
      'PUT',
      `/Users/${u.id}`,
      { userName: 'put@example.com' },
      { 'if-match': 'W/"1"' },
    );
    expect(stale.status).toBe(412);
    const res = await scim.call(
      'PUT',
      `/Users/${u.id}`,
      { userName: 'put2@example.com', displayName: 'Put Two' },
      { 'if-match': u.meta.version },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userName: 'put2@example.com', displayName: 'Put Two' });
    expect(res.body.title).toBeUndefined();
    expect(res.headers.etag).not.toBe(u.meta.version);
    expect(
      (await scim.call('PUT', `/Users/${u.id}`, { userName: 'put3' }, { 'if-match': u.meta.version })).status,
    ).toBe(412);
    expect((await scim.call('PUT', `/Users/${u.id}`, { displayName: 'no userName' })).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
  });

  it("deactivates with active false (Okta path-less PATCH) and revokes the user's API keys", async () => {
    const { user, key } = await userWithKey(server, 'developer');
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(key) })).statusCode,
    ).toBe(200);
    const res = await scim.call(
      'PATCH',
      `/Users/${user.id}`,
      scim.patchOp({ op: 'replace', value: { active: false } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(false);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/v1/users/me', headers: bearer(key) })).statusCode,
    ).toBe(401);
    const keys = await server.store.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('user_id', '=', user.id)
      .execute();
    expect(keys.every((k) => k.revoked_at !== null)).toBe(true);
    const filtered = await scim.call('GET', `/Users?filter=active eq false and id eq "${user.id}"`);
    expect(filtered.body.totalResults).toBe(1);
  });

  it('accepts what Entra sends: capitalised ops, "False", dotted and URN keys, filtered paths', async () => {
    const u = await scim.user('entra@example.com', {
      emails: [{ value: 'entra@example.com', type: 'work', primary: true }],
    });
    const res = await scim.call(
      'PATCH',
      `/Users/${u.id}`,
      scim.patchOp(
        { op: 'Replace', path: 'displayName', value: 'Entra User' },
        {
          op: 'Add',
          value: { 'name.givenName': 'En', 'name.familyName': 'Tra', [`${enterprise}:department`]: 'Sales' },
        },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'entra.new@example.com' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555' },
        { op: 'Add', path: `${enterprise}:employeeNumber`, value: '7' },
        { op: 'Replace', path: 'active', value: 'False' },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Entra User',
      name: { givenName: 'En', familyName: 'Tra' },
      emails: [{ value: 'entra.new@example.com', type: 'work', primary: true }],
      phoneNumbers: [{ type: 'mobile', value: '+1 555' }],
      active: false,
      [enterprise]: { department: 'Sales', employeeNumber: '7' },
    });
    expect(res.body.schemas).toContain(enterprise);
    const back = await scim.call(
      'PATCH',
      `/Users/${u.id}`,
      scim.patchOp({ op: 'replace', path: 'active', value: 'True' }),
    );
    expect(back.body.active).toBe(true);
  });

  it('keeps the last active admin: deactivating or deleting them is refused', async () => {
    const admins = await server.store.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .execute();
    expect(admins).toHaveLength(1);
    const res = await scim.call(
      'PATCH',
      `/Users/${admins[0].id}`,
      scim.patchOp({ op: 'replace', path: 'active', value: false }),
    );
    expect(res.status).toBe(409);
    expect((await scim.call('DELETE', `/Users/${admins[0].id}`)).status).toBe(409);
  });

  it('deletes with 204, then answers 404; If-Match applies to DELETE', async () => {
    const u = await scim.user('gone@example.com');
    expect((await scim.call('DELETE', `/Users/${u.id}`, undefined, { 'if-match': 'W/"0"' })).status).toBe(
      412,
    );
    const res = await scim.call('DELETE', `/Users/${u.id}`, undefined, { 'if-match': u.meta.version });
    expect(res.status).toBe(204);
    expect((await scim.call('GET', `/Users/${u.id}`)).status).toBe(404);
    expect((await scim.call('DELETE', `/Users/${u.id}`)).status).toBe(404);
  });
});
