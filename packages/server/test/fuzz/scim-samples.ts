import fc from 'fast-check';
import type { TestServer } from '../harness.ts';
import { scimClient } from '../scim-client.ts';
import type { Hints } from './json-schema-arbitrary.ts';

const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';
const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const searchSchema = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
const patchSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export interface ScimFixtures {
  token: string;
  sample(method: string, url: string): Promise<{ url: string; payload?: unknown }>;
  hints: Hints;
}

const unique = () => Math.random().toString(36).slice(2, 10);

/**
 * One valid request per SCIM route (RFC 7644 section 3), and hints that make generated bodies
 * speak SCIM: filters, patch operations and paths, member ids of real users and groups.
 */
export async function scimFixtures(server: TestServer): Promise<ScimFixtures> {
  const scim = await scimClient(server);
  const newUser = () => scim.user(`fuzz-${unique()}@example.com`, { name: { givenName: 'Fuzz' } });
  const member = await newUser();
  const user = await newUser();
  const group = await scim.group(`fuzz group ${unique()}`, [member.id]);

  async function sample(method: string, url: string): Promise<{ url: string; payload?: unknown }> {
    // The lower-case aliases (`/users`) take the same requests as `/Users`.
    const path = url
      .replace('/api/scim/v2', '')
      .replace(/^\/users/, '/Users')
      .replace(/^\/groups/, '/Groups');
    const isGroup = path.startsWith('/Groups');
    const base = `/api/scim/v2${url.replace('/api/scim/v2', '').split('/:id')[0]}`;
    if (path.endsWith('/.search'))
      return { url, payload: { schemas: [searchSchema], filter: 'meta.resourceType pr', count: 5 } };
    if (path === '/ResourceTypes/:id') return { url: `${base}/User` };
    if (path === '/Schemas/:id') return { url: `${base}/${userSchema}` };
    if (!path.endsWith('/:id')) {
      if (method === 'POST')
        return {
          url,
          payload: isGroup
            ? { schemas: [groupSchema], displayName: `fuzz ${unique()}`, members: [{ value: member.id }] }
            : { schemas: [userSchema], userName: `new-${unique()}@example.com`, active: true },
        };
      return { url: path.startsWith('/Users') || path.startsWith('/Groups') ? `${url}?count=5` : url };
    }
    if (method === 'DELETE') {
      const doomed = isGroup ? await scim.group(`doomed ${unique()}`) : await newUser();
      return { url: `${base}/${doomed.id}` };
    }
    const id = isGroup ? group.id : user.id;
    if (method === 'PUT')
      return {
        url: `${base}/${id}`,
        payload: isGroup
          ? { schemas: [groupSchema], displayName: `replaced ${unique()}`, members: [{ value: member.id }] }
          : { schemas: [userSchema], userName: `replaced-${unique()}@example.com`, active: true },
      };
    if (method === 'PATCH')
      return {
        url: `${base}/${id}`,
        payload: {
          schemas: [patchSchema],
          Operations: [
            isGroup
              ? { op: 'add', path: 'members', value: [{ value: member.id }] }
              : { op: 'replace', path: 'name.givenName', value: 'Patched' },
          ],
        },
      };
    return { url: `${base}/${id}` };
  }

  const attributes = fc.constantFrom(
    'userName',
    'displayName',
    'members',
    'members.value',
    'name.givenName',
    'emails[type eq "work"].value',
    'emails[primary eq true]',
    'active',
    'meta.lastModified',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
    'nope',
    'members[value eq "1"]',
    'name.',
    '[',
    '',
  );
  const filter = fc.oneof(
    fc.constantFrom(
      'userName eq "fuzz@example.com"',
      'userName sw "f" and active eq true',
      'displayName co "z" or not (externalId pr)',
      'emails[type eq "work" and value ew ".com"]',
      'meta.lastModified gt "2020-01-01T00:00:00Z"',
      'meta.created lt "not a date"',
      `members[value eq "${member.id}"]`,
      'id eq "99999999999"',
      'id gt 1e400',
      'userName eq',
      '((((((((((userName pr))))))))))',
      `${'not ('.repeat(200)}userName pr${')'.repeat(200)}`,
      'title eq null',
      'active eq "False"',
      'x eq "\u0001"',
    ),
    fc.string({ maxLength: 40 }),
  );
  const hints: Hints = (path) => {
    if (/\/(Operations)\/\*\/op$/.test(path))
      return fc.constantFrom('add', 'remove', 'replace', 'Replace', 'ADD', 'move', '');
    if (/\/Operations\/\*\/path$/.test(path)) return attributes;
    if (/\/Operations\/\*\/value$/.test(path))
      return fc.oneof(
        fc.constantFrom(false, 'False', 'true', [{ value: member.id }], [{ value: '1' }], { active: false }),
        fc.jsonValue({ maxDepth: 2 }),
      );
    if (/\/members\/\*\/value$/.test(path))
      return fc.constantFrom(member.id, user.id, '0', '99999999999', 'not-an-id', '-1', `${member.id}.0`);
    if (/^\/(filter)$/.test(path)) return filter;
    if (/^\/(sortBy)$/.test(path)) return attributes;
    if (/^\/(sortOrder)$/.test(path)) return fc.constantFrom('ascending', 'descending', 'sideways');
    if (/^\/(startIndex|count)$/.test(path))
      return fc.constantFrom(1, 0, -1, 5, 1000, 1001, 2 ** 31, 2 ** 53, 1e20, -1e20);
    if (/^\/(attributes|excludedAttributes)(\/\*)?$/.test(path)) return attributes;
    if (/\/emails\/\*\/value$/.test(path)) return fc.oneof(fc.emailAddress(), fc.string({ maxLength: 10 }));
    if (/^\/schemas\/\*$/.test(path))
      return fc.constantFrom(userSchema, groupSchema, searchSchema, patchSchema, 'urn:nope');
    return undefined;
  };
  return { token: scim.token, sample, hints };
}
