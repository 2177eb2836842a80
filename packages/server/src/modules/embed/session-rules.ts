import type { Static } from 'typebox';
import type { UserAttributeType } from '../../db/schema.ts';
import type { FieldProblem } from '../../errors/domain-errors.ts';
import { TESSERA_CLAIMS } from '../data/branch.ts';
import { reservedGroupPrefix } from '../embed-tenants/group-names.ts';
import { fitsType, readDefault } from '../user-attributes/values.ts';
import type { GenerateSessionBody, UserAttributeDefinition, UserAttributeInput } from './schemas.ts';

/** The rules of spec 4.3 that need no store: what a request may combine, and the context it builds. */

type Body = Static<typeof GenerateSessionBody>;
type Definition = Static<typeof UserAttributeDefinition>;
type Attribute = Static<typeof UserAttributeInput>;

/** Spec 4.3 rule 2: a tenant group as the security context names it, so it never collides with a global group. */
export function namespacedTenantGroup(embedTenantName: string, group: string): string {
  return `system:tenant:${embedTenantName}:group:${group}`;
}

/**
 * Keys of the security context the server owns (decided here, documented on the route):
 * `serviceCloud` holds exactly the groups and user attributes the session was checked for, and
 * `tessera` and the registered claims are the data API's own (tokens/service.ts refuses them too).
 * A caller's `securityContext` naming one is refused with 400 rather than silently overridden.
 */
export const serverOwnedContextKeys = ['serviceCloud', TESSERA_CLAIMS, 'exp', 'iat', 'nbf'] as const;

const supplied = <T>(list: T[] | null | undefined): list is T[] => Array.isArray(list) && list.length > 0;

/** Spec 4.3 table and rules 1-2: fields that need other fields, reserved names, duplicates. */
export function sessionRuleProblems(body: Body): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const creator = body.creatorMode === true;
  const tenant = body.embedTenantName ?? null;
  for (const field of ['tenantGroups', 'tenantGroupDefinitions'] as const) {
    if (!supplied<unknown>(body[field])) continue;
    if (!creator) problems.push({ field: `body/${field}`, message: 'needs creatorMode: true' });
    if (tenant === null) problems.push({ field: `body/${field}`, message: 'needs embedTenantName' });
  }
  if (creator && tenant === null)
    problems.push({ field: 'body/embedTenantName', message: 'is required with creatorMode: true' });
  (body.tenantGroupDefinitions ?? []).forEach((d, i) => {
    if (d.name.startsWith(reservedGroupPrefix))
      problems.push({
        field: `body/tenantGroupDefinitions/${i}/name`,
        message: `must not start with "${reservedGroupPrefix}"`,
      });
  });
  problems.push(...duplicates(body.tenantGroupDefinitions ?? [], 'tenantGroupDefinitions'));
  const context = body.securityContext ?? {};
  for (const key of serverOwnedContextKeys) {
    if (key in context)
      problems.push({
        field: `body/securityContext/${key}`,
        message:
          key === 'serviceCloud'
            ? 'is set by the server from groups, tenantGroups and userAttributes'
            : 'is set by the server',
      });
  }
  return problems;
}

function duplicates(items: { name: string }[], field: string): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  items.forEach((item, i) => {
    if (seen.has(item.name))
      problems.push({ field: `body/${field}/${i}/name`, message: `names "${item.name}" a second time` });
    seen.add(item.name);
  });
  return problems;
}

/**
 * User attributes checked against their definitions (spec 4.3 `userAttributeDefinitions`,
 * `userAttributes`): the request's own and the account's stored ones (modules/user-attributes),
 * which the request's become. An undefined name, a value of the wrong type, a definition whose
 * type differs from the stored one, or a duplicate is a 400 naming the field. An attribute the
 * request defines without a value takes its `defaultValue`, read per its type.
 */
export function resolveUserAttributes(
  definitions: Definition[],
  attributes: Attribute[],
  stored: { name: string; type: UserAttributeType }[] = [],
): { values: Record<string, unknown>; problems: FieldProblem[] } {
  const problems = duplicates(definitions, 'userAttributeDefinitions');
  problems.push(...duplicates(attributes, 'userAttributes'));
  const storedTypes = new Map(stored.map((d) => [d.name, d.type]));
  const byName = new Map<string, { type?: UserAttributeType | null }>(stored.map((d) => [d.name, d]));
  for (const d of definitions) byName.set(d.name, d);
  const values: Record<string, unknown> = {};
  definitions.forEach((d, i) => {
    const storedType = storedTypes.get(d.name);
    if (storedType !== undefined && storedType !== (d.type ?? 'string'))
      problems.push({
        field: `body/userAttributeDefinitions/${i}/type`,
        message: `must be ${storedType}, the type of the account's attribute ${d.name}`,
      });
    if (d.defaultValue == null) return;
    const value = readDefault(d.type ?? 'string', d.defaultValue);
    if (value === undefined)
      problems.push({
        field: `body/userAttributeDefinitions/${i}/defaultValue`,
        message: `is not a ${d.type ?? 'string'} value`,
      });
    else values[d.name] = value;
  });
  attributes.forEach((a, i) => {
    const definition = byName.get(a.name);
    if (!definition) {
      problems.push({
        field: `body/userAttributes/${i}/name`,
        message: `"${a.name}" is not a defined user attribute; define it in userAttributeDefinitions or in the account's user attributes`,
      });
      return;
    }
    if (a.value == null) return;
    if (!fitsType(a.value, definition.type ?? 'string'))
      problems.push({
        field: `body/userAttributes/${i}/value`,
        message: `must be a ${definition.type ?? 'string'}`,
      });
    else values[a.name] = a.value;
  });
  return { values, problems };
}

/**
 * The security context a session's token carries (spec 4.3 rules 1 and 2): the caller's
 * `securityContext`, plus `serviceCloud.groups` (global groups verbatim, then tenant groups
 * namespaced) and `serviceCloud.userAttributes`, in the shape dashboard-data's
 * viewerSecurityContext gives account users, so that access policies read both alike.
 */
export function embedSecurityContext(input: {
  callerContext: Record<string, unknown>;
  groups: string[];
  tenantGroups: string[];
  embedTenantName: string | null;
  userAttributes: Record<string, unknown>;
}): Record<string, unknown> {
  const tenantGroups =
    input.embedTenantName === null
      ? []
      : input.tenantGroups.map((g) => namespacedTenantGroup(input.embedTenantName as string, g));
  const attributes = input.userAttributes;
  return {
    ...input.callerContext,
    serviceCloud: {
      groups: [...new Set([...input.groups, ...tenantGroups])],
      ...(Object.keys(attributes).length > 0 ? { userAttributes: { ...attributes } } : {}),
    },
  };
}
