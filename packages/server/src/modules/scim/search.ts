import type { RawBuilder } from 'kysely';
import type { Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { filterToSql } from './filter-sql.ts';
import type { ScimGroupsService } from './groups-service.ts';
import { type ListParams, listResponse, sortOf, windowOf } from './list.ts';
import type { ScimContext } from './preconditions.ts';
import { readProjection } from './projection.ts';
import type { ResourceKind } from './schema-defs.ts';
import type { ScimUsersService } from './users-service.ts';

/** A filter for one resource type; `null` when it names attributes that type does not have. */
function whereFor(kind: ResourceKind, filter: Filter | undefined): RawBuilder<boolean> | undefined | null {
  if (!filter) return undefined;
  try {
    return filterToSql(kind, filter);
  } catch (error) {
    if (error instanceof ScimError && error.scimType === 'invalidFilter') return null;
    throw error;
  }
}

/**
 * POST /.search at the root (RFC 7644 section 3.4.3): Users then Groups, paged as one list.
 * A filter that only one resource type understands selects from that type; one that neither
 * understands is 400 invalidFilter. sortBy applies within each type.
 */
export async function searchAll(
  ctx: ScimContext,
  users: ScimUsersService,
  groups: ScimGroupsService,
  params: ListParams,
) {
  const filter = params.filter ? parseFilter(params.filter) : undefined;
  const userWhere = whereFor('User', filter);
  const groupWhere = whereFor('Group', filter);
  if (userWhere === null && groupWhere === null) filterToSqlOrThrow(filter);
  const window = windowOf(params);
  const userTotal = userWhere === null ? 0 : await users.count(ctx, userWhere);
  const groupTotal = groupWhere === null ? 0 : await groups.count(ctx, groupWhere);
  const fromUsers = Math.max(0, Math.min(window.limit, userTotal - window.offset));
  const userPage =
    fromUsers > 0 && userWhere !== null
      ? await users.page(
          ctx,
          userWhere,
          sortFor('User', params),
          { ...window, limit: fromUsers },
          readProjection('User', params.attributes, params.excludedAttributes),
        )
      : [];
  const groupLimit = window.limit - userPage.length;
  const groupOffset = Math.max(0, window.offset - userTotal);
  const groupPage =
    groupLimit > 0 && groupWhere !== null
      ? await groups.page(
          ctx,
          groupWhere,
          sortFor('Group', params),
          { ...window, offset: groupOffset, limit: groupLimit },
          readProjection('Group', params.attributes, params.excludedAttributes),
        )
      : [];
  return listResponse(userTotal + groupTotal, window, [...userPage, ...groupPage]);
}

/** sortBy applies to the types that have the attribute. */
function sortFor(kind: ResourceKind, params: ListParams) {
  try {
    return sortOf(kind, params);
  } catch {
    return undefined;
  }
}

function filterToSqlOrThrow(filter: Filter | undefined) {
  if (filter) filterToSql('User', filter);
}
