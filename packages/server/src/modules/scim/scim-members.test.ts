import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { type ScimResponse, scimClient } from '../../../test/scim-client.ts';

/**
 * A group's members must be users of the account (RFC 7643 section 4.2: `value` is the `id` of a
 * member resource): an id that names no user of the account, whether it does not exist or belongs
 * to another account, is 400 invalidValue naming it, and the group stays as it was. Both answers
 * read the same, so that one account cannot learn which ids another account holds.
 */
describe('SCIM group members must be users of the account', () => {
  let server: TestServer;
  let call: (...args: Parameters<Awaited<ReturnType<typeof scimClient>>['call']>) => Promise<ScimResponse>;
  let patchOp: Awaited<ReturnType<typeof scimClient>>['patchOp'];
  let own: string;
  let foreign: string;
  const missing = '2147483000';
  beforeAll(async () => {
    // Two accounts on one server: requests name theirs by host (DESIGN.md "Addresses").
    server = await startTestServer({ domain: 'tessera.test' });
    const scim = await scimClient(server);
    call = (method, url, payload, headers = {}) =>
      scim.call(method, url, payload, { host: 'default.tessera.test', ...headers });
    patchOp = scim.patchOp;
    own = (await scim.user('own@example.com')).id;
    // A second account and a user of its own, as `tessera create-tenant` makes them.
    const repos = server.services.repositories;
    const acme = await repos.tenants.create({ name: 'acme', displayName: 'Acme', customDomain: null });
    const stranger = await repos.users.insert(acme.id, {
      email: 'stranger@acme.example',
      username: 'stranger',
      role: 'viewer',
    });
    foreign = String(stranger.id);
    server.services.tenantResolver.invalidate();
  });
  afterAll(() => server?.close());

  const group = async (displayName: string) => {
    const res = await call('POST', '/Groups', { displayName, members: [{ value: own }] });
    expect(res.status).toBe(201);
    return res.body as { id: string; meta: { version: string } };
  };
  const expectRefused = (res: ScimResponse, value: string) => {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(res.body.detail).toContain(`"${value}"`);
  };
  const unchanged = async (g: { id: string; meta: { version: string } }, displayName: string) => {
    const now = await call('GET', `/Groups/${g.id}`);
    expect(now.body.displayName).toBe(displayName);
    expect(now.body.members.map((m: { value: string }) => m.value)).toEqual([own]);
    expect(now.body.meta.version).toBe(g.meta.version);
  };

  it('refuses a PATCH adding a user of another account or an id that names no one', async () => {
    const g = await group('Patched');
    for (const value of [foreign, missing]) {
      const res = await call(
        'PATCH',
        `/Groups/${g.id}`,
        patchOp(
          { op: 'replace', path: 'displayName', value: 'Renamed' },
          { op: 'add', path: 'members', value: [{ value }] },
        ),
      );
      expectRefused(res, value);
      await unchanged(g, 'Patched');
    }
    const members = await server.store.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', Number(g.id))
      .execute();
    expect(members).toEqual([{ user_id: Number(own) }]);
  });

  it('refuses a PUT with such a member and changes nothing', async () => {
    const g = await group('Replaced');
    for (const value of [foreign, missing]) {
      const res = await call('PUT', `/Groups/${g.id}`, {
        displayName: 'Replaced 2',
        members: [{ value: own }, { value }],
      });
      expectRefused(res, value);
      await unchanged(g, 'Replaced');
    }
  });

  it('refuses a POST with such a member and creates no group', async () => {
    for (const value of [foreign, missing]) {
      const res = await call('POST', '/Groups', { displayName: `New ${value}`, members: [{ value }] });
      expectRefused(res, value);
      const found = await call(
        'GET',
        `/Groups?filter=${encodeURIComponent(`displayName eq "New ${value}"`)}`,
      );
      expect(found.body.totalResults).toBe(0);
    }
  });

  it('answers an id of another account exactly as an id that does not exist', async () => {
    const g = await group('Same answer');
    const details = [];
    for (const value of [foreign, missing]) {
      const res = await call('PATCH', `/Groups/${g.id}`, patchOp({ op: 'add', path: 'members', value }));
      expectRefused(res, value);
      details.push(res.body.detail.replace(value, '<id>'));
    }
    expect(details[0]).toBe(details[1]);
  });
});
