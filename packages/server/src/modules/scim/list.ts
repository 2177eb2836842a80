import { type RawBuilder, sql } from 'kysely';
import { defaultCount, maxCount, urn } from './constants.ts';
import { invalidValue } from './errors.ts';
import { type Filterable, operandOf } from './filter-operands.ts';
import { resolvePath } from './paths.ts';

/** The parameters of a query (RFC 7644 section 3.4.2), from a query string or a SearchRequest body. */
export interface ListParams {
  filter?: string;
  startIndex?: number;
  count?: number;
  sortBy?: string;
  sortOrder?: string;
  attributes?: string | string[];
  excludedAttributes?: string | string[];
}

export interface Window {
  startIndex: number;
  offset: number;
  limit: number;
}

/**
 * RFC 7644 section 3.4.2.4: startIndex is 1-based and a value below 1 is read as 1; a negative
 * count as 0, and count 0 asks only for totalResults. Counts above maxCount are capped.
 */
export function windowOf(params: ListParams): Window {
  const startIndex = Math.max(1, Math.trunc(params.startIndex ?? 1));
  const limit = Math.min(maxCount, Math.max(0, Math.trunc(params.count ?? defaultCount)));
  return { startIndex, offset: Math.min(startIndex - 1, 2 ** 31 - 1), limit };
}

export interface Sort {
  expr: RawBuilder<unknown>;
  descending: boolean;
}

/** RFC 7644 section 3.4.2.3: sortBy names a singular attribute; strings sort case-insensitively unless caseExact. */
export function sortOf(target: Filterable, params: ListParams): Sort | undefined {
  const descending = params.sortOrder !== undefined && params.sortOrder.toLowerCase() === 'descending';
  if (params.sortOrder !== undefined && !/^(ascending|descending)$/i.test(params.sortOrder)) {
    throw invalidValue('sortOrder must be ascending or descending');
  }
  if (!params.sortBy) return undefined;
  const path = resolvePath(target.kind, params.sortBy);
  if (!path || path.attr.multiValued || (path.attr.type === 'complex' && !path.sub)) {
    throw invalidValue(`sortBy must name a singular attribute of ${target.kind}`);
  }
  const operand = operandOf(target, path);
  const textual = operand.sqlType === 'text' && !operand.def.caseExact;
  return { expr: textual ? sql`lower(${operand.value})` : operand.value, descending };
}

export interface ListResponse<T> {
  schemas: [typeof urn.listResponse];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
}

export function listResponse<T>(total: number, window: Window, resources: T[]): ListResponse<T> {
  return {
    schemas: [urn.listResponse],
    totalResults: total,
    startIndex: window.startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
