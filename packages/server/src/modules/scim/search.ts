import type { RawBuilder } from 'kysely';
import type { Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';
import { parseFilter } from './filter-parse.ts';
import { type ListParams, listResponse, windowOf } from './list.ts';
import type { ScimContext } from './preconditions.ts';
import { readProjection } from './projection.ts';
import type { ResourceService } from './resource-service.ts';

/** A filter for one resource type; `null` when it names attributes that type does not have. */
function whereFor(
  service: ResourceService,
  filter: Filter | undefined,
): RawBuilder<boolean> | undefined | null {
  if (!filter) return undefined;
  try {
    return service.where(filter);
  } catch (error) {
    if (error instanceof ScimError && error.scimType === 'invalidFilter') return null;
    throw error;
  }
}

/** sortBy applies to the types that have the attribute. */
function sortFor(service: ResourceService, params: ListParams) {
  try {
    return service.sort(params);
  } catch {
    return undefined;
  }
}

/**
 * POST /.search at the root (RFC 7644 section 3.4.3): the resource types in order (Users, then
 * Groups), paged as one list. A filter that only some types understand selects from those; one
 * that none understands is 400 invalidFilter. sortBy applies within each type.
 */
export async function searchAll(ctx: ScimContext, services: ResourceService[], params: ListParams) {
  const filter = params.filter ? parseFilter(params.filter) : undefined;
  const wheres = services.map((service) => whereFor(service, filter));
  // Refused by every type: answer the first type's refusal.
  if (filter && wheres.every((where) => where === null)) services[0].where(filter);
  const window = windowOf(params);
  const totals: number[] = [];
  for (const [i, service] of services.entries()) {
    const where = wheres[i];
    totals.push(where === null ? 0 : await service.count(ctx, where));
  }
  const resources = [];
  let offset = window.offset;
  for (const [i, service] of services.entries()) {
    const where = wheres[i];
    const limit = Math.max(0, Math.min(window.limit - resources.length, totals[i] - offset));
    if (limit > 0 && where !== null) {
      const projection = readProjection(service.kind, params.attributes, params.excludedAttributes);
      resources.push(
        ...(await service.page(
          ctx,
          where,
          sortFor(service, params),
          { ...window, offset, limit },
          projection,
        )),
      );
    }
    offset = Math.max(0, offset - totals[i]);
  }
  const total = totals.reduce((sum, n) => sum + n, 0);
  return listResponse(total, window, resources);
}
