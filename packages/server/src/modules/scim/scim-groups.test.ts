import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';

describe('SCIM Groups and PATCH', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  let ids: string[];
  beforeAll(async () => {
    server = await startTestServer();
    scim = await scimClient(server);
    ids = [];
    for (const name of ['ann', 'bob', 'cid'])
      ids.push((await scim.user(`${name}@example.com`, { displayName: name.toUpperCase() })).id);
  });
  afterAll(() => server?.close());

  const members = async (id: string) =>
    ((await scim.call('GET', `/Groups/${id}`)).body.members ?? []).map((m: { value: string }) => m.value);

  it('creates a global group with members; member values that cannot be ids are ignored', async () => {
    const res = await scim.call('POST', '/Groups', {
      displayName: 'Analysts',
      externalId: 'ext-1',
      members: [{ value: ids[0], display: 'Ann A.' }, { value: 'not-an-id' }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      displayName: 'Analysts',
      externalId: 'ext-1',
      members: [{ value: ids[0], display: 'Ann A.', type: 'User' }],
    });
    const tessera = await server.store.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', Number(res.body.id))
      .execute();
    expect(tessera).toEqual([{ user_id: Number(ids[0]) }]);
    const user = await scim.call('GET', `/Users/${ids[0]}`);
    expect(user.body.groups).toEqual([expect.objectContaining({ value: res.body.id, display: 'Analysts' })]);
    expect((await scim.call('POST', '/Groups', { displayName: 'ANALYSTS' })).body).toMatchObject({
      status: '409',
      scimType: 'uniqueness',
    });
  });

  it('adds and removes members as Okta and Entra do, answering 204', async () => {
    const g = await scim.group('Membership');
    const add = await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({
        op: 'Add',
        path: 'members',
        value: [{ value: ids[0] }, { value: ids[1] }, { value: ids[2] }],
      }),
    );
    expect(add.status).toBe(204);
    expect(await members(g.id)).toEqual(ids);
    await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({ op: 'remove', path: `members[value eq "${ids[1]}"]` }),
    );
    expect(await members(g.id)).toEqual([ids[0], ids[2]]);
    await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({ op: 'Remove', path: 'members', value: [{ value: ids[0] }] }),
    );
    expect(await members(g.id)).toEqual([ids[2]]);
    await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({ op: 'add', path: 'members', value: [{ value: ids[2] }] }),
    );
    expect(await members(g.id)).toEqual([ids[2]]);
    await scim.call('PATCH', `/Groups/${g.id}`, scim.patchOp({ op: 'remove', path: 'members' }));
    expect(await members(g.id)).toEqual([]);
    const renamed = await scim.call(
      'PATCH',
      `/Groups/${g.id}?attributes=displayName`,
      scim.patchOp({ op: 'replace', value: { displayName: 'Renamed', id: 'ignored' } }),
    );
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      id: g.id,
      displayName: 'Renamed',
    });
  });

  it('applies a PATCH atomically: one failing operation changes nothing', async () => {
    const g = await scim.group('Atomic', [ids[0]]);
    const res = await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp(
        { op: 'add', path: 'members', value: [{ value: ids[1] }] },
        { op: 'replace', path: 'displayName', value: 'Analysts' },
      ),
    );
    expect(res.status).toBe(409);
    expect(await members(g.id)).toEqual([ids[0]]);
    const bad = await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({ op: 'replace', path: 'displayName', value: 'X' }, { op: 'remove', path: 'displayName' }),
    );
    expect(bad.body).toMatchObject({ status: '400', scimType: 'mutability' });
    expect((await scim.call('GET', `/Groups/${g.id}`)).body.displayName).toBe('Atomic');
  });

  it('answers PATCH errors with their scimType', async () => {
    const u = await scim.user('patch-errors@example.com');
    const cases: [unknown, string][] = [
      [scim.patchOp({ op: 'remove' }), 'noTarget'],
      [scim.patchOp({ op: 'replace', path: 'nope', value: 1 }), 'invalidPath'],
      [scim.patchOp({ op: 'replace', path: 'emails[type eq', value: 1 }), 'invalidPath'],
      [scim.patchOp({ op: 'replace', path: 'id', value: '1' }), 'mutability'],
      [scim.patchOp({ op: 'replace', path: 'active', value: 'maybe' }), 'invalidValue'],
      [scim.patchOp({ op: 'move', path: 'active', value: true }), 'invalidSyntax'],
      [{ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [] }, 'invalidSyntax'],
      [scim.patchOp({ op: 'remove', path: 'emails[type co "x" or value pr]' }), ''],
    ];
    for (const [body, scimType] of cases) {
      const res = await scim.call('PATCH', `/Users/${u.id}`, body);
      if (scimType === '') expect(res.status, JSON.stringify(body)).toBe(200);
      else expect(res.body, JSON.stringify(body)).toMatchObject({ status: '400', scimType });
    }
  });

  it('PATCHes multi-valued attributes: filters, sub-attributes, one primary', async () => {
    const u = await scim.user('multi@example.com', {
      emails: [
        { value: 'a@example.com', type: 'work', primary: true },
        { value: 'b@example.com', type: 'home' },
      ],
    });
    const res = await scim.call(
      'PATCH',
      `/Users/${u.id}`,
      scim.patchOp(
        { op: 'add', path: 'emails', value: [{ value: 'c@example.com', type: 'other', primary: true }] },
        { op: 'remove', path: 'emails[type eq "home"]' },
        { op: 'replace', path: 'emails[value sw "a@"].type', value: 'home' },
        { op: 'add', path: 'emails', value: [{ value: 'C@example.com', type: 'other' }] },
      ),
    );
    expect(res.body.emails).toEqual([
      { value: 'a@example.com', type: 'home', primary: false },
      { value: 'c@example.com', type: 'other', primary: true },
    ]);
  });

  it('replaces a group with PUT, members included; omitted members empties it', async () => {
    const g = await scim.group('Put group', [ids[0]]);
    const res = await scim.call(
      'PUT',
      `/Groups/${g.id}`,
      { displayName: 'Put group 2', members: [{ value: ids[1] }, { value: ids[2] }] },
      { 'if-match': g.meta.version },
    );
    expect(res.status).toBe(200);
    expect(await members(g.id)).toEqual([ids[1], ids[2]]);
    expect(
      (await scim.call('PUT', `/Groups/${g.id}`, { displayName: 'x' }, { 'if-match': g.meta.version }))
        .status,
    ).toBe(412);
    await scim.call('PUT', `/Groups/${g.id}`, { displayName: 'Put group 3' });
    expect(await members(g.id)).toEqual([]);
    expect(
      (await scim.call('GET', `/Groups/${g.id}?excludedAttributes=members`)).body.members,
    ).toBeUndefined();
    expect((await scim.call('DELETE', `/Groups/${g.id}`)).status).toBe(204);
    expect((await scim.call('GET', `/Groups/${g.id}`)).status).toBe(404);
  });
});
