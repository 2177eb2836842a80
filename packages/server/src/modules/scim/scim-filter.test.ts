import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { scimClient } from '../../../test/scim-client.ts';
import { quoteBareValues } from './filter-parse.ts';

const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** Filters are translated to SQL (filter-sql.ts); these run them on the real store. */
describe('SCIM filters (RFC 7644 section 3.4.2.2)', () => {
  let server: TestServer;
  let scim: Awaited<ReturnType<typeof scimClient>>;
  beforeAll(async () => {
    server = await startTestServer();
    scim = await scimClient(server);
    await scim.user('Alice@Example.com', {
      externalId: 'EXT-A',
      name: { givenName: 'Alice', familyName: 'Smith' },
      title: 'Engineer',
      emails: [
        { value: 'alice@work.example', type: 'work', primary: true },
        { value: 'alice@home.example', type: 'home' },
      ],
      [enterprise]: { employeeNumber: '100', department: 'R&D' },
    });
    await scim.user('bob', {
      externalId: 'ext-b',
      name: { givenName: 'Bob', familyName: 'Jones' },
      emails: [{ value: 'bob@home.example', type: 'home' }],
      active: false,
      [enterprise]: { employeeNumber: '200' },
    });
    await scim.user('carol', {
      name: { familyName: 'Smith' },
      title: 'Manager',
      emails: [{ value: 'carol@work.example', type: 'work' }],
    });
    const g = await scim.group('Admins Team');
    const alice = (await scim.call('GET', '/Users?filter=userName eq "alice@example.com"')).body.Resources[0]
      .id;
    await scim.call(
      'PATCH',
      `/Groups/${g.id}`,
      scim.patchOp({ op: 'add', path: 'members', value: [{ value: alice }] }),
    );
  });
  afterAll(() => server?.close());

  const names = async (filter: string) => {
    const res = await scim.call('GET', `/Users?filter=${encodeURIComponent(filter)}&sortBy=userName`);
    expect(res.status, `${filter}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.Resources.map((u: { userName: string }) => u.userName).filter(
      (n: string) => n !== 'admin',
    );
  };

  it.each([
    ['userName eq "ALICE@example.COM"', ['Alice@Example.com']],
    ['userName ne "bob"', ['Alice@Example.com', 'carol']],
    ['userName co "LIC"', ['Alice@Example.com']],
    ['userName sw "b"', ['bob']],
    ['userName ew ".COM"', ['Alice@Example.com']],
    ['userName gt "b"', ['bob', 'carol']],
    ['userName le "bob"', ['Alice@Example.com', 'bob']],
    ['externalId eq "ext-a"', []],
    ['externalId eq "EXT-A"', ['Alice@Example.com']],
    ['title pr', ['Alice@Example.com', 'carol']],
    ['not (title pr)', ['bob']],
    ['name.familyName eq "smith" and not (name.givenName eq "alice")', ['carol']],
    ['(name.familyName eq "Jones" or title eq "manager") and active eq true', ['carol']],
    ['active eq false', ['bob']],
    ['emails[type eq "work" and value co "@work"]', ['Alice@Example.com', 'carol']],
    ['emails[type eq "home"]', ['Alice@Example.com', 'bob']],
    ['emails.value ew "home.example"', ['Alice@Example.com', 'bob']],
    ['emails co "carol@"', ['carol']],
    ['emails[not (type eq "work")]', ['Alice@Example.com', 'bob']],
    ['emails.primary eq true', ['Alice@Example.com']],
    [`${enterprise}:employeeNumber eq "200"`, ['bob']],
    [`${enterprise}:department pr`, ['Alice@Example.com']],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "carol"', ['carol']],
    ['groups.display eq "admins team"', ['Alice@Example.com']],
    [
      'meta.created gt "2000-01-01T00:00:00Z" and meta.lastModified le "2999-01-01T00:00:00.1234567+01:00"',
      ['Alice@Example.com', 'bob', 'carol'],
    ],
    ['meta.resourceType eq "User" and userName sw "c"', ['carol']],
    ['meta.resourceType eq "user"', []],
    ['NAME.FAMILYNAME EQ "Smith"', ['Alice@Example.com', 'carol']],
    ['userName sw c', ['carol']],
  ])('%s', async (filter, expected) => {
    expect(await names(filter)).toEqual(expected);
  });

  it('filters Groups by displayName and members', async () => {
    const alice = (await scim.call('GET', '/Users?filter=userName eq "alice@example.com"')).body.Resources[0]
      .id;
    const res = await scim.call(
      'GET',
      `/Groups?filter=${encodeURIComponent(`displayName eq "ADMINS TEAM" and members[value eq "${alice}"]`)}`,
    );
    expect(res.body.totalResults).toBe(1);
    const none = await scim.call('GET', `/Groups?filter=${encodeURIComponent('members[value eq "0"]')}`);
    expect(none.body.totalResults).toBe(0);
  });

  it.each([
    'userName eq',
    'nope eq "x"',
    'emails[type eq "work"',
    'active gt true',
    'meta.created gt "yesterday"',
    'name eq "x"',
    'userName[value eq "x"]',
  ])('rejects %s with 400 invalidFilter', async (filter) => {
    const res = await scim.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
  });

  it('quotes bare values only after comparison operators', () => {
    expect(quoteBareValues('userName sw O and x eq 5 and y eq true and z eq "a b"')).toBe(
      'userName sw "O" and x eq 5 and y eq true and z eq "a b"',
    );
    expect(quoteBareValues('meta.created gt 2015-10-10T14:38:21.8617979-07:00')).toBe(
      'meta.created gt "2015-10-10T14:38:21.8617979-07:00"',
    );
  });
});
